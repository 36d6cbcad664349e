// sorter: scratch, grid size, persistent vs per-step launches (sort.hpp).

#include <algorithm>
#include <string>

#include "common/error.hpp"
#include "cuda/sync/barrier/step_runtime.cuh"
#include "cuda/common/cuda_check.cuh"
#include "cuda/studies/sort/sort.hpp"
#include "cuda/studies/sort/sort_dispatch.cuh"

namespace swat::sort {

struct sorter::impl : barrier::step_runtime {
  template <typename word_t>
  void run(const void* d_keys, const std::uint32_t* d_vals, std::size_t n, int kind,
           const sort_options& opt, cudaStream_t stream) {
    const sort_plan plan = make_sort_plan(n, sizeof(word_t) == 8);
    if (plan.steps == 0) return;
    detail::sort_args<word_t> args{};
    args.d_work = static_cast<word_t*>(scratch(sizeof(word_t) << plan.padded_log2));
    args.d_keys_in = static_cast<const std::uint32_t*>(d_keys);
    args.d_keys_out = static_cast<std::uint32_t*>(const_cast<void*>(d_keys));
    args.d_vals_in = d_vals;
    args.d_vals_out = const_cast<std::uint32_t*>(d_vals);
    args.n = static_cast<long long>(n);
    args.p_log = plan.padded_log2;
    args.t_log = detail::sort_traits<word_t>::policy.tile_log2;
    args.steps = plan.steps;
    args.kind = kind;
    args.descending = opt.order == sort_order::descending;
    const std::size_t smem = plan.smem_bytes();
    if (is_persistent(opt.mode)) {
      const int cap = cached_cap<word_t>(opt.mode, smem, detail::persistent_max_blocks<word_t>);
      const long long want = opt.blocks > 0 ? opt.blocks : default_blocks(plan, cap);
      const int blocks = static_cast<int>(std::max<long long>(1, want));
      barrier::barrier_handle h{};
      h.n_blocks = blocks;
      ws_used = opt.mode != sync_mode::none;
      if (ws_used) {
        if (!ws || ws->max_blocks() < blocks) {
          ws.reset();
          ws = std::make_unique<barrier::barrier_workspace>(std::max(blocks, cap));
        }
        h = ws->prepare(opt.mode, blocks, stream);
      }
      last_blocks = blocks;
      detail::launch_persistent<word_t>(opt.mode, h, args, 0, plan.steps, blocks, smem, stream);
      if (opt.check && ws_used) ws->check(stream);
      return;
    }
    ws_used = false;
    const int grid = static_cast<int>(std::min<long long>(plan.tiles, 1LL << 30));
    last_blocks = grid;
    const barrier::step_launcher launch = [args, smem, grid](cudaStream_t s, int step) {
      detail::launch_step<word_t>(args, step, grid, smem, s);
    };
    if (opt.mode != sync_mode::graph) {
      barrier::run_steps(opt.mode, plan.steps, stream, launch);
      return;
    }
    const std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(d_keys)) + "/" +
                            std::to_string(reinterpret_cast<std::uintptr_t>(d_vals)) + "/" +
                            std::to_string(n) + "/" + std::to_string(kind) + "/" +
                            std::to_string(args.descending) + "/" + std::to_string(sizeof(word_t));
    if (!graph || key != graph_key) {
      graph.reset();
      graph = std::make_unique<barrier::step_graph>(plan.steps, launch);
      graph_key = key;
    }
    graph->replay(stream);
  }
};

sorter::sorter() : impl_(std::make_unique<impl>()) {}
sorter::~sorter() = default;

void sorter::sort_keys(std::uint32_t* d_keys, std::size_t n, const sort_options& o, void* stream) {
  impl_->run<std::uint32_t>(d_keys, nullptr, n, detail::key_u32, o, static_cast<cudaStream_t>(stream));
}
void sorter::sort_keys(std::int32_t* d_keys, std::size_t n, const sort_options& o, void* stream) {
  impl_->run<std::uint32_t>(d_keys, nullptr, n, detail::key_i32, o, static_cast<cudaStream_t>(stream));
}
void sorter::sort_keys(float* d_keys, std::size_t n, const sort_options& o, void* stream) {
  impl_->run<std::uint32_t>(d_keys, nullptr, n, detail::key_f32, o, static_cast<cudaStream_t>(stream));
}
void sorter::sort_pairs(std::uint32_t* d_keys, std::uint32_t* d_values, std::size_t n,
                        const sort_options& o, void* stream) {
  impl_->run<std::uint64_t>(d_keys, d_values, n, detail::key_u32, o, static_cast<cudaStream_t>(stream));
}

int sorter::max_blocks(const sort_plan& plan, sync_mode mode) {
  return plan.pairs ? detail::persistent_max_blocks<std::uint64_t>(mode, plan.smem_bytes())
                    : detail::persistent_max_blocks<std::uint32_t>(mode, plan.smem_bytes());
}

int sorter::last_blocks() const { return impl_->last_blocks; }

void sorter::check(void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  if (impl_->ws_used && impl_->ws) {
    impl_->ws->check(s);
  } else {
    SWAT_CUDA_CHECK(cudaStreamSynchronize(s));
  }
}

}  // namespace swat::sort

// sorter: scratch, grid size, and the steps run through the barrier layer's one launch body
// (step_runtime::run): one persistent kernel, or a launch (or graph node) per step.

#include <algorithm>
#include <string>

#include "common/error.hpp"
#include "cuda/common/cuda_check.cuh"
#include "cuda/studies/sort/sort.hpp"
#include "cuda/studies/sort/sort_dispatch.cuh"
#include "cuda/sync/barrier/step_runtime.cuh"

namespace swat::sort {

struct sorter::impl : barrier::step_runtime {
  using step_runtime::step_runtime;

  template <typename word_t>
  void run(const void* d_keys, const std::uint32_t* d_vals, std::size_t n, int kind, const sort_options& opt,
           cudaStream_t stream) {
    dev.make_current();
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
    const int tiles = static_cast<int>(std::min<long long>(plan.tiles, 1LL << 30));
    const std::pair<int, int> g = grid<word_t>(opt.mode, smem, opt.blocks, plan.tiles,
                                               detail::persistent_max_blocks<word_t>,
                                               [&plan](int cap) { return default_blocks(plan, cap); });
    const int blocks = g.first, cap = g.second;
    const barrier::persistent_launcher persistent = [&](const barrier::barrier_handle& h) {
      detail::launch_persistent<word_t>(dev, opt.mode, h, args, 0, plan.steps, blocks, smem, stream);
    };
    const barrier::step_launcher step = [args, smem, tiles](cudaStream_t s, int k) {
      detail::launch_step<word_t>(args, k, tiles, smem, s);
    };
    std::string key;
    if (opt.mode == sync_mode::graph)
      key = std::to_string(reinterpret_cast<std::uintptr_t>(d_keys)) + "/" +
            std::to_string(reinterpret_cast<std::uintptr_t>(d_vals)) + "/" + std::to_string(n) + "/" +
            std::to_string(kind) + "/" + std::to_string(args.descending) + "/" + std::to_string(sizeof(word_t));
    step_runtime::run(opt.mode, plan.steps, blocks, cap, opt.check, persistent, step, key, stream);
  }
};

sorter::sorter(const cuda::device_context& dev) : impl_(std::make_unique<impl>(dev)) {}
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
void sorter::sort_pairs(std::uint32_t* d_keys, std::uint32_t* d_values, std::size_t n, const sort_options& o,
                        void* stream) {
  impl_->run<std::uint64_t>(d_keys, d_values, n, detail::key_u32, o, static_cast<cudaStream_t>(stream));
}

int sorter::max_blocks(const sort_plan& plan, sync_mode mode) {
  impl_->dev.make_current();
  return plan.pairs ? detail::persistent_max_blocks<std::uint64_t>(impl_->dev, mode, plan.smem_bytes())
                    : detail::persistent_max_blocks<std::uint32_t>(impl_->dev, mode, plan.smem_bytes());
}

int sorter::last_blocks() const { return impl_->last_blocks; }

void sorter::check(void* stream) {
  impl_->dev.make_current();
  impl_->check(static_cast<cudaStream_t>(stream));
}

}  // namespace swat::sort

// fft_engine: buffers per pass, grid size, and the passes run through the barrier layer's one
// launch body (step_runtime::run): one persistent kernel, or a launch (or graph node) per pass.

#include <algorithm>
#include <string>

#include "common/error.hpp"
#include "cuda/common/cuda_check.cuh"
#include "cuda/studies/fft/fft.hpp"
#include "cuda/studies/fft/fft_dispatch.cuh"
#include "cuda/sync/barrier/step_runtime.cuh"

namespace swat::fft {

struct fft_engine::impl : barrier::step_runtime {
  using step_runtime::step_runtime;

  template <typename real_t>
  void run(const fft_plan& plan, const void* d_in, void* d_out, const fft_options& opt, cudaStream_t stream) {
    using c_t = detail::cplx<real_t>;
    const int passes = static_cast<int>(plan.passes.size());
    if (passes > detail::max_passes) throw usage_error("fft: plan has too many passes");
    const std::size_t bytes = static_cast<std::size_t>(plan.batch << plan.log2_n) * sizeof(c_t);
    const c_t* src = static_cast<const c_t*>(d_in);
    c_t* out = static_cast<c_t*>(d_out);
    c_t* tmp = passes > 1 ? static_cast<c_t*>(scratch(bytes)) : nullptr;
    if (passes > 1 && passes % 2 == 1 && d_in == d_out) {
      SWAT_CUDA_CHECK(cudaMemcpyAsync(tmp, d_in, bytes, cudaMemcpyDeviceToDevice, stream));
      src = tmp;
    }
    detail::fft_args<real_t> args{};
    args.sign = plan.dir == direction::forward ? -1 : 1;
    for (int i = 0; i < passes; ++i) {
      const fft_pass& p = plan.passes[i];
      auto& a = args.pass[i];
      a.g = {plan.log2_n, p.radix_log2, p.ns_log2, p.column_log2, p.batch_log2, plan.batch};
      a.tiles = p.tiles;
      a.src = src;
      a.dst = (passes - 1 - i) % 2 == 0 ? out : tmp;
      const bool last = i + 1 == passes;
      a.scale = last && plan.dir == direction::inverse && plan.normalize_inverse
                    ? static_cast<real_t>(1.0 / static_cast<double>(plan.n()))
                    : real_t(1);
      src = a.dst;
    }
    const std::size_t smem = tile_smem_bytes(plan);
    const std::pair<int, int> g = grid<real_t>(opt.mode, smem, opt.blocks, plan.max_tiles(),
                                               detail::persistent_max_blocks<real_t>,
                                               [&plan](int cap) { return default_blocks(plan, cap); });
    const int blocks = g.first, cap = g.second;
    const barrier::persistent_launcher persistent = [&](const barrier::barrier_handle& h) {
      detail::launch_persistent<real_t>(dev, opt.mode, h, args, 0, passes, blocks, smem, stream);
    };
    const barrier::step_launcher step = [args, smem, &plan](cudaStream_t s, int pass) {
      const long long tiles = plan.passes[pass].tiles;
      detail::launch_pass<real_t>(args, pass, static_cast<int>(std::min<long long>(tiles, 1LL << 30)), smem, s);
    };
    std::string key;
    if (opt.mode == sync_mode::graph)
      key = std::to_string(reinterpret_cast<std::uintptr_t>(d_in)) + "/" +
            std::to_string(reinterpret_cast<std::uintptr_t>(d_out)) + "/" + std::to_string(plan.log2_n) + "/" +
            std::to_string(plan.batch) + "/" + std::to_string(static_cast<int>(plan.prec)) + "/" +
            std::to_string(static_cast<int>(plan.dir)) + "/" + std::to_string(plan.normalize_inverse);
    step_runtime::run(opt.mode, passes, blocks, cap, opt.check, persistent, step, key, stream);
  }
};

fft_engine::fft_engine(const cuda::device_context& dev) : impl_(std::make_unique<impl>(dev)) {}
fft_engine::~fft_engine() = default;

void fft_engine::execute(const fft_plan& plan, const void* d_in, void* d_out, const fft_options& options,
                         void* stream) {
  if (plan.passes.empty()) throw usage_error("fft: empty plan (use make_fft_plan)");
  impl_->dev.make_current();
  const auto s = static_cast<cudaStream_t>(stream);
  if (plan.prec == precision::fp32) {
    impl_->run<float>(plan, d_in, d_out, options, s);
  } else {
    impl_->run<double>(plan, d_in, d_out, options, s);
  }
}

int fft_engine::max_blocks(const fft_plan& plan, sync_mode mode) {
  impl_->dev.make_current();
  const std::size_t smem = tile_smem_bytes(plan);
  return plan.prec == precision::fp32 ? detail::persistent_max_blocks<float>(impl_->dev, mode, smem)
                                      : detail::persistent_max_blocks<double>(impl_->dev, mode, smem);
}

int fft_engine::last_blocks() const { return impl_->last_blocks; }

void fft_engine::check(void* stream) {
  impl_->dev.make_current();
  impl_->check(static_cast<cudaStream_t>(stream));
}

}  // namespace swat::fft

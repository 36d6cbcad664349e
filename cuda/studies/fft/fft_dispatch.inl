// Definitions behind fft_dispatch.cuh; included once per precision by fft_dispatch_f*.cu.

#include <string>

#include "common/error.hpp"
#include "cuda/common/launch.cuh"
#include "cuda/studies/fft/fft_dispatch.cuh"

namespace swat::fft::detail {

//! Calls f(kernel pointer) for the persistent instantiation of mode; default throws.
template <typename real_t, typename f_t>
auto with_kernel(sync_mode mode, f_t f) {
  switch (mode) {
    case sync_mode::simple: return f(fft_kernel<sync_mode::simple, real_t>);
    case sync_mode::tree: return f(fft_kernel<sync_mode::tree, real_t>);
    case sync_mode::tree3: return f(fft_kernel<sync_mode::tree3, real_t>);
    case sync_mode::lockfree: return f(fft_kernel<sync_mode::lockfree, real_t>);
    case sync_mode::cg: return f(fft_kernel<sync_mode::cg, real_t>);
    case sync_mode::flag: return f(fft_kernel<sync_mode::flag, real_t>);
    case sync_mode::stripe: return f(fft_kernel<sync_mode::stripe, real_t>);
    case sync_mode::lastin: return f(fft_kernel<sync_mode::lastin, real_t>);
    case sync_mode::none: return f(fft_kernel<sync_mode::none, real_t>);
    default:
      throw usage_error("fft: sync mode " + std::string(to_string(mode)) + " has no persistent kernel");
  }
}

template <typename real_t>
void launch_persistent(sync_mode mode, const barrier::barrier_handle& h, const fft_args<real_t>& args,
                       int first, int count, int blocks, std::size_t smem_bytes, cudaStream_t stream) {
  constexpr int threads = fft_traits<real_t>::policy.block_threads;
  with_kernel<real_t>(mode, [&](auto kernel) {
    cuda::launch_cooperative(kernel, dim3(blocks), dim3(threads), smem_bytes, stream, h, args, first, count);
    return 0;
  });
}

template <typename real_t>
void launch_pass(const fft_args<real_t>& args, int pass, int blocks, std::size_t smem_bytes,
                 cudaStream_t stream) {
  constexpr int threads = fft_traits<real_t>::policy.block_threads;
  auto kernel = fft_kernel<sync_mode::none, real_t>;
  cuda::set_dynamic_smem(kernel, smem_bytes);
  kernel<<<blocks, threads, smem_bytes, stream>>>(barrier::barrier_handle{}, args, pass, 1);
  SWAT_CUDA_CHECK_LAUNCH();
}

template <typename real_t>
int persistent_max_blocks(sync_mode mode, std::size_t smem_bytes) {
  constexpr int threads = fft_traits<real_t>::policy.block_threads;
  return with_kernel<real_t>(mode, [&](auto kernel) {
    return cuda::max_coresident_blocks(kernel, threads, smem_bytes);
  });
}

}  // namespace swat::fft::detail

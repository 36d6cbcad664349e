// Definitions behind fft_dispatch.cuh; included once per precision by fft_dispatch_f*.cu.

#include "cuda/common/launch.cuh"
#include "cuda/sync/barrier/with_sync_mode.cuh"
#include "cuda/studies/fft/fft_dispatch.cuh"

namespace swat::fft::detail {

template <typename real_t>
void launch_persistent(const cuda::device_context& dev, sync_mode mode, const barrier::barrier_handle& h, const fft_args<real_t>& args,
                       int first, int count, int blocks, std::size_t smem_bytes, cudaStream_t stream) {
  constexpr int threads = fft_traits<real_t>::policy.block_threads;
  barrier::with_sync_mode(mode, [&](auto m) {
    cuda::launch_cooperative(dev, fft_kernel<decltype(m)::value, real_t>, dim3(blocks), dim3(threads), smem_bytes, stream, h,
                             args, first, count);
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
int persistent_max_blocks(const cuda::device_context& dev, sync_mode mode, std::size_t smem_bytes) {
  constexpr int threads = fft_traits<real_t>::policy.block_threads;
  return barrier::with_sync_mode(mode, [&](auto m) {
    return cuda::max_coresident_blocks(dev, fft_kernel<decltype(m)::value, real_t>, threads, smem_bytes);
  });
}

}  // namespace swat::fft::detail

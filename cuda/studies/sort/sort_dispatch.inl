// Definitions behind sort_dispatch.cuh; included once per word type by sort_dispatch_u*.cu.

#include "cuda/common/launch.cuh"
#include "cuda/sync/barrier/with_sync_mode.cuh"
#include "cuda/studies/sort/sort_dispatch.cuh"

namespace swat::sort::detail {

template <typename word_t>
void launch_persistent(const cuda::device_context& dev, sync_mode mode, const barrier::barrier_handle& h, const sort_args<word_t>& args,
                       int first, int count, int blocks, std::size_t smem_bytes, cudaStream_t stream) {
  constexpr int threads = sort_traits<word_t>::policy.block_threads;
  barrier::with_sync_mode(mode, [&](auto m) {
    cuda::launch_cooperative(dev, sort_kernel<decltype(m)::value, word_t>, dim3(blocks), dim3(threads), smem_bytes, stream, h,
                             args, first, count);
  });
}

template <typename word_t>
void launch_step(const sort_args<word_t>& args, int step, int blocks, std::size_t smem_bytes,
                 cudaStream_t stream) {
  constexpr int threads = sort_traits<word_t>::policy.block_threads;
  auto kernel = sort_kernel<sync_mode::none, word_t>;
  cuda::set_dynamic_smem(kernel, smem_bytes);
  kernel<<<blocks, threads, smem_bytes, stream>>>(barrier::barrier_handle{}, args, step, 1);
  SWAT_CUDA_CHECK_LAUNCH();
}

template <typename word_t>
int persistent_max_blocks(const cuda::device_context& dev, sync_mode mode, std::size_t smem_bytes) {
  constexpr int threads = sort_traits<word_t>::policy.block_threads;
  return barrier::with_sync_mode(mode, [&](auto m) {
    return cuda::max_coresident_blocks(dev, sort_kernel<decltype(m)::value, word_t>, threads, smem_bytes);
  });
}

}  // namespace swat::sort::detail

// Definitions behind sort_dispatch.cuh; included once per word type by sort_dispatch_u*.cu.

#include <string>

#include "common/error.hpp"
#include "cuda/common/launch.cuh"
#include "cuda/studies/sort/sort_dispatch.cuh"

namespace swat::sort::detail {

//! Calls f(kernel pointer) for the persistent instantiation of mode; default throws.
template <typename word_t, typename f_t>
auto with_kernel(sync_mode mode, f_t f) {
  switch (mode) {
    case sync_mode::simple: return f(sort_kernel<sync_mode::simple, word_t>);
    case sync_mode::tree: return f(sort_kernel<sync_mode::tree, word_t>);
    case sync_mode::tree3: return f(sort_kernel<sync_mode::tree3, word_t>);
    case sync_mode::lockfree: return f(sort_kernel<sync_mode::lockfree, word_t>);
    case sync_mode::cg: return f(sort_kernel<sync_mode::cg, word_t>);
    case sync_mode::flag: return f(sort_kernel<sync_mode::flag, word_t>);
    case sync_mode::stripe: return f(sort_kernel<sync_mode::stripe, word_t>);
    case sync_mode::lastin: return f(sort_kernel<sync_mode::lastin, word_t>);
    case sync_mode::none: return f(sort_kernel<sync_mode::none, word_t>);
    default:
      throw usage_error("sort: sync mode " + std::string(to_string(mode)) + " has no persistent kernel");
  }
}

template <typename word_t>
void launch_persistent(sync_mode mode, const barrier::barrier_handle& h, const sort_args<word_t>& args,
                       int first, int count, int blocks, std::size_t smem_bytes, cudaStream_t stream) {
  constexpr int threads = sort_traits<word_t>::policy.block_threads;
  with_kernel<word_t>(mode, [&](auto kernel) {
    cuda::launch_cooperative(kernel, dim3(blocks), dim3(threads), smem_bytes, stream, h, args, first, count);
    return 0;
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
int persistent_max_blocks(sync_mode mode, std::size_t smem_bytes) {
  constexpr int threads = sort_traits<word_t>::policy.block_threads;
  return with_kernel<word_t>(mode, [&](auto kernel) {
    return cuda::max_coresident_blocks(kernel, threads, smem_bytes);
  });
}

}  // namespace swat::sort::detail

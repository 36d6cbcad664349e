// Definitions of fill_barrier_blocks and launch_fill_barrier (included by the barrier
// instantiation files, one per group of sync modes so that they compile in parallel).

#include <algorithm>

#include "cuda/common/launch.cuh"
#include "cuda/engines/fast/fast_barrier_kernel.cuh"
#include "cuda/engines/fast/fast_dispatch.cuh"
#include "cuda/engines/fast/fast_policy.cuh"

namespace swat::fast {

template <typename policy_t, sync_mode M>
int fill_barrier_blocks(const cuda::device_context& dev, const fast_problem& pb, int max_blocks,
                        int workspace_blocks) {
  const std::size_t smem = profile_smem_bytes<policy_t>(pb.ranks);
  const auto kernel = fast_fill_barrier_kernel<policy_t, M>;
  const int cap = std::min(cuda::max_coresident_blocks(dev, kernel, policy_t::block_threads, smem), workspace_blocks);
  const int wanted = (pb.strips + policy_t::warps_per_block - 1) / policy_t::warps_per_block;
  int blocks = std::min(cap, wanted);
  if (max_blocks > 0) blocks = std::min(blocks, max_blocks);
  return std::max(blocks, 1);
}

template <typename policy_t, sync_mode M>
void launch_fill_barrier(const cuda::device_context& dev, const fast_problem& pb, int chunk, int blocks,
                         const barrier::barrier_handle& h, cudaStream_t stream) {
  const std::size_t smem = profile_smem_bytes<policy_t>(pb.ranks);
  cuda::launch_cooperative(dev, fast_fill_barrier_kernel<policy_t, M>, dim3(unsigned(blocks)),
                           dim3(policy_t::block_threads), smem, stream, pb, h, std::int32_t(chunk));
}

}  // namespace swat::fast

//! Instantiates fill_barrier_blocks and launch_fill_barrier of score16_policy for one mode.
#define SWAT_FAST_BARRIER_INSTANTIATE(M)                                                                    \
  template int swat::fast::fill_barrier_blocks<swat::fast::score16_policy, M>(                              \
      const swat::cuda::device_context&, const swat::fast::fast_problem&, int, int);                        \
  template void swat::fast::launch_fill_barrier<swat::fast::score16_policy, M>(                             \
      const swat::cuda::device_context&, const swat::fast::fast_problem&, int, int,                         \
      const swat::barrier::barrier_handle&, cudaStream_t);

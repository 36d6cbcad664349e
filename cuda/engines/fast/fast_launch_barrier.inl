// Definition of launch_fill_barrier (included by the barrier instantiation files, one per group
// of sync modes so that they compile in parallel).

#include <algorithm>

#include "cuda/sync/barrier/barrier_workspace.cuh"
#include "cuda/common/launch.cuh"
#include "cuda/engines/fast/fast_barrier_kernel.cuh"
#include "cuda/engines/fast/fast_dispatch.cuh"
#include "cuda/engines/fast/fast_policy.cuh"

namespace swat::fast {

template <typename policy_t, sync_mode M>
int launch_fill_barrier(const fast_problem& pb, int chunk, int max_blocks, barrier::barrier_workspace& ws,
                        cudaStream_t stream) {
  const std::size_t smem = profile_smem_bytes<policy_t>(pb.ranks);
  const auto kernel = fast_fill_barrier_kernel<policy_t, M>;
  const int cap = std::min(cuda::max_coresident_blocks(kernel, policy_t::block_threads, smem), ws.max_blocks());
  const int wanted = (pb.strips + policy_t::warps_per_block - 1) / policy_t::warps_per_block;
  int blocks = std::min(cap, wanted);
  if (max_blocks > 0) blocks = std::min(blocks, max_blocks);
  blocks = std::max(blocks, 1);
  const barrier::barrier_handle bh = ws.prepare(M, blocks, stream);
  cuda::launch_cooperative(kernel, dim3(unsigned(blocks)), dim3(policy_t::block_threads), smem, stream, pb, bh,
                           std::int32_t(chunk));
  return blocks;
}

}  // namespace swat::fast

//! Instantiates launch_fill_barrier<score16_policy, M> for one mode.
#define SWAT_FAST_BARRIER_INSTANTIATE(M)                                                                   \
  template int swat::fast::launch_fill_barrier<swat::fast::score16_policy, M>(                        \
      const swat::fast::fast_problem&, int, int, swat::barrier::barrier_workspace&, cudaStream_t);

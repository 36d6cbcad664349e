// Definition of launch_fill (included by one instantiation file per variant).

#include <algorithm>

#include "cuda/common/launch.cuh"
#include "cuda/engines/fast/fast_dispatch.cuh"
#include "cuda/engines/fast/fast_kernel.cuh"
#include "cuda/engines/fast/fast_policy.cuh"

namespace swat::fast {

template <typename policy_t>
int launch_fill(const cuda::device_context& dev, const fast_problem& pb, int max_blocks, cudaStream_t stream) {
  const std::size_t smem = profile_smem_bytes<policy_t>(pb.ranks);
  static_assert(profile_smem_bytes<policy_t>(fast_table_stride - 1) <= 227 * 1024,
                "profile exceeds the shared memory of a Hopper SM");
  const int cap = cuda::max_coresident_blocks(dev, fast_fill_kernel<policy_t>, policy_t::block_threads, smem);
  const int band = (pb.strip_last > 0 ? pb.strip_last : pb.strips) - pb.strip_first;  // strips of this launch
  const int wanted = (band + policy_t::warps_per_block - 1) / policy_t::warps_per_block;
  int blocks = std::min(cap, wanted);
  if (max_blocks > 0) blocks = std::min(blocks, max_blocks);
  blocks = std::max(blocks, 1);
  cuda::launch_cooperative(dev, fast_fill_kernel<policy_t>, dim3(unsigned(blocks)),
                           dim3(policy_t::block_threads), smem, stream, pb);
  return blocks;
}

template <typename policy_t>
int launch_fill_batch(const cuda::device_context& dev, const fast_batch& batch, int max_blocks, cudaStream_t stream) {
  const std::size_t smem = profile_smem_bytes<policy_t>(batch.ranks);
  const int cap = cuda::max_coresident_blocks(dev, fast_fill_batch_kernel<policy_t>, policy_t::block_threads, smem);
  const int wanted = (batch.strips + policy_t::warps_per_block - 1) / policy_t::warps_per_block;
  int blocks = std::min(cap, wanted);
  if (max_blocks > 0) blocks = std::min(blocks, max_blocks);
  blocks = std::max(blocks, 1);
  cuda::launch_cooperative(dev, fast_fill_batch_kernel<policy_t>, dim3(unsigned(blocks)),
                           dim3(policy_t::block_threads), smem, stream, batch);
  return blocks;
}

template <typename policy_t>
int fill_round_warps(const cuda::device_context& dev, int ranks, int max_blocks) {
  const int cap = cuda::max_coresident_blocks(dev, fast_fill_kernel<policy_t>, policy_t::block_threads,
                                              profile_smem_bytes<policy_t>(ranks));
  return std::max(1, max_blocks > 0 ? std::min(cap, max_blocks) : cap) * policy_t::warps_per_block;
}

}  // namespace swat::fast

// Definitions of shape_on / launch_scan for one shape; included by the db_instantiate_*.cu
// files only.

#include "cuda/common/cuda_check.cuh"
#include "cuda/common/launch.cuh"
#include "cuda/engines/dbsearch/db_kernel.cuh"
#include "cuda/engines/dbsearch/db_launch.cuh"

#include <stdexcept>

namespace swat::dbsearch {

template <int G, int R, bool reach, int W>
shape_info shape_on(const cuda::device_context& dev, std::size_t smem_bytes) {
  using policy = scan_policy<G, R, reach, W>;
  const auto kernel = scan_kernel<policy>;
  shape_info s;
  s.group_lanes = G;
  s.rows_per_lane = R;
  s.warps_per_block = policy::warps_per_block;
  s.groups_per_warp = policy::groups_per_warp;
  s.groups_per_block = policy::groups_per_block;
  s.sms = dev.sm_count();
  cudaFuncAttributes attributes{};
  SWAT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  s.registers = attributes.numRegs;
  s.spill_bytes = int(attributes.localSizeBytes);
  // A resident profile takes most of the SM's shared memory: ask for the largest carveout.
  SWAT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       int(cudaSharedmemCarveoutMaxShared)));
  s.blocks = swat::cuda::max_coresident_blocks(dev, kernel, policy::block_threads, smem_bytes);
  return s;
}

template <int G, int R, bool reach, int W>
void launch_scan(const scan_problem& pb, const shape_info& shape, std::size_t smem_bytes, cudaStream_t stream) {
  using policy = scan_policy<G, R, reach, W>;
  const auto kernel = scan_kernel<policy>;
  if (shape.blocks < 1) throw cuda_error("dbsearch: the scan kernel cannot run on this device (no resident block)");
  const bool pipelined = pb.mode == profile_mode::pipelined;
  if (shape.group_lanes != G || shape.rows_per_lane != R || shape.warps_per_block != policy::warps_per_block ||
      shape.pipelined != pipelined || (pipelined && !policy::runs_pipelined) ||
      (pb.mode == profile_mode::streamed && pb.batch != policy::groups_per_block))
    throw std::logic_error("dbsearch: a launch of a shape on another kernel");
  swat::cuda::set_dynamic_smem(kernel, smem_bytes);
  kernel<<<shape.blocks, policy::block_threads, smem_bytes, stream>>>(pb);
  SWAT_CUDA_CHECK_LAUNCH();
}

}  // namespace swat::dbsearch

// Definitions of plan_launch / launch_scan for one group width; included by the
// db_instantiate_g*.cu files only.

#include <stdexcept>

#include "cuda/common/cuda_check.cuh"
#include "cuda/common/launch.cuh"
#include "cuda/engines/dbsearch/db_kernel.cuh"
#include "cuda/engines/dbsearch/db_launch.cuh"
#include "cuda/engines/dbsearch/db_pack.hpp"

namespace swat::dbsearch {

template <int G, int R>
launch_shape plan_launch(int device, std::int64_t m, int profile_rows) {
  using policy = scan_policy<G, R>;
  const auto kernel = scan_kernel<policy>;
  int sms = 0;
  SWAT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  launch_shape shape;
  shape.groups_per_block = policy::groups_per_block;
  shape.strip_rows = policy::strip_rows;
  const std::size_t slice = std::size_t(profile_rows) * policy::strip_rows;
  const std::size_t whole = slice * std::size_t(strips_of(m, policy::strip_rows));
  int per_sm = 0;
  if (whole <= std::size_t(resident_profile_max_bytes)) {
    per_sm = swat::cuda::max_blocks_per_sm(kernel, policy::block_threads, whole);
    shape.resident = per_sm > 0;
    shape.smem_bytes = whole;
  }
  if (!shape.resident) {
    per_sm = swat::cuda::max_blocks_per_sm(kernel, policy::block_threads, slice);
    shape.smem_bytes = slice;
  }
  if (per_sm < 1) throw cuda_error("dbsearch: the scan kernel cannot run on this device (no resident block)");
  shape.blocks = per_sm * sms;
  return shape;
}

template <int G, int R>
void launch_scan(const scan_problem& pb, const launch_shape& shape, cudaStream_t stream) {
  using policy = scan_policy<G, R>;
  const auto kernel = scan_kernel<policy>;
  swat::cuda::set_dynamic_smem(kernel, shape.smem_bytes);
  kernel<<<shape.blocks, policy::block_threads, shape.smem_bytes, stream>>>(pb);
  SWAT_CUDA_CHECK_LAUNCH();
}

}  // namespace swat::dbsearch

// Scan kernel with 32 lanes per pair of targets, 32 query rows per lane and 12 warps per block
// (a group per pair only: without the pipelined launches it fits 150 registers).
#include "cuda/engines/dbsearch/db_launch.inl"

namespace swat::dbsearch {
template shape_info shape_on<32, 32, false, wide_block_warps>(const cuda::device_context&, std::size_t);
template void launch_scan<32, 32, false, wide_block_warps>(const scan_problem&, const shape_info&, std::size_t, cudaStream_t);
}  // namespace swat::dbsearch

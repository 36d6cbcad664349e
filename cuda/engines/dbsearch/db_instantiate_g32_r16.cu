// Scan kernel with 32 lanes per pair of targets and 16 query rows per lane.
#include "cuda/engines/dbsearch/db_launch.inl"

namespace swat::dbsearch {
template shape_info shape_on<32, 16, false>(const cuda::device_context&, std::size_t);
template void launch_scan<32, 16, false>(const scan_problem&, const shape_info&, std::size_t, cudaStream_t);
}  // namespace swat::dbsearch

// Scan kernel with 16 lanes per pair of targets and 32 query rows per lane.
#include "cuda/engines/dbsearch/db_launch.inl"

namespace swat::dbsearch {
template launch_shape plan_launch<16, 32>(int, std::int64_t, int);
template void launch_scan<16, 32>(const scan_problem&, const launch_shape&, cudaStream_t);
}  // namespace swat::dbsearch

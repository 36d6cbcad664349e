// Scan kernel with 32 lanes per pair of targets and 16 query rows per lane.
#include "cuda/engines/dbsearch/db_launch.inl"

namespace swat::dbsearch {
template launch_shape plan_launch<32, 16>(int, std::int64_t, int);
template void launch_scan<32, 16>(const scan_problem&, const launch_shape&, cudaStream_t);
}  // namespace swat::dbsearch

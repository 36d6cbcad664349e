// The reverse pass of the hit alignments (reach mode): 32 lanes per hit, 16 rows per lane.
#include "cuda/engines/dbsearch/db_launch.inl"

namespace swat::dbsearch {
template shape_info shape_on<32, 16, true>(const cuda::device_context&, std::size_t);
template void launch_scan<32, 16, true>(const scan_problem&, const shape_info&, std::size_t, cudaStream_t);
}  // namespace swat::dbsearch

// Variant with origins (8 rows per thread): exact begin for align().
#include "cuda/sw_fast/fast_launch.inl"

namespace swat::sw_fast {
template int launch_fill<origin_policy>(const fast_problem&, int, cudaStream_t);
}  // namespace swat::sw_fast

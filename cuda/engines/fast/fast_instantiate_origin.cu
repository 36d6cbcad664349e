// Variant with origins (8 rows per thread): exact begin for align().
#include "cuda/engines/fast/fast_launch.inl"

namespace swat::fast {
template int launch_fill<origin_policy>(const cuda::device_context&, const fast_problem&, int, cudaStream_t);
}  // namespace swat::fast

// Score-only variant (16 rows per thread, no origins).
#include "cuda/engines/fast/fast_launch.inl"

namespace swat::fast {
template int launch_fill<score_policy>(const cuda::device_context&, const fast_problem&, int, cudaStream_t);
}  // namespace swat::fast

// Score-only variant (16 rows per thread, no origins).
#include "cuda/engines/fast/fast_launch.inl"

namespace swat::fast {
template int launch_fill<score_policy>(const cuda::device_context&, const fast_problem&, int, cudaStream_t);
template int fill_round_warps<score_policy>(const cuda::device_context&, int, int);
}  // namespace swat::fast

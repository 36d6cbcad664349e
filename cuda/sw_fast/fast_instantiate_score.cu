// Score-only variant (16 rows per thread, no origins).
#include "cuda/sw_fast/fast_launch.inl"

namespace swat::sw_fast {
template int launch_fill<score_policy>(const fast_problem&, int, cudaStream_t);
}  // namespace swat::sw_fast

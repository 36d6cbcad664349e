// Packed 16-bit score-only variant (2 × 32 × 16 rows per strip, fast_tile16.cuh).
#include "cuda/engines/fast/fast_launch.inl"

namespace swat::fast {
template int launch_fill<score16_policy>(const cuda::device_context&, const fast_problem&, int, cudaStream_t);
template int launch_fill_batch<score16_policy>(const cuda::device_context&, const fast_batch&, int, cudaStream_t);
template int fill_round_warps<score16_policy>(const cuda::device_context&, int, int);
}  // namespace swat::fast

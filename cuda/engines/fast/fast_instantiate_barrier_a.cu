// Packed 16-bit fill with a grid barrier: the Xiao & Feng 2010 modes (simple, tree, tree3,
// lockfree).
#include "cuda/engines/fast/fast_launch_barrier.inl"

SWAT_FAST_BARRIER_INSTANTIATE(swat::sync_mode::simple)
SWAT_FAST_BARRIER_INSTANTIATE(swat::sync_mode::tree)
SWAT_FAST_BARRIER_INSTANTIATE(swat::sync_mode::tree3)
SWAT_FAST_BARRIER_INSTANTIATE(swat::sync_mode::lockfree)

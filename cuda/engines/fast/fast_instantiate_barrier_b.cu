// Packed 16-bit fill with a grid barrier: cooperative groups and ours (cg, flag, stripe, lastin).
#include "cuda/engines/fast/fast_launch_barrier.inl"

SWAT_FAST_BARRIER_INSTANTIATE(swat::sync_mode::cg)
SWAT_FAST_BARRIER_INSTANTIATE(swat::sync_mode::flag)
SWAT_FAST_BARRIER_INSTANTIATE(swat::sync_mode::stripe)
SWAT_FAST_BARRIER_INSTANTIATE(swat::sync_mode::lastin)

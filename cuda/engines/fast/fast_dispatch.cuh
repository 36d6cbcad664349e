#pragma once
// Launch of one fill variant (declared here, defined once per instantiation file so that the
// variants compile in parallel). Every launch runs on the caller's device_context (current).

#include <cuda_runtime.h>

#include "cuda/common/device_context.hpp"
#include "cuda/engines/fast/fast_fill.hpp"
#include "cuda/engines/fast/fast_problem.cuh"
#include "cuda/sync/barrier/barrier_handle.hpp"
#include "engine/sync_mode.hpp"

namespace swat::fast {

//! Rows per strip of a variant.
int variant_strip_rows(fill_variant v);

//! Launches the fill kernel of policy_t over pb.strips strips on dev; max_blocks > 0 caps the
//! grid (tests: few warps take many strips). Returns the number of blocks launched.
template <typename policy_t>
int launch_fill(const cuda::device_context& dev, const fast_problem& pb, int max_blocks, cudaStream_t stream);

//! Grid of the grid-barrier variant of policy_t with barrier M (fast_barrier_kernel.cuh): the
//! co-resident cap on dev, at most workspace_blocks, max_blocks when > 0, and the strips' warps.
template <typename policy_t, sync_mode M>
int fill_barrier_blocks(const cuda::device_context& dev, const fast_problem& pb, int max_blocks,
                        int workspace_blocks);

//! Launches the grid-barrier variant of policy_t (packed 16-bit) on blocks blocks with barrier
//! handle h (from the barrier layer's launch body), a barrier every chunk columns.
template <typename policy_t, sync_mode M>
void launch_fill_barrier(const cuda::device_context& dev, const fast_problem& pb, int chunk, int blocks,
                         const barrier::barrier_handle& h, cudaStream_t stream);

}  // namespace swat::fast

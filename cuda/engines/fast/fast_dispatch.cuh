#pragma once
// Launch of one fill variant (declared here, defined once per instantiation file so that the
// variants compile in parallel).

#include <cuda_runtime.h>

#include "engine/sync_mode.hpp"
#include "cuda/engines/fast/fast_fill.hpp"
#include "cuda/engines/fast/fast_problem.cuh"

namespace swat::barrier {
class barrier_workspace;
}

namespace swat::fast {

//! Rows per strip of a variant.
int variant_strip_rows(fill_variant v);

//! Launches the fill kernel of policy_t over pb.strips strips; max_blocks > 0 caps the grid
//! (tests: few warps take many strips). Returns the number of blocks launched.
template <typename policy_t>
int launch_fill(const fast_problem& pb, int max_blocks, cudaStream_t stream);

//! Launches the grid-barrier variant of policy_t (packed 16-bit) with barrier M every `chunk`
//! columns (fast_barrier_kernel.cuh); the grid is capped by ws.max_blocks(). Returns the blocks.
template <typename policy_t, sync_mode M>
int launch_fill_barrier(const fast_problem& pb, int chunk, int max_blocks, barrier::barrier_workspace& ws,
                        cudaStream_t stream);

}  // namespace swat::fast

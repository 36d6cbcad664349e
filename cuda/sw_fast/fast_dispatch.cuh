#pragma once
// Launch of one fill variant (declared here, defined once per instantiation file so that the
// variants compile in parallel).

#include <cuda_runtime.h>

#include "cuda/sw_fast/fast_fill.hpp"
#include "cuda/sw_fast/fast_problem.cuh"

namespace swat::sw_fast {

//! Rows per strip of a variant.
int variant_strip_rows(fill_variant v);

//! Launches the fill kernel of policy_t over pb.strips strips; max_blocks > 0 caps the grid
//! (tests: few warps take many strips). Returns the number of blocks launched.
template <typename policy_t>
int launch_fill(const fast_problem& pb, int max_blocks, cudaStream_t stream);

}  // namespace swat::sw_fast

#pragma once
// Launch of one fill variant (declared here, defined once per instantiation file so that the
// variants compile in parallel). Every launch runs on the caller's device_context (current).

#include <cuda_runtime.h>

#include <vector>

#include "cuda/common/device_buffer.hpp"
#include "cuda/common/device_context.hpp"
#include "cuda/engines/fast/fast_fill.hpp"
#include "cuda/engines/fast/fast_problem.cuh"
#include "cuda/sync/barrier/barrier_handle.hpp"
#include "engine/sync_mode.hpp"

namespace swat::fast {

//! Where one fill's arrays lie in a buffer laid out by add_fill_sections (byte offsets), and
//! the sizes they were made for.
struct fill_sections {
  std::int64_t m = 0, n = 0, strips = 0, padded = 0;
  fill_variant variant = fill_variant::score32;
  std::size_t border_cell = 0, chunks = 0;
  std::size_t query = 0, target = 0, table = 0, ready = 0, best = 0, error = 0, border = 0, base = 0, snapshot = 0;
};

//! Appends the arrays of one m × n fill of `variant` to layout (stage_fill's layout; a batch
//! lays out its pairs one after the other in one buffer).
fill_sections add_fill_sections(cuda::buffer_layout& layout, std::int64_t m, std::int64_t n, fill_variant variant,
                                std::size_t table_bytes);

//! Uploads one fill's sequences and table into b's sections f on st, zeroes its flags, bests
//! and error words, and returns its problem (as stage_fill).
fast_problem stage_sections(const cuda::device_buffer& b, const fill_sections& f, residue_span query,
                            residue_span target, const scoring_scheme& scheme, const fill_options& options,
                            cudaStream_t st);

//! Lays out one fill's device buffers in b as one allocation (query padded to whole strips,
//! target, table, per-strip flags and bests, error word then flag-wait counter, two border
//! rows), uploads the sequences and the table on st, zeroes flags, bests and error, and returns
//! the problem pointing into them: every strip (strip_first = strip_last = 0), no band links,
//! watchdog and 16-bit score limit from options. Used by the whole fill and by each band.
fast_problem stage_fill(cuda::device_buffer& b, residue_span query, residue_span target, const scoring_scheme& scheme,
                        fill_variant variant, const fill_options& options, cudaStream_t st);

//! The best cell over the strips' bests, taken in strip order under the tie rule (as one fill's;
//! rows_first: the transposed rule, fast_problem::rows_first).
strip_best best_of_strips(const std::vector<strip_best>& bests, bool rows_first = false);

//! Launches the fill kernel of policy_t over pb.strips strips on dev; max_blocks > 0 caps the
//! grid (tests: few warps take many strips). Returns the number of blocks launched.
template <typename policy_t>
int launch_fill(const cuda::device_context& dev, const fast_problem& pb, int max_blocks, cudaStream_t stream);

//! Launches the batch kernel of policy_t (packed 16-bit, fast_kernel.cuh) over every strip of
//! the batch; returns the number of blocks launched.
template <typename policy_t>
int launch_fill_batch(const cuda::device_context& dev, const fast_batch& batch, int max_blocks, cudaStream_t stream);

//! Warps of one round of the fill kernel of policy_t on dev: its co-resident blocks (at most
//! max_blocks when > 0) × warps per block. Strips beyond them wait for a warp of an earlier round.
template <typename policy_t>
int fill_round_warps(const cuda::device_context& dev, int ranks, int max_blocks);

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

#pragma once
// One fill cut into bands of consecutive strips (query rows), the logic of a long pair spread
// over several GPUs (issue: every GPU of the machine): each band has its own device buffers,
// as it would on its own GPU, and the last strip of a band writes its border row straight into
// the next band's buffers and publishes it on the next band's ready flag with a system-scope
// release (fast_problem::band_out / band_ready); the first strip of a band waits on its flag
// with a system-scope acquire. Every band's strips keep their global numbers, so the best
// cells merge under the tie rule as one fill's strips do; the error word is the first band's,
// shared, so an overflow or a watchdog stops every band.
//
// Here all bands run on one device, one after the other in launch order (a band only waits on
// the band before it, which has finished): the hand-over is the multi-GPU one, exactly, but not
// overlapped. Across GPUs the bands would run at once, one per device, each streaming its
// border row to the next as its columns are done.

#include "cuda/engines/fast/fast_fill.hpp"

namespace swat::fast {

//! Fills query × target as `bands` bands (at most one per strip) on dev; variants score32 and
//! score16 (a 16-bit overflow in any band reruns every band at 32 bits). Same result and errors
//! as fill_context::fill (the grid-barrier and origins variants are refused).
fill_result fill_bands(const cuda::device_context& dev, residue_span query, residue_span target,
                       const scoring_scheme& scheme, const fill_options& options, int bands);

}  // namespace swat::fast

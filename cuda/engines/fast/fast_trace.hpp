#pragma once
// Full traceback of one long pair in bounded GPU memory (plain C++).
//
// Algorithm (crossing pointers instead of stored codes):
//  1. Root fill of the whole m × n matrix in bands of K rows (K a multiple of the 256-row strip):
//     every cell carries the 32-bit pointer of fast_trace_types.hpp (where the reference walk from
//     it lands on the top row of its band, or stops), the bottom row of every band is kept as a
//     checkpoint row (H, F, pointers: 16 bytes per column), and the best cell (tie rule).
//  2. From the best cell the pointers chain band by band to the stop cell: the crossing cells
//     (row b·K, column, state H/F, true H and F) of the reference's path and its begin. Only one
//     16-byte entry per band is read back.
//  3. Band segments are independent: rows (b·K, (b+1)·K], columns from the upper crossing's
//     column − 1 to the lower one's. A segment is refilled alone with the upper crossing's true
//     H/F on its top border (H = 0, E = F = −inf elsewhere); by the argument of
//     engine/cpu_traceback.hpp (values on the border ≤ the true ones, the path exists from the
//     start cell with its true value) the refill reproduces the path's values and codes. Its 4-bit
//     codes are computed on the GPU (codes fill) and copied back, and the CPU walks the segment
//     with the rules of walk_traceback down to the crossing, checking it lands there. A segment
//     whose codes do not fit the budget is split again by a crossing fill (recursion).
//
// Device memory (bytes) for an m × n pair, K-row bands, budget B (≤ free memory, ≤ --max-gpu-mem):
//   fixed F(r, w) = r + w + 32·w + 28·⌈r/256⌉ + 4 KiB          (sequences, borders, flags, bests)
//   root:   F(m, n) + 16·n·(⌈m/K⌉ − 1)                          (checkpoint rows)
//   codes:  F(r, w) + 128·⌈r/256⌉·(w + 31)                       (≈ r·w/2, one segment r × w)
// K is the smallest multiple of 256 ≥ preferred_band_rows for which the root fits B; the peak is
// max(root, largest segment) ≤ B. Host: pinned staging of ≤ 64 MiB plus the codes of one segment.
// For 1.46 Mb × 1.46 Mb and K = 4096: 357 checkpoint rows × 23.4 MB = 8.4 GB; segments ≈ 9 MB.

#include <cstdint>
#include <memory>
#include <vector>

#include "common/alignment.hpp"
#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "common/traceback.hpp"
#include "cuda/common/device_context.hpp"
#include "cuda/engines/fast/fast_trace_types.hpp"

namespace swat::fast {

//! Rows of one strip of the traceback fills (band sizes are multiples of it).
inline constexpr std::int64_t trace_strip_rows = 256;

//! One sub-problem: query rows 1..|query| against target columns 1..|target| (local); the top
//! border row 0 holds H = 0, F = −inf except at start_col (1-based, 0 = none).
struct trace_sub {
  residue_span query;                              //!< rows of the sub-problem
  residue_span target;                             //!< columns of the sub-problem
  std::int32_t start_col = 0;                      //!< column of the start cell on row 0
  std::int32_t start_h = 0;                        //!< H of the start cell
  std::int32_t start_f = trace_minus_infinity;     //!< F of the start cell
};

//! Result of a crossing fill.
struct crossing_result {
  best_cell best;              //!< best cell of the sub-problem (tie rule), score 0 → none
  std::uint32_t best_ptr = 0;  //!< crossing pointer of H at the best cell
  std::uint32_t end_ph = 0;    //!< pointer of H at (rows, end_col)
  std::uint32_t end_pf = 0;    //!< pointer of F at (rows, end_col)
  double flag_wait_share = 0;  //!< share of the warps' time spent waiting on ready flags
};

//! The two fills the algorithm needs (GPU kernels, or a scalar CPU model for tests).
class trace_backend {
 public:
  virtual ~trace_backend() = default;
  //! Crossing fill in bands of band_rows rows (multiple of trace_strip_rows); keeps the
  //! checkpoint rows until the next fill; captures the pointers of (rows, end_col) if > 0.
  virtual crossing_result crossing_fill(const trace_sub& sub, std::int64_t band_rows, std::int64_t end_col) = 0;
  //! Checkpoint entry of the last crossing fill at row b·band_rows (b ≥ 1), column c ≥ 1.
  virtual checkpoint_entry checkpoint(std::int64_t b, std::int64_t c) = 0;
  //! Codes fill of the sub-problem; code_at serves its cells until the next fill.
  virtual void codes_fill(const trace_sub& sub) = 0;
  //! Code of cell (i, j) of the last codes fill, 1 ≤ i ≤ rows, 1 ≤ j ≤ columns.
  virtual std::uint8_t code_at(std::int64_t i, std::int64_t j) const = 0;
  //! Device bytes held now.
  virtual std::int64_t held_bytes() const = 0;
};

//! Device bytes of a crossing fill of rows × cols in bands of band_rows (bound above).
std::int64_t crossing_fill_bytes(std::int64_t rows, std::int64_t cols, std::int64_t band_rows);
//! Device bytes of a codes fill of rows × cols (bound above).
std::int64_t codes_fill_bytes(std::int64_t rows, std::int64_t cols);

//! Options and statistics of one traceback.
struct trace_options {
  std::int64_t budget_bytes = 0;             //!< device bytes allowed (> 0)
  std::int64_t preferred_band_rows = 4096;   //!< smallest band K tried at the root (rows)
};

//! Where the time went (seconds, host clock around the backend calls).
struct trace_stats {
  double crossing_seconds = 0;  //!< crossing fills (root and splits)
  double codes_seconds = 0;     //!< codes fills and their copies
  double walk_seconds = 0;      //!< CPU walk over the codes
  int crossing_fills = 0;       //!< crossing fills run
  int codes_fills = 0;          //!< codes fills run
  std::int64_t root_band_rows = 0;  //!< K of the root fill
  std::int64_t peak_bytes = 0;  //!< largest planned device footprint (bytes)
  double root_flag_wait_share = 0;  //!< root crossing fill: share of warp time waiting on flags
};

//! Optimal local alignment of query × target (reference tie rules) through the backend. Throws
//! std::runtime_error when the budget cannot hold the smallest split.
alignment trace_alignment(residue_span query, residue_span target, trace_backend& backend,
                          const trace_options& options, trace_stats* stats);

//! Scalar CPU model of both fills (same pointers, checkpoints and codes as the kernels).
std::unique_ptr<trace_backend> make_cpu_trace_backend(const scoring_scheme& scheme);

//! GPU backend on dev (scheme must pass scheme_fits of fast_fill.hpp).
//! progress (may be null) is called from the polling host thread with the fraction of strips
//! done of a crossing fill that has run ≥ progress_after_seconds.
struct trace_progress {
  void (*fn)(void* user, double fraction, double elapsed_seconds) = nullptr;  //!< callback
  void* user = nullptr;                                                       //!< its argument
};
std::unique_ptr<trace_backend> make_gpu_trace_backend(const cuda::device_context& dev, const scoring_scheme& scheme,
                                                      double watchdog_seconds, trace_progress progress);

//! GPU backend over several devices (issue: every GPU of the machine): the root crossing fill
//! (at least devices.size() bands of K rows) runs as one row band per device, each edge on a
//! checkpoint row, the last strip of a band handing its row to the next band's GPU as the fast
//! fill's bands do (fast_bands.hpp: peer access, else mapped host memory, or always host memory
//! with through_host), so the bands run as a pipeline; each device keeps its own checkpoint rows
//! (the edge row with the band above it), which checkpoint() reads where they are. Smaller
//! crossing fills and the codes fills of the segments run on devices[0]. A device named twice
//! (tests) runs its bands one after the other.
std::unique_ptr<trace_backend> make_banded_trace_backend(const std::vector<int>& devices, const scoring_scheme& scheme,
                                                         double watchdog_seconds, trace_progress progress,
                                                         bool through_host = false);

}  // namespace swat::fast

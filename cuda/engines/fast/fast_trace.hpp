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
// Special rows (the default whenever they fit the budget; CUDAlign's special rows, with the walk
// of this file instead of its matching): the score fill itself (score32, fast_tile.cuh) keeps H
// and F of every K-th row (8 bytes per column) and each such row's largest H; the score pass of a
// search keeps them for the alignment that follows (special_kept). Then the path is walked band by
// band from the best cell up:
//  a. A band's end is (row, col, state H/F) with its exact value v (the best score, or the special
//     row's H/F). Its path crosses the special row above at some column c ≥ lo, lo the smallest
//     column with H_top(c) + UB(col − c) ≥ v, where UB(w) bounds what any path across R ≤ K rows
//     and w columns can gain: w·s_max for w ≤ R, R·s_max − o − e·(w − R) beyond (w − R columns of
//     horizontal gap at least, opened in the band: a path enters a band in state H or F, and F ≤ H
//     on the top row, so a vertical gap gains nothing over H_top). A path that begins inside the
//     band starts from 0 ≤ H_top(c) and is bounded alike. Columns only grow along a path, so the
//     band's path lies in columns [lo, col]. The columns H_top reads are the special row's from
//     col − wmax on, wmax from the row's largest H.
//  b. The band is refilled from column lo − 1 with the special row as its exact top border (H = 0,
//     E = −inf in its left column): by the argument of engine/cpu_traceback.hpp its codes
//     reproduce the reference's path, which the CPU walks to the row above (or to its begin).
//     A band whose codes do not fit the budget is cut by a crossing fill with the same top border
//     (steps 1–3 below, the special row's values at the landing column as the start); a band no
//     fill fits (rows kept by a score pass under a smaller budget) ends the walk, and the root
//     fill below runs instead, the rows freed first. A path reaching column 0 of the matrix (on a
//     band's top row too) begins there: H = 0 on that column.
// Bands are sequential (each band's end is the crossing found above it), each about K × (K + a
// few hundred) cells for a similar pair: the traceback costs the score fill plus m/K small fills.
// A band's fill runs on a few warps (K/256 strips), so its time is latency, not work: on walks of
// 64 bands or more, the bands above the walk are filled ahead of it in a ring of codes slots
// (codes_fill_start: side by side, a stream and buffers each): when the walk comes to a band, the
// slot of the band it walked last gets the band just above the farthest one queued, so the fills
// run while the walk reads special rows and walks codes. A band's window is predicted from the
// last crossing the walk found and the path's slope so far, with margins growing by 16 + K/128
// columns a band of distance. The walk uses a band's window when it holds the band's
// columns from step a (its left edge at most the bound lo, its right edge at least the band's
// end): the special row is its exact top border and the path lies inside, so the argument of step
// b holds for it as for [lo, end]. A window that misses is filled again (with new bands ahead).
// The 1.46 Mb pair: 715 bands, 625 walked from windows filled ahead in rounds of 8, 0.72–0.75 →
// 0.17–0.19 s.
//
// Device memory (bytes) for an m × n pair, K-row bands, budget B (≤ free memory, ≤ --max-gpu-mem):
//   fixed F(r, w) = r + w + 32·w + 28·⌈r/256⌉ + 4 KiB          (sequences, borders, flags, bests)
//   root:   F(m, n) + 16·n·(⌈m/K⌉ − 1)                          (checkpoint rows)
//   codes:  F(r, w) + 128·⌈r/256⌉·(w + 31)                       (≈ r·w/2, one segment r × w)
// K is the smallest multiple of 256 ≥ preferred_band_rows for which the root fits B; the peak is
// max(root, largest segment) ≤ B; a walk over special rows also holds its ring of codes slots
// (their buffers counted at their real size). Host: pinned copies of the codes along the path.
// For 1.46 Mb × 1.46 Mb and K = 4096: 357 checkpoint rows × 23.4 MB = 8.4 GB; segments ≈ 9 MB.

#include <cstdint>
#include <memory>
#include <stdexcept>
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

//! Rows of one strip of the score fill that keeps special rows (K is a multiple of it).
inline constexpr std::int64_t special_strip_rows = 512;

//! One sub-problem: query rows 1..|query| against target columns 1..|target| (local); the top
//! border row 0 holds H = 0, F = −inf except at start_col (1-based, 0 = none), or with top_row ≥ 0
//! the kept special row top_row at DP columns top_col + 1 … (H(0, 0) = 0 either way).
struct trace_sub {
  residue_span query;                              //!< rows of the sub-problem
  residue_span target;                             //!< columns of the sub-problem
  std::int32_t start_col = 0;                      //!< column of the start cell on row 0
  std::int32_t start_h = 0;                        //!< H of the start cell
  std::int32_t start_f = trace_minus_infinity;     //!< F of the start cell
  std::int64_t top_row = -1;                       //!< special row on top (row (top_row + 1)·K), or −1
  std::int64_t top_col = 0;                        //!< its DP column of sub column 0
  //! Where the walk is expected to go (codes fills of a walk over special rows): the path's
  //! column on the last row (sub columns, 1-based; 0: no guess, every code is copied back), its
  //! columns per row and the columns on either side kept. A backend may copy back only the codes
  //! of each strip's columns along that line; a code the walk asks for outside them brings the
  //! whole fill's codes back then (slot_code_at), so a wrong guess costs time, never a path.
  std::int64_t path_end_col = 0;   //!< the guessed path's column on the last row (0: no guess)
  double path_slope = 0;           //!< its columns per row
  std::int64_t path_margin = 0;    //!< columns kept on either side of it
  //! Cells of the special row on top to read back before the fill (DP columns top_read_c0 …
  //! top_read_c0 + top_read_count − 1; count 0: none), served by slot_top_cells: a walk's band
  //! reads them to bound its columns (fast_trace.cpp, band_lo).
  std::int64_t top_read_c0 = 0;
  std::int64_t top_read_count = 0;
};

//! What a backend's kept special rows are of (band_rows 0: none kept).
struct special_rows_of {
  std::vector<std::uint8_t> query, target;  //!< the pair filled (copies: reuse compares contents)
  std::int64_t band_rows = 0;               //!< K
  best_cell best;                           //!< its best cell (tie rule)
  int fill_bands = 0;                       //!< bands of query rows the fill ran in over several GPUs (0: one fill)
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
  //! Codes slots: slot 0 is codes_fill's (and code_at's); slots 1 … codes_slots() − 1 hold the
  //! bands a walk over special rows fills ahead of itself, side by side (1: none, one fill at a time).
  virtual std::size_t codes_slots() const { return 1; }
  //! Starts the codes fill of sub in slot and returns: slot 0's at once, the others' staged until
  //! codes_fill_launch, which sends every staged fill out together (a backend without slots fills
  //! slot 0 at once). codes_fill_wait(slot) waits for a fill sent out, and slot_code_at(slot, i, j)
  //! then serves its cells until the slot's next fill. A slot may be filled again before its last
  //! fill was waited for (that fill is then of no use).
  virtual void codes_fill_start(std::size_t slot, const trace_sub& sub) {
    if (slot != 0) throw std::logic_error("sw_fast trace: no such codes slot");
    codes_fill(sub);
  }
  virtual void codes_fill_launch() {}
  virtual void codes_fill_wait(std::size_t /*slot*/) {}
  //! Device bytes slot holds once it takes a fill of fill_bytes (its buffer only grows: half as
  //! much again when it must; fill_bytes 0: what it holds now). A backend without slots: fill_bytes.
  virtual std::int64_t codes_slot_bytes(std::size_t /*slot*/, std::int64_t fill_bytes) const { return fill_bytes; }
  //! Slots 1 … given back: fills staged and not launched discarded, those running waited for,
  //! their device buffers freed (before a crossing fill needs the budget, and after a walk).
  virtual void codes_slots_release() {}
  //! The special row's cells that slot's fill read back before it (trace_sub::top_read_*), once
  //! there (the fill itself may still run); null where none were asked for.
  virtual const special_cell* slot_top_cells(std::size_t /*slot*/) { return nullptr; }
  virtual std::uint8_t slot_code_at(std::size_t slot, std::int64_t i, std::int64_t j) const {
    if (slot != 0) throw std::logic_error("sw_fast trace: no such codes slot");
    return code_at(i, j);
  }
  //! Device bytes held now.
  virtual std::int64_t held_bytes() const = 0;
  //! GPU time of the codes fills so far (their kernels, from events; 0 where not measured).
  virtual double codes_kernel_seconds() const { return 0; }
  //! GPU time of the codes' copies back so far (summed over the slots; 0 where not measured).
  virtual double codes_copy_seconds() const { return 0; }
  //! Time spent copying back whole fills whose guessed path line the walk left (trace_sub).
  virtual double codes_refetch_seconds() const { return 0; }

  //! The scheme of the fills.
  virtual const scoring_scheme& scheme() const = 0;
  //! Score fill of query × target keeping the special rows (rows K, 2K, … below row m; H, F and
  //! each row's largest H) until the next special fill or drop_special. try16: the packed 16-bit
  //! fill (when K is a multiple of its 1024-row strips), else the 32-bit one. Returns the best
  //! cell; special_kept() says what the rows are of.
  virtual best_cell special_fill(residue_span query, residue_span target, std::int64_t band_rows, bool try16) = 0;
  //! Columns c0 … c0 + count − 1 (DP, c0 ≥ 1) of kept special row b (row (b + 1)·K).
  virtual void special_cells(std::int64_t b, std::int64_t c0, std::int64_t count, special_cell* out) = 0;
  //! Largest H of kept special row b.
  virtual std::int32_t special_max(std::int64_t b) = 0;
  //! Frees the kept special rows.
  virtual void drop_special() = 0;
  //! The special fills from now on in row bands over these devices (fast_bands.hpp), the rows
  //! kept in the first one's memory, which must be the backend's own device; fewer than two
  //! devices, another first one or one without peer access to it: one device (special_kept()
  //! says which ran). The CPU model ignores it.
  virtual void spread_special_fills(const std::vector<int>& /*devices*/) {}
  //! What the kept special rows are of.
  const special_rows_of& special_kept() const { return kept_; }

 protected:
  special_rows_of kept_;
};

//! Device bytes of a special fill of rows × cols keeping every band_rows-th row (rows, row
//! maxima and the score fill's own buffers).
std::int64_t special_fill_bytes(std::int64_t rows, std::int64_t cols, std::int64_t band_rows);
//! K of the special rows for rows × cols within budget_bytes: the smallest multiple of
//! special_strip_rows ≥ preferred for which the rows and a band's codes fit, or 0 when none up to
//! special_max_band_rows does (the crossing-pointer root fill then runs).
std::int64_t special_band_rows(std::int64_t rows, std::int64_t cols, std::int64_t budget_bytes, std::int64_t preferred);
inline constexpr std::int64_t special_max_band_rows = 65536;
//! The traceback's own special fill takes the packed 16-bit fill from this length of the shorter
//! sequence on (as the fast engine's score pass: fast_engine.cpp, score16_min_length).
inline constexpr std::int64_t special_fill16_min_length = std::int64_t(1) << 17;
//! True when kept special rows serve query × target: both are prefixes of the pair kept (same
//! residues) and its best cell lies in them (it is then their best cell too).
bool special_rows_serve(const special_rows_of& kept, residue_span query, residue_span target);

//! Device bytes of a crossing fill of rows × cols in bands of band_rows (bound above).
std::int64_t crossing_fill_bytes(std::int64_t rows, std::int64_t cols, std::int64_t band_rows);
//! Device bytes of a codes fill of rows × cols (bound above).
std::int64_t codes_fill_bytes(std::int64_t rows, std::int64_t cols);
//! A codes slot of the bands ahead (codes_fill_start, slots 1 …) that must grow takes
//! 1/codes_slot_headroom more than its fill needs; the walk counts it in its budget.
inline constexpr std::int64_t codes_slot_headroom = 2;

//! Options and statistics of one traceback.
struct trace_options {
  std::int64_t budget_bytes = 0;             //!< device bytes allowed (> 0)
  std::int64_t preferred_band_rows = 4096;   //!< smallest band K tried at the root (rows)
  bool special = true;                       //!< special rows when they fit (else the root fill)
  std::int64_t special_band_rows = 2048;     //!< smallest K of the special rows (× 512)
  //! Bands a walk over special rows fills at once (one launch), the band under way or those above
  //! it, whose windows are predicted: the ring holds two such batches (at most the backend's
  //! codes_slots() − 1 bands), the second filled while the walk reads the first. The 1.46 Mb
  //! pair's traceback on one H100 (bench shapes' genome_pair, three runs each, same call): rounds
  //! of 8 bands in 8 streams (before) 0.166-0.195 s; two batches of 4 bands 0.142-0.143 s, of 6
  //! 0.116-0.133 s, of 8 0.118-0.138 s (wider windows: the farthest band is 15 bands ahead).
  std::size_t bands_at_once = 6;
  //! Walks of fewer bands than this fill one band at a time: the slots' buffers and pinned copies,
  //! made for each pair's backend, cost more than a few bands ahead save (the genes_genome shape's
  //! 9 hits of 20 bands or fewer, on four engines at once: 0.21–0.25 s one at a time, 0.30 s
  //! ahead; the 1.46 Mb pair's 715 bands: 0.75 → 0.18 s).
  std::int64_t bands_ahead_min_walk = 64;
  //! Columns on either side of a band's guessed path whose codes are copied back (trace_sub's
  //! path guess; the bands ahead add their window's growing margin): the 1.46 Mb pair's walk
  //! copied back 3.5 MB a band of codes, 0.10-0.12 s of its 0.14 s of band rounds.
  std::int64_t path_copy_margin = 192;
};

//! Where the time went (seconds, host clock around the backend calls).
struct trace_stats {
  double crossing_seconds = 0;  //!< crossing fills (root and splits)
  double codes_seconds = 0;     //!< codes fills and their copies
  double codes_wait_seconds = 0;  //!< of which the walk waited for a band's codes (host clock)
  double codes_launch_seconds = 0;  //!< of which the bands ahead were staged and launched (host clock)
  double codes_kernel_seconds = 0;  //!< of which the codes fills' kernels ran (GPU time)
  double codes_copy_seconds = 0;    //!< their copies back (GPU time, summed over the slots)
  double codes_refetch_seconds = 0; //!< whole fills copied back after the walk left their path line
  double band_read_seconds = 0;  //!< reading special rows' cells back for the bands' columns
  int band_reads_ahead = 0;      //!< bands whose special row cells came back before their fill
  int bands_ahead = 0;          //!< bands filled ahead of the walk (speculatively) and walked
  int bands_ahead_missed = 0;   //!< bands filled ahead whose window the path left (filled again)
  double walk_seconds = 0;      //!< CPU walk over the codes
  int crossing_fills = 0;       //!< crossing fills run
  int codes_fills = 0;          //!< codes fills run
  std::int64_t root_band_rows = 0;  //!< K of the root fill
  std::int64_t peak_bytes = 0;  //!< largest planned device footprint (bytes)
  double root_flag_wait_share = 0;  //!< root crossing fill: share of warp time waiting on flags
  double special_seconds = 0;   //!< the special fill (0 when the score pass's rows were reused)
  bool special_reused = false;  //!< the score pass's special rows served
  std::int64_t special_rows_k = 0;  //!< K of the special rows (0: the crossing-pointer root fill ran)
  int bands = 0;                //!< bands walked from the special rows
  std::int64_t band_cells = 0;  //!< cells of their refills
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
//! crossing fills and the codes fills of the segments run on devices[0], as does a walk over
//! special rows, whose fill runs in row bands over every device, each band writing its rows into
//! devices[0]'s memory (peer access; without it, with through_host or without spread_special,
//! the fill runs on devices[0] alone: the bands' own buffers on devices[0] are not in the walk's
//! budget, so a --max-gpu-mem cap fills them on one device). A device named twice (tests) runs
//! its bands one after the other.
std::unique_ptr<trace_backend> make_banded_trace_backend(const std::vector<int>& devices, const scoring_scheme& scheme,
                                                         double watchdog_seconds, trace_progress progress,
                                                         bool through_host = false, bool spread_special = true);

}  // namespace swat::fast

#pragma once
// Host API of the fast fill (plain C++): one pair, whole matrix, linear memory. Returns the best
// cell (tie rule of common/traceback.hpp) and, for the origins variant, the exact begin of the
// reference's alignment (forward origin propagation, as engine/cpu_kernels.hpp).
//
// Device memory of one fill (bytes), m × n pair, S = ⌈m / strip_rows⌉ strips:
//   m + n (sequences, query padded to S·strip_rows) + 1 KiB (table)
//   + 2 border rows × n × (8 B; 24 B with origins) + S × (4 B flag + 24 B best)
// i.e. ≈ 17n + m bytes score-only and ≈ 49n + m with origins: 1.46 Mb × 1.46 Mb needs < 80 MB.
// score16: border rows of 4 B per column (H | F~ << 16), strips of 1024 rows: ≈ 9n + m bytes.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "common/traceback.hpp"
#include "cuda/common/device_context.hpp"
#include "cuda/engines/fast/fast_trace_types.hpp"
#include "engine/sync_mode.hpp"

namespace swat::fast {

//! Fill variants (policies in fast_policy.cuh).
enum class fill_variant {
  score32,    //!< int32 DPX, 16 rows per thread, best cell only
  origins32,  //!< int32, 8 rows per thread, best cell and its origin (exact begin)
  score16,    //!< int16x2 DPX (two cells per register), best cell only; scores relative to a
              //!< base where scheme_relative16, else reruns as score32 when a score passes the
              //!< 16-bit limit (or at once when o + e > 8192)
};

//! Columns between two grid barriers of the barrier variant when fill_options gives none.
inline constexpr int default_barrier_columns = 64;

//! Options of one fill.
struct fill_options {
  fill_variant variant = fill_variant::score32;  //!< which kernel
  int max_blocks = 0;                            //!< > 0: cap the grid (tests), else occupancy
  double watchdog_seconds = 20.0;                //!< spin limit on a ready flag (s, at 2 GHz)
  //! score16: a best score above this counts as an overflow (0: 32767 − largest score, the
  //! exactness limit; tests set small values to force the 32-bit rerun).
  std::int32_t score16_limit = 0;
  //! score16 only: synchronise the strips by this grid barrier (a persistent mode of the barrier
  //! layer) every barrier_columns columns instead of per-strip ready flags (fast_barrier_kernel.cuh).
  std::optional<sync_mode> grid_barrier;
  int barrier_columns = 0;  //!< columns between two barriers (0: 64); a multiple of 32
  //! score32 and score16: the best cell under the rows-first tie rule (the higher score, then the
  //! smaller query end i, then the smaller target end j), for a pair filled transposed.
  bool rows_first = false;
  //! score32 (also the rerun of an overflowed score16): keep H and F of every every_rows-th
  //! row (a multiple of 512) below row 0 and above row m in rows (⌊(m − 1) / every_rows⌋ × n
  //! cells, device memory the caller owns) and each such row's largest H in row_max (as many
  //! words); the special rows of fast_trace.hpp. Ignored by the other variants.
  struct special_rows {
    special_cell* rows = nullptr;
    std::int32_t* row_max = nullptr;
    std::int64_t every_rows = 0;
  } special;
};

//! Result of one fill.
struct fill_result {
  best_cell best;                 //!< best cell, score 0 → none
  std::int64_t query_begin = 0;   //!< 0-based begin (origins32 only)
  std::int64_t target_begin = 0;  //!< 0-based begin (origins32 only)
  double kernel_seconds = 0;      //!< kernel time (s, CUDA events)
  int blocks = 0;                 //!< blocks launched
  int strips = 0;                 //!< strips of the query
  fill_variant ran = fill_variant::score32;  //!< variant of the fill that gave the result
  bool overflowed = false;        //!< score16 overflowed and the pair was rerun at 32 bits
  double overflow_seconds = 0;    //!< kernel time of the aborted 16-bit fill (s)
  //! Share of the launched warps' time spent waiting on ready flags (clock64 cycles at the
  //! device's nominal SM clock; 0 for the grid-barrier variant, which has no flags).
  double flag_wait_share = 0;
  //! Banded fills (fast_bands.hpp): bytes of border rows handed from band to band, and the
  //! hand-overs that went through mapped host memory.
  std::int64_t handover_bytes = 0;
  int handovers_through_host = 0;
  //! Banded fills: each band's share of its warps' time spent waiting on ready flags, the
  //! pipeline's fill at its start included (clock64 cycles at the band's device's nominal clock).
  std::vector<double> band_wait_shares;
};

//! Rows per strip of a variant.
int variant_strip_rows(fill_variant v);
//! score16 (whole fills and batches): steps between a strip's first row on a column and the
//! store of that column of its last row; a strip runs the target's length plus these steps.
int score16_last_row_lag();

//! One pair of a batch (fill_context::fill_batch): its rows (the fill's query) and columns (its
//! target), and the tie rule of its best cell (fill_options::rows_first).
struct batch_pair {
  residue_span rows;
  residue_span columns;
  bool rows_first = false;
};

//! The order of a batch's strips (fast_batch): the problems are the pairs sorted by strips, most
//! first (order[k] is the pair of problem k, ties in the pairs' order), and strip s of problem k
//! is batch strip level_first[s] + k for every problem with more than s strips (levels + 1
//! entries, the last the batch's strips). Strip s − 1 of a problem thus always comes before strip
//! s: the warps, which take strips in order, never wait on a strip no warp has taken.
struct batch_order {
  std::vector<std::size_t> order;
  std::vector<std::int32_t> level_first;
};
//! batch_order of pairs with these strip counts (each ≥ 1, fewer than 2^31 − 1 strips in all).
batch_order plan_batch_order(std::span<const std::int64_t> strips);

//! Device bytes one pair of rows × columns adds to a batch (budgets: a batch holds its pairs at once).
std::int64_t batch_pair_bytes(std::int64_t rows, std::int64_t columns);

//! True when the scheme's scores fit the int8 profile (|s| ≤ 127) and gaps are ≥ 0.
bool scheme_fits(const scoring_scheme& scheme);
//! True when the packed 16-bit fill can run the scheme (scheme_fits and o + e ≤ 8192).
bool scheme_fits16(const scoring_scheme& scheme);
//! True when the packed 16-bit fill holds the scheme's scores relative to a base, exact however
//! high they go (scheme_fits16 and o + e + max s ≤ 26); otherwise it reruns at 32 bits past 32767.
bool scheme_relative16(const scoring_scheme& scheme);

//! Reusable device buffers for fills on one device (one pair at a time; not thread-safe).
class fill_context {
 public:
  //! Binds to dev (made current): every fill runs there.
  explicit fill_context(const cuda::device_context& dev);
  ~fill_context();
  fill_context(const fill_context&) = delete;
  fill_context& operator=(const fill_context&) = delete;

  //! Fills query × target (both non-empty, each < 2^31 − 1024 residues). Throws
  //! swat::cuda_error on CUDA failures and when the watchdog fired, std::invalid_argument when
  //! the scheme does not fit (scheme_fits) or the best score could exceed 2^30 (score_range.hpp).
  fill_result fill(residue_span query, residue_span target, const scoring_scheme& scheme,
                   const fill_options& options);

  //! Score fills of several pairs (each side ≥ 1 and < 2^31 − 1024 residues, fewer than 2^31
  //! strips in all) in one launch of the packed 16-bit fill with relative scores: the strips of
  //! all pairs share the grid, so a few long, narrow pairs fill the GPU together. Result k is
  //! pair k's, as fill() with rows_first and the score16 variant would give it (kernel_seconds
  //! and flag_wait_share are the batch's). The scheme must be scheme_relative16 (and every pair
  //! within score_range.hpp's bound); options' max_blocks and watchdog apply, its variant, score
  //! limit and special rows do not. Throws as fill().
  std::vector<fill_result> fill_batch(std::span<const batch_pair> pairs, const scoring_scheme& scheme,
                                      const fill_options& options);

  //! Warps of one round of the batch kernel for this scheme (its co-resident blocks × warps).
  int batch_round_warps(const scoring_scheme& scheme) const;

  //! Frees the context's device buffer now (the next fill allocates again).
  void release();

  //! Device bytes held by this context.
  std::int64_t held_bytes() const;

 private:
  //! One launch of one variant (fill() checks the arguments first).
  fill_result run_once(residue_span query, residue_span target, const scoring_scheme& scheme, fill_variant variant,
                       const fill_options& options);

  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace swat::fast

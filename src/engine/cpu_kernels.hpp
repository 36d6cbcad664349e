#pragma once
// Linear-space kernels of the CPU engine (recurrences of Gotoh 1982 as written in
// common/traceback.hpp; values are bit-identical to reference::fill).
//
// score pass: one sweep over the whole matrix keeping O(m + n) state. Besides H, E and F it
//   carries, for every cell and state, the cell where the traceback walk started at that
//   cell/state would stop ("origin"). The walk is deterministic (one preferred predecessor per
//   cell and state, tie rules of traceback.hpp), so origins obey the same recurrences:
//     oH(i,j) = (i,j)                  if H(i,j) = 0        (the walk stops here)
//             = oH(i-1,j-1)            if H = diag          (row 0 / column 0: oH = the cell)
//             = oE(i,j)                if H = E
//             = oF(i,j)                otherwise
//     oE(i,j) = oH(i,j-1) if H(i,j-1) - o - e >= E(i,j-1) - e else oE(i,j-1)
//     oF(i,j) = oH(i-1,j) if H(i-1,j) - o - e >= F(i-1,j) - e else oF(i-1,j)
//   so the best cell's origin is exactly (query_begin, target_begin) of reference::align.
// row fill: one DP row from the row above, optionally writing the 4-bit traceback codes.

#include <cstddef>
#include <cstdint>

#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "common/traceback.hpp"
#include "engine/engine.hpp"

namespace swat::cpu {

//! Stand-in for -infinity in E and F (same value as the reference: no overflow when
//! penalties are subtracted).
inline constexpr std::int32_t minus_infinity = -(1 << 29);

//! Result of a score pass: the best cell (tie rule of traceback.hpp) and, when origins were
//! requested, the 0-based begin coordinates of its alignment (= DP indices of the origin).
struct pass_result {
  best_cell best;
  std::int64_t query_begin = 0;
  std::int64_t target_begin = 0;
};

//! Cells between two progress reports of one long pair (DP cells).
inline constexpr std::uint64_t progress_chunk_cells = std::uint64_t(1) << 26;

//! Scalar row-major score pass; origins only when with_origins. O(n) memory: 24(n+1) bytes.
//! progress (may be null) receives the cells done, m·n in total.
pass_result score_pass_scalar(residue_span query, residue_span target, const scoring_scheme& scheme,
                              bool with_origins, const progress_fn* progress);

//! True when this CPU runs the striped AVX2 kernel.
bool striped_available();

//! Memory layout of one score pass.
struct pass_plan {
  std::int64_t band_rows = 0;  //!< query rows per band (a multiple of 8; ≥ m: one band)
  std::size_t bytes = 0;       //!< arrays of the pass with that band height (bytes)
};

//! Query rows of one band when the query is longer: the band's arrays stay in cache (a 10 Mb ×
//! 200 b pair ran twice as fast as one sweep over the whole query on an EPYC).
inline constexpr std::int64_t cache_band_rows = 16384;

//! Plan of score_pass for an m × n pair (ranks: profile rows, at least scheme.size()) within
//! budget_bytes: the whole query when it has at most cache_band_rows rows and fits, else bands
//! of rows as tall as fit (at most cache_band_rows) beside the two band borders (48(n+1) bytes
//! with origins, 16(n+1) without), else the whole query if that fits. The
//! arrays take (40 + 4·ranks) bytes per row with origins, (16 + 4·ranks) without, plus 4 KiB
//! per array (10 + ranks with origins, 4 + ranks without) for their staggered starts. When
//! nothing fits, the smaller layout with bytes > budget_bytes (the caller refuses or accepts).
//! The scalar pass (no AVX2) is one layout: 24(n+1) bytes with origins, 8(n+1) without.
pass_plan plan_score_pass(std::int64_t m, std::int64_t n, int ranks, bool with_origins, std::size_t budget_bytes);

//! Striped (Farrar 2007 layout, 8 × int32 lanes over the query) score pass with the same
//! results as score_pass_scalar; requires striped_available(). Memory: plan_score_pass, i.e.
//! with origins (40 + 4·ranks) bytes per query row (ranks = alphabet size, 5 DNA / 27 protein),
//! without 16 + 4·ranks, and bands of rows with two borders when the whole query exceeds
//! budget_bytes.
pass_result score_pass_striped(residue_span query, residue_span target, const scoring_scheme& scheme,
                               bool with_origins, const progress_fn* progress,
                               std::size_t budget_bytes = SIZE_MAX);

//! Score pass without origins in 16 int16 lanes (cpu_striped16.cpp): true with out set when the
//! query is one band (at most cache_band_rows rows) and no score reached 32767 - max score;
//! false otherwise (not run, or given up: the caller takes the 32-bit pass). Memory: (8 + 2·ranks)
//! bytes per query row.
bool score_pass_striped16(residue_span query, residue_span target, const scoring_scheme& scheme,
                          const progress_fn* progress, pass_result& out);

//! The fastest available score pass (striped within budget_bytes, 16-bit lanes first when there
//! are no origins and the query is one band, or the scalar row pass).
inline pass_result score_pass(residue_span query, residue_span target, const scoring_scheme& scheme,
                              bool with_origins, const progress_fn* progress, std::size_t budget_bytes = SIZE_MAX) {
  if (striped_available()) return score_pass_striped(query, target, scheme, with_origins, progress, budget_bytes);
  return score_pass_scalar(query, target, scheme, with_origins, progress);
}

//! Advances one DP row in place: on entry h[0..w], f[0..w] hold row i-1 (h[0] = 0), on exit
//! row i for query residue q_rank against target[0..w). With codes != nullptr, codes[j-1]
//! receives the 4-bit code of cell (i, j) (make_code of traceback.hpp).
void fill_row(std::uint8_t q_rank, const std::uint8_t* target, std::int64_t w,
              const scoring_scheme& scheme, std::int32_t* h, std::int32_t* f, std::uint8_t* codes);

//! fill_row over rows q[0..rows): 8 rows at a time in AVX2 lanes (anti-diagonal skew) where
//! available. Codes of row r at codes + r·stride when codes != nullptr. Scratch: 8(w+9) bytes.
void fill_rows(const std::uint8_t* q, std::int64_t rows, const std::uint8_t* target, std::int64_t w,
               const scoring_scheme& scheme, std::int32_t* h, std::int32_t* f, std::uint8_t* codes,
               std::int64_t stride);

}  // namespace swat::cpu

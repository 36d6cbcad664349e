#pragma once
// Inter-sequence score passes of the CPU engine (the layout of SWIPE, Rognes 2011): one query
// against many targets at once in 8-bit lanes (32 lanes with AVX2, 64 with AVX-512BW, chosen at
// run time), the targets' residues interleaved column by column; a lane scores several targets
// one after the other (packed longest first, so no lane idles while the longest target runs).
// Each target's best cell is exact (score, end cell and tie rule of common/traceback.hpp) unless its
// scores saturated, which the kernel reports: the caller rescores those pairs wider (the
// striped 16- then 32-bit passes of cpu_kernels.hpp).
//
// Exactness in 8 bits. Scores are held unsigned with a bias b = -min(substitution score, 0):
// H(i,j) = subs(adds(H(i-1,j-1), s + b), b) = max(H(i-1,j-1) + s, 0) while the sum stays below
// 255, and E, F = max(subs(H, o + e), subs(E, e)) hold max(E, 0) and max(F, 0) of Gotoh's
// recurrences (Gotoh 1982), which give the same H = max(0, diag, E, F). While every H of a lane
// is below limit = 255 - max(s + b), no sum can saturate, so the lane is exact; a lane whose
// best reaches the limit is reported saturated (its first saturated H is ≥ limit, and it is
// exact up to there, so its best reaches the limit).
// Tie rule: the columns of each lane run in order and a lane's best changes only when a column's
// maximum is strictly greater, so its end column is the smallest (a lane's best starts from 0
// where each of its targets begins); the rows of that column are
// then searched for the first one holding the maximum (per block of rows the column's maxima are
// kept, so only one block is searched).

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "common/traceback.hpp"

namespace swat::cpu {

//! Lanes of the widest inter-sequence kernel this CPU runs: 64 (AVX-512BW), 32 (AVX2) or 0.
int interseq_lanes();

//! A scheme in the kernel's 8-bit form.
struct interseq_scheme {
  bool fits = false;             //!< false: the scores do not fit 8 bits (use the striped passes)
  std::uint8_t bias = 0;         //!< added to every substitution score (-min score, or 0)
  std::uint8_t limit = 0;        //!< a lane is exact while its best is below this
  std::uint8_t open_extend = 0;  //!< o + e, capped at 255 (same results: H ≤ 255)
  std::uint8_t extend = 0;       //!< e, capped at 255
  std::uint16_t wide_open_extend = 0;  //!< o + e capped at 65535, for 16-bit lanes (cpu_bands.hpp)
  std::uint16_t wide_extend = 0;       //!< e capped at 65535
  std::uint16_t wide_limit = 0;        //!< 16-bit lanes are exact while below this
  std::uint32_t full_open_extend = 0;  //!< o + e capped at 2^31 − 1, for 32-bit lanes (cpu_bands.hpp)
  std::uint32_t full_extend = 0;       //!< e
  int query_ranks = 0;           //!< rows of the biased table (query ranks) …
  int target_ranks = 0;          //!< … and columns (target ranks), at most 32
  //! biased[a · 32 + b] = score(a, b) + bias for query rank a and target rank b.
  std::array<std::uint8_t, matrix_stride * matrix_stride> biased{};
};

//! The 8-bit form of scheme for query and target ranks below ranks (at most matrix_stride);
//! fits = false when the biased scores exceed 127 (too little room below 255).
interseq_scheme make_interseq_scheme(const scoring_scheme& scheme, int ranks);

//! Working memory of one inter-sequence pass (bytes) for a query of m residues, targets of at
//! most n residues and `lanes` lanes: H and E per query row, the column profile, block maxima
//! and the interleaved targets.
std::size_t interseq_bytes(std::int64_t m, std::int64_t n, int lanes, int query_ranks);

//! One target's run in a lane of a pass: its columns [start, start + length), start a multiple
//! of the pass's columns (4 with 64 lanes, 2 with 32). A lane scores its runs one after the
//! other, its H and E zeroed where each begins (SWIPE's lane refill, planned before the pass).
struct lane_run {
  std::int64_t start = 0, length = 0;
  int lane = 0, target = 0;
};

//! Buffers a thread reuses from pass to pass (grown, never shrunk).
struct interseq_scratch {
  std::vector<std::uint8_t> bytes;
  std::vector<lane_run> runs;
};

//! Columns of one pass over targets of these lengths in `lanes` lanes, packed as
//! score_interseq8 packs them: at least the longest, about Σ lengths / lanes when many.
std::int64_t packed_columns(std::span<const std::int64_t> lengths, int lanes);

//! Best cells of query against targets (count ≥ 1, each non-empty) in 8-bit lanes: the targets
//! are packed into the lanes longest first, a lane taking the next target where its last ends
//! (lane_run), so a pass lasts about Σ lengths / lanes columns instead of count / lanes times
//! the longest. results[k] for target k, exact unless first_saturated[k] ≥ 0 (saturated:
//! rescore it wider), which is then the first target column (0-based) where its 8-bit best
//! reached s.limit: every column before holds only exact scores below the limit, so every cell
//! of the true best score lies at or after it (−1 for exact targets). results and
//! first_saturated: count entries each. lanes: 32 or 64, at most interseq_lanes(); s.fits must
//! be true; the ranks of query and targets below s.query_ranks and s.target_ranks. Returns the
//! number of saturated targets.
std::size_t score_interseq8(residue_span query, std::span<const residue_span> targets, const interseq_scheme& s,
                            int lanes, interseq_scratch& scratch, std::span<best_cell> results,
                            std::span<std::int64_t> first_saturated);

}  // namespace swat::cpu

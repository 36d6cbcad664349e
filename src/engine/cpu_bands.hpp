#pragma once
// One long pair in 8-bit lanes: the query's rows cut into as many bands as a vector has lanes
// (64 with AVX-512BW, 32 with AVX2), lane l holding band l. Lane l runs one column behind lane
// l − 1 (step s: lane l at target column s − l), so the row above its band (H and F of the band
// above, at the same column, and H one column earlier for the diagonal) is the last row lane
// l − 1 computed one step before: one lane shift per step. Where inter-sequence batches fill
// their lanes with many targets (cpu_interseq.hpp), this fills them with one pair, so a few long
// pairs (windows of genomes) run at nearly the speed of many short ones.
//
// Scores as in cpu_interseq.hpp (biased unsigned 8 bits, exact while below the limit). Where a
// pair's scores pass 8 bits (a gene's hit in a genome's window), the pass goes back to its last
// checkpoint (the lanes' state, saved every few hundred steps) and goes on in 16-bit lanes, as
// many as the 8-bit ones (two vectors: the bands keep their geometry, so the state only
// widens), and likewise from 16 to 32 bits (four vectors), until the hit is behind it: when
// every value left is below the narrower limit, or belongs to a cell from which no path can beat
// the best so far (its value plus what the rows below can add at most is below it), the state
// narrows back, those cells at 0. So a window is scored once, in 16 or 32 bits only across its
// hits, never again from the start. Substitution scores
// come from one table of query rank × target rank entries (at most 32: DNA), looked up by a
// per-row vector of query ranks (times the target ranks) plus the shifted target residues. Lanes
// before their first column hold zeros (the DP's column 0); lanes past the last column and rows
// past the query end are left out of the best. Tie rule: each lane keeps its first column (and
// its first row there) of a strict improvement; the lanes' bests are then merged by
// cell_beats (lanes in row order).

#include <cstdint>

#include "common/traceback.hpp"
#include "engine/cpu_interseq.hpp"

namespace swat::cpu {

//! True when score_bands takes an m × n pair under s (the score table fits 32 entries, every
//! lane gets at least min_band_rows rows and at most bands_max_rows rows in all) with `lanes`
//! lanes (32 or 64).
bool bands_fit(const interseq_scheme& s, std::int64_t m, std::int64_t n, int lanes);

//! Query rows the bands take at most: every score stays below m × 127 (the widest spread of a
//! scheme in 8 bits), so with room for the padding rows and the biased sums m × 255 below 2^31
//! keeps the 32-bit lanes from saturating.
inline constexpr std::int64_t bands_max_rows = ((std::int64_t(1) << 31) - 256) / 255;

//! Rows per lane below which the band kernel is not used (its per-step work would be mostly
//! the lane shift and the column bookkeeping).
inline constexpr std::int64_t min_band_rows = 16;

//! Working memory of score_bands (bytes).
std::size_t bands_bytes(std::int64_t m, int lanes);

//! Whether the 64-lane passes use AVX512_VBMI's byte permute for their 8-bit score lookups where
//! the CPU has it (the default); tests switch it off to check the other AVX-512 path too.
void set_bands_vbmi(bool allowed);

//! Steps between a pass's checkpoints, and between a wider stretch's attempts to narrow back
//! (the tests use fewer, to switch often).
inline constexpr std::int64_t bands_check_steps = 256;

//! What a pass did: its steps in each width (steps run again from a checkpoint count again, in
//! the wider width), and how often it widened and narrowed back.
struct bands_stats {
  std::int64_t steps8 = 0, steps16 = 0, steps32 = 0;
  std::int64_t widened = 0, narrowed = 0;
};

//! The best cell of query × target (exact; tie rule of common/traceback.hpp) in `lanes` lanes
//! (32: AVX2, 64: AVX-512BW, at most interseq_lanes()) of 8 bits with 16- and 32-bit stretches.
//! Requires bands_fit(s, m, n, lanes). check_steps: bands_check_steps but in tests; stats (may
//! be null) receives what the pass did.
best_cell score_bands(residue_span query, residue_span target, const interseq_scheme& s, int lanes,
                      interseq_scratch& scratch, std::int64_t check_steps = bands_check_steps,
                      bands_stats* stats = nullptr);

}  // namespace swat::cpu

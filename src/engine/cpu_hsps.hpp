#pragma once
// Several alignments per pair (--max-hsps) on the CPU, exact and in bounded memory.
//
// The rule (Waterman & Eggert 1987; Huang & Miller 1991's SIM): the first alignment is the
// pair's optimal local alignment; each next one is the optimal local alignment that aligns no
// residue pair (i, j) an earlier one aligned. In the DP such a forbidden cell loses its diagonal
// term, H(i,j) = max(0, E(i,j), F(i,j)); gaps may cross it. Every alignment is the optimum of its
// matrix under the tie rules of common/traceback.hpp, i.e. exactly reference::waterman_eggert.
//
// Bounded memory: the matrix is cut into tiles of K × K cells and only the tiles' borders are
// kept (H and F of the last row of every row of tiles, H and E of the last column of every column
// of tiles), with the best cell of every tile. A tile is refilled from its left and upper
// neighbours' borders alone, so:
//   - pass 0 fills every tile once (score pass);
//   - forbidding an alignment marks the tiles it crosses dirty; a refilled tile whose border
//     changed marks the neighbours that read it (right, below, below-right) dirty. A tile is
//     exact when neither it nor any tile above-left of it (its cone) is dirty.
//   - the values only fall when cells are forbidden, and the recurrences are monotone in their
//     inputs, so a stale tile's stored best is an upper bound of its true best. The next
//     alignment is found lazily: take the tile with the best stored cell (tie order); if it is
//     exact, its best is the matrix's best; else refill the dirty tiles of its cone in row-major
//     order and look again (every dirty tile of the cone, whatever its stored best: the borders
//     must be exact). The search stops as soon as the best stored cell is below the threshold.
//   - the path is walked back through the tiles of the cone (all exact): each tile is refilled
//     band by band with traceback codes (rows checkpointed inside the tile when it is tall).
// Only the regions that earlier alignments touched are recomputed, as in SIM; the tile fill
// with borders in and out is the unit a GPU engine would take over.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/alignment.hpp"
#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "engine/engine.hpp"

namespace swat::cpu {

//! Layout of one pair's search for several alignments.
struct hsp_plan {
  std::int64_t tile = 0;       //!< tile edge K (cells)
  std::int64_t band_rows = 0;  //!< rows per traceback band inside a tile (≤ K)
  std::size_t bytes = 0;       //!< borders, tile records, traceback codes and checkpoints (bytes)
};

//! Smallest tile edge the planner chooses (cells); tests may ask for smaller tiles.
inline constexpr std::int64_t hsp_min_tile = 256;

//! Plan for an m × n pair within budget_bytes, filled by `threads` threads: the smallest tile
//! edge (from hsp_min_tile, doubling) whose layout fits. When nothing fits, the layout of fewest
//! bytes (bytes > budget_bytes: the caller refuses or takes another path).
hsp_plan plan_hsps(std::int64_t m, std::int64_t n, std::size_t budget_bytes, unsigned threads = 1);

//! A band of diagonals d = j − i (cells (i, j), 1-based), lo ≤ d ≤ hi.
struct diagonal_band {
  std::int64_t lo = 0, hi = 0;
};

//! The alignments of query against target under the Waterman–Eggert rule, best first: at most
//! max_hsps (0: no limit), each with score ≥ min_score (values below 1 count as 1). Memory within
//! budget_bytes (usage_error when the pair cannot fit). progress (may be null) receives the cells
//! of the first pass, m·n in total. layout.tile > 0 forces the tile edge and layout.band_rows > 0
//! the traceback band height (tests; the budget is then not checked). The first pass and the
//! refills run on up to `threads` threads (tiles of one anti-diagonal at once). The residue pairs
//! of the alignments found (about 16 bytes each) live in what the layout leaves of the budget:
//! when the next alignment's would not fit, the search stops after it and *stopped_by_memory
//! (may be null) is set.
std::vector<alignment> waterman_eggert(residue_span query, residue_span target, const scoring_scheme& scheme,
                                       std::size_t max_hsps, std::int32_t min_score, std::size_t budget_bytes,
                                       const progress_fn* progress = nullptr, const hsp_plan& layout = {},
                                       unsigned threads = 1, bool* stopped_by_memory = nullptr);

//! The diagonals that hold every alignment of `score` into the last cell (R, W) of an R × W
//! matrix. Such an alignment has P aligned pairs, I query residues against gaps and D target
//! residues against gaps, each gap residue costing at least the extension e, so score ≤
//! P · max_score − e · (I + D), with P + I ≤ R and P + D ≤ W: hence
//!   I · (max_score + e) + D · e ≤ R · max_score − score,   D · (max_score + e) + I · e ≤ W · max_score − score.
//! Walking back from the end cell, an I step moves one diagonal (j − i) up and a D step one down,
//! so its cells lie in [W − R − D_max, W − R + I_max], with I_max and D_max the largest I and D
//! those allow. The bound is tight (gap open 0: one gap of exactly D_max target residues, or of
//! I_max query residues). nullopt when there is none (gap extension 0, max score or score ≤ 0,
//! a score above min(R, W) · max_score).
std::optional<diagonal_band> band_of_score(std::int64_t rows, std::int64_t columns, std::int32_t score,
                                           const scoring_scheme& scheme);

//! The pair's optimal alignment (waterman_eggert's first) from the tiles that meet `band` alone:
//! a tile wholly outside it is never filled, and its borders read H = 0, E = F = −inf. Exact when
//! the matrix's best cell lies in the band and so does every optimal alignment into it: the
//! other cells' values can only drop (their inputs only drop, and H ≥ 0), so none rises above
//! the best or ties it in a cell the tie rule prefers; a cell of an optimal path keeps its value
//! (its best prefix is a prefix of the path, in the band); and a predecessor the walk may take
//! from such a cell is on an optimal path, so the walk takes the same one (cpu_traceback.hpp's
//! argument). A known end cell and its score bound the band (band_of_score). The band trusts
//! that cell: were it not the pair's best, a better cell outside the band would go unseen (the
//! CPU engine's check of the box's alignment against the known cell then passes). Memory,
//! layout and threads as waterman_eggert's; empty when no cell of the band scores.
std::optional<alignment> best_alignment_in_band(residue_span query, residue_span target, const scoring_scheme& scheme,
                                                diagonal_band band, std::size_t budget_bytes,
                                                const progress_fn* progress = nullptr, const hsp_plan& layout = {},
                                                unsigned threads = 1);

//! The best cell of query × target (tie rule) from the tiles' first pass alone, on up to
//! `threads` threads (tiles of one anti-diagonal at once): a long pair's 32-bit score pass when a
//! worker has threads to spare. Memory as plan_hsps(m, n, budget_bytes, threads); usage_error
//! when that does not fit.
best_cell tiled_best_cell(residue_span query, residue_span target, const scoring_scheme& scheme,
                          std::size_t budget_bytes, unsigned threads, const progress_fn* progress = nullptr);

//! Cells filled on this thread so far by waterman_eggert (first passes run on one thread,
//! refills and traceback bands): for benchmarks and tests of how much the lazy refill saves.
std::uint64_t hsp_cells_filled();

}  // namespace swat::cpu

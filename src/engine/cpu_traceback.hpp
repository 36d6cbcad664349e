#pragma once
// Exact traceback in bounded memory for the CPU engine.
//
// Why a rectangle with zero borders gives the reference's path (proof).
// Let the reference walk from the best cell (i1, j1) stop at (i0, j0): H(i0,j0) = 0 or i0 = 0
// or j0 = 0. Every cell the path visits, except (i0, j0), lies in rows (i0, i1] and columns
// (j0, j1]: a gap run is always opened from an H > 0 (a run opened from H = 0 is negative and
// stays negative, so it cannot lead to an H > 0), hence the last step into (i0, j0) is diagonal.
// Recompute the rectangle alone with H = 0, E = F = -inf on row i0 and column j0; call its values
// X' and the full-matrix values X (X ∈ {H, E, F}).
//  (1) X' ≤ X in every cell: the recurrences are monotone and the borders only get smaller
//      (full-matrix H ≥ 0).
//  (2) On the path, X' ≥ X: X at a path cell/state equals the score of the path from (i0, j0)
//      (each step follows the maximising predecessor and H(i0,j0) = 0), and that same path exists
//      in the rectangle from its zero corner.
// So X' = X on the path. The codes along the path agree too: at a path cell in state H the
// reference picks the first of diag/E/F equal to H; the chosen term is on the path (equal in
// both), the terms ahead of it are < H in the full matrix, hence < H in the rectangle by (1).
// Likewise for E/F open-vs-extend: the chosen predecessor is on the path (equal), the other is
// only smaller in the rectangle, so "open ≥ extend" is decided the same way. H' > 0 on the path
// before (i0, j0), so the walk neither stops early nor overshoots: it stops at the corner.
//
// Memory (bytes) for an R × W rectangle and budget B (one byte per code, or two codes a byte):
//   • R·W ≤ B: codes of the whole rectangle, R·W.
//   • R·⌈W/2⌉ + min(R, 64)·W ≤ B: the codes packed two to a byte, filled 64 rows at a time
//     (one fill of the rectangle instead of two: a 40 kb gene's hit, 1.6e9 cells, fits 1 GiB).
//   • otherwise checkpointing: a level keeps H and F of every K-th row, 8(W+1) bytes each, walks
//     back band by band (K rows, columns only up to the walk's current column) and recomputes a
//     band's codes (bytes, or packed when only they fit) from its checkpoint; a band whose codes
//     do not fit becomes a level of its own
//     (multi-level checkpoints). K balances R/K checkpoints against K·W codes; when even that
//     exceeds what is left, a level takes half the remainder for checkpoints.
//   Bound: peak ≤ B + 8(W+1)·(⌈log2 R⌉ + 1) + W   (the extra terms only for budgets below a few
//   rows), plus 16(W+1) for the working rows. Time: one fill of the rectangle per level plus one
//   for the codes (≤ 2 passes when B ≥ ~4·W·√R).

#include <cstddef>
#include <cstdint>

#include "common/alignment.hpp"
#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"

namespace swat::cpu {

//! Bytes trace_rectangle may use beyond its budget for an R × W rectangle: the working, zero
//! and strip-scratch rows and one checkpoint row per level (the extra terms of the bound above).
std::size_t trace_overhead_bytes(std::int64_t rows, std::int64_t width);

//! Alignment of query (R residues, rows 1..R) against target (W residues, columns 1..W) whose
//! traceback starts at the last cell (R, W) with the given score (> 0) and, by construction of
//! the caller, ends at the corner (0, 0). Coordinates in the result are local to the spans.
//! budget_bytes bounds the codes and checkpoints (see the bound above).
alignment trace_rectangle(residue_span query, residue_span target, const scoring_scheme& scheme,
                          std::int32_t score, std::size_t budget_bytes);

}  // namespace swat::cpu

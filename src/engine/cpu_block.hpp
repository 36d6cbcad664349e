#pragma once
// One rectangular block of the DP filled from its borders, with residue pairs that earlier
// alignments aligned taken out of the diagonal step: the tile fill of the Waterman–Eggert search
// (cpu_hsps.hpp). Recurrences of common/traceback.hpp (Gotoh 1982); a forbidden cell has no
// diagonal term, H(i,j) = max(0, E(i,j), F(i,j)). Values and codes are those of
// reference::fill with the same forbidden cells.

#include <cstdint>
#include <span>
#include <utility>

#include "common/alignment.hpp"
#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "common/traceback.hpp"

namespace swat::cpu {

//! A residue pair aligned by an earlier alignment: 1-based DP cell (i, j).
using forbidden_cell = std::pair<std::int64_t, std::int64_t>;
//! Forbidden cells sorted by row, then column; a block fill is given at least those of its block.
using forbidden_span = std::span<const forbidden_cell>;

//! Rows i0..i1 × columns j0..j1 of the DP (1-based, inclusive).
struct block {
  std::int64_t i0, i1, j0, j1;
  std::int64_t width() const { return j1 - j0 + 1; }
  std::int64_t height() const { return i1 - i0 + 1; }
};

//! The borders of a block fill. h, f (width entries) hold H and F of row i0-1 on entry and of
//! row i1 on exit; corner = H(i0-1, j0-1); left_h, left_e: H and E of column j0-1 for rows
//! i0..i1 (null: column 0, H = 0, E = -inf); right_h, right_e (may be null) receive H and E of
//! column j1 for rows i0..i1.
struct block_borders {
  std::int32_t* h;
  std::int32_t* f;
  std::int32_t corner;
  const std::int32_t* left_h;
  const std::int32_t* left_e;
  std::int32_t* right_h;
  std::int32_t* right_e;
};

//! Fills blk and returns its best cell under the tie rule (score 0: none). codes (may be null)
//! receive the 4-bit traceback codes, row by row (height × width). Without codes the rows go
//! 8 at a time through AVX2 lanes where the CPU has them.
best_cell fill_block(const block& blk, residue_span query, residue_span target, const scoring_scheme& scheme,
                     forbidden_span forbidden, const block_borders& borders, std::uint8_t* codes);

//! Cells filled by fill_block on this thread so far.
std::uint64_t block_cells_filled();

}  // namespace swat::cpu

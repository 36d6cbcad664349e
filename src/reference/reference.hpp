#pragma once
// Scalar Gotoh local alignment with full matrices: the specification for every engine
// (recurrences and tie rules in common/traceback.hpp). Short and obviously right, not fast:
// O(m·n) int32 memory.

#include <cstdint>
#include <vector>

#include "common/alignment.hpp"
#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "common/traceback.hpp"
#include "engine/engine.hpp"

namespace swat::reference {

//! Full DP matrices of one pair, (m+1) × (n+1), row-major, row 0 and column 0 included.
struct dp_matrices {
  std::int64_t m = 0;  //!< query length (rows 1..m)
  std::int64_t n = 0;  //!< target length (columns 1..n)
  std::vector<std::int32_t> h, e, f;
  std::vector<std::uint8_t> code;  //!< 4-bit traceback code per cell (0 in row/column 0)
  std::int64_t index(std::int64_t i, std::int64_t j) const { return i * (n + 1) + j; }
  std::int32_t H(std::int64_t i, std::int64_t j) const { return h[index(i, j)]; }
  std::int32_t E(std::int64_t i, std::int64_t j) const { return e[index(i, j)]; }
  std::int32_t F(std::int64_t i, std::int64_t j) const { return f[index(i, j)]; }
};

//! Value standing for -infinity in E and F (far from overflow when penalties are subtracted).
inline constexpr std::int32_t minus_infinity = -(1 << 29);

//! Fills H, E, F and the codes. forbidden (empty, or one flag per cell of the (m+1) × (n+1)
//! matrix, row-major): a flagged cell (i, j) may not align q_i with t_j, so its H has no
//! diagonal term, H(i,j) = max(0, E(i,j), F(i,j)) (the Waterman–Eggert rule); gaps cross it.
dp_matrices fill(residue_span query, residue_span target, const scoring_scheme& scheme,
                 const std::vector<bool>& forbidden = {});
//! Best cell under the tie rule.
best_cell find_best(const dp_matrices& dp);
//! Full alignment: fill, best cell, traceback.
alignment align(residue_span query, residue_span target, const scoring_scheme& scheme);

//! Waterman–Eggert (1987): the best local alignment, then repeatedly the best local alignment
//! that aligns no residue pair an earlier one aligned (forbidden cells as in fill()), each the
//! optimum of its matrix under the tie rules, until max_hsps alignments (0: no limit) or the
//! best score falls below min_score (≥ 1). Full matrices, refilled per alignment: tests only.
std::vector<alignment> waterman_eggert(residue_span query, residue_span target, const scoring_scheme& scheme,
                                       std::size_t max_hsps, std::int32_t min_score);

//! The reference as an engine (tests and tiny inputs only: memory grows with m·n).
class reference_engine final : public engine {
 public:
  std::string name() const override { return "reference"; }
  alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    return reference::align(query, target, scheme);
  }
};

}  // namespace swat::reference

#pragma once
// The one score-range bound: every engine scores in int32 with room below zero for gap
// penalties, so an input is only accepted when its best possible local score stays ≤ 2^30.
// The pipeline refuses inputs beyond it (usage_error), the GPU engines check it per pair.

#include <algorithm>
#include <cstdint>

#include "common/scoring_scheme.hpp"

namespace swat {

//! Largest best score the engines accept (2^30).
inline constexpr std::uint64_t max_score_bound = std::uint64_t(1) << 30;

//! Upper bound of the best local score of an m × n pair: min(m, n) × the largest substitution
//! score (0 when no substitution scores positive).
inline std::uint64_t best_score_bound(std::uint64_t m, std::uint64_t n, const scoring_scheme& scheme) {
  return std::min(m, n) * std::uint64_t(std::max(scheme.max_score(), 0));
}

//! True when best_score_bound(m, n, scheme) ≤ max_score_bound.
inline bool within_score_range(std::uint64_t m, std::uint64_t n, const scoring_scheme& scheme) {
  return best_score_bound(m, n, scheme) <= max_score_bound;
}

}  // namespace swat

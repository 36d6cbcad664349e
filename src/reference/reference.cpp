#include "reference/reference.hpp"

#include <algorithm>

namespace swat::reference {

dp_matrices fill(residue_span query, residue_span target, const scoring_scheme& scheme,
                 const std::vector<bool>& forbidden) {
  dp_matrices dp;
  dp.m = std::int64_t(query.size());
  dp.n = std::int64_t(target.size());
  const std::size_t cells = std::size_t(dp.m + 1) * std::size_t(dp.n + 1);
  dp.h.assign(cells, 0);
  dp.e.assign(cells, minus_infinity);
  dp.f.assign(cells, minus_infinity);
  dp.code.assign(cells, 0);
  const std::int32_t open = scheme.gap_open + scheme.gap_extend;
  const std::int32_t ext = scheme.gap_extend;
  for (std::int64_t i = 1; i <= dp.m; ++i) {
    for (std::int64_t j = 1; j <= dp.n; ++j) {
      const std::int64_t c = dp.index(i, j);
      const std::int32_t e_open = dp.H(i, j - 1) - open;
      const std::int32_t e_ext = dp.E(i, j - 1) - ext;
      const std::int32_t f_open = dp.H(i - 1, j) - open;
      const std::int32_t f_ext = dp.F(i - 1, j) - ext;
      const std::int32_t diag = !forbidden.empty() && forbidden[std::size_t(c)]
                                    ? minus_infinity
                                    : dp.H(i - 1, j - 1) + scheme.score(query[i - 1], target[j - 1]);
      dp.e[c] = std::max(e_open, e_ext);
      dp.f[c] = std::max(f_open, f_ext);
      dp.h[c] = std::max({0, diag, dp.e[c], dp.f[c]});
      dp.code[c] = make_code(dp.h[c], diag, dp.e[c], e_open, e_ext, f_open, f_ext);
    }
  }
  return dp;
}

best_cell find_best(const dp_matrices& dp) {
  best_cell best;
  for (std::int64_t j = 1; j <= dp.n; ++j)
    for (std::int64_t i = 1; i <= dp.m; ++i)
      if (cell_beats(dp.H(i, j), i, j, best.score, best.query_end, best.target_end))
        best = {dp.H(i, j), i, j};
  if (best.score == 0) best = {};
  return best;
}

alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) {
  const dp_matrices dp = fill(query, target, scheme);
  return walk_traceback(find_best(dp), [&](std::int64_t i, std::int64_t j) { return dp.code[dp.index(i, j)]; });
}

std::vector<alignment> waterman_eggert(residue_span query, residue_span target, const scoring_scheme& scheme,
                                       std::size_t max_hsps, std::int32_t min_score) {
  std::vector<alignment> found;
  std::vector<bool> forbidden(std::size_t(query.size() + 1) * std::size_t(target.size() + 1), false);
  const std::int64_t n = std::int64_t(target.size());
  while (max_hsps == 0 || found.size() < max_hsps) {
    const dp_matrices dp = fill(query, target, scheme, forbidden);
    const best_cell best = find_best(dp);
    if (best.score <= 0 || best.score < min_score) break;
    alignment aln = walk_traceback(best, [&](std::int64_t i, std::int64_t j) { return dp.code[dp.index(i, j)]; });
    std::int64_t i = aln.query_begin, j = aln.target_begin;
    for (const cigar_op& op : aln.ops)
      for (std::uint32_t k = 0; k < op.length; ++k) {
        if (op.op == 'M') forbidden[std::size_t((i + 1) * (n + 1) + j + 1)] = true;
        if (op.op != 'D') ++i;
        if (op.op != 'I') ++j;
      }
    found.push_back(std::move(aln));
  }
  return found;
}

}  // namespace swat::reference

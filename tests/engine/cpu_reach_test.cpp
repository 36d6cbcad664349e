// The pruned reverse pass on the CPU (engine/cpu_reach.hpp, pruned_reach), no GPU needed: its box is the
// reverse pass's (the largest reversed row and column where the reversed prefixes' local H
// reaches the hit's score, from the reference's matrices), and the reference's alignment of that
// box alone is the reference's alignment of the whole pair; weak and strong hits, repeats whose
// equal-scoring copies tie, DNA and protein, extreme gap costs.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "engine/cpu_reach.hpp"
#include "reference/reference.hpp"
#include "scoring/scoring.hpp"

namespace swat {
namespace {

using seq = std::vector<std::uint8_t>;

seq random_seq(std::mt19937& rng, std::size_t n, int letters) {
  seq out(n);
  for (auto& r : out) r = std::uint8_t(std::uniform_int_distribution<int>(0, letters - 1)(rng));
  return out;
}

//! A copy of `from` with about `rate` of its residues changed, deleted or doubled.
seq mutated(std::mt19937& rng, const seq& from, double rate, int letters) {
  seq out;
  std::uniform_real_distribution<double> u(0, 1);
  for (std::uint8_t r : from) {
    const double x = u(rng);
    if (x < rate / 3) continue;
    if (x < 2 * rate / 3) out.push_back(std::uint8_t(std::uniform_int_distribution<int>(0, letters - 1)(rng)));
    else out.push_back(r);
    if (x >= 2 * rate / 3 && x < rate) out.push_back(r);
  }
  return out;
}

//! The reverse pass's box from the reference: the local fill of the reversed prefixes.
box_extent reference_box(const seq& qp, const seq& tp, std::int32_t score, const scoring_scheme& scheme) {
  const seq qr(qp.rbegin(), qp.rend()), tr(tp.rbegin(), tp.rend());
  const reference::dp_matrices dp = reference::fill(qr, tr, scheme);
  box_extent box;
  for (std::int64_t i = 1; i <= dp.m; ++i)
    for (std::int64_t j = 1; j <= dp.n; ++j)
      if (dp.H(i, j) == score) {
        box.rows = std::max(box.rows, i);
        box.columns = std::max(box.columns, j);
      }
  return box;
}

struct counts {
  int pairs = 0, small_boxes = 0;
};

//! One pair: the reference's best cell, its prefixes, pruned_reach against reference_box, and
//! the box's alignment against the whole pair's.
void check_pair(const seq& q, const seq& t, const scoring_scheme& scheme, counts& seen) {
  const reference::dp_matrices dp = reference::fill(q, t, scheme);
  const best_cell best = reference::find_best(dp);
  if (best.score <= 0) return;
  const seq qp(q.begin(), q.begin() + best.query_end), tp(t.begin(), t.begin() + best.target_end);
  const box_extent want = reference_box(qp, tp, best.score, scheme);
  const std::optional<box_extent> got = pruned_reach(qp, tp, best.score, scheme, std::uint64_t(1) << 40);
  ASSERT_TRUE(got.has_value()) << "lengths " << q.size() << " x " << t.size() << ", score " << best.score;
  EXPECT_EQ(got->rows, want.rows);
  EXPECT_EQ(got->columns, want.columns);
  const alignment whole = reference::align(q, t, scheme);
  const seq qb(qp.end() - got->rows, qp.end()), tb(tp.end() - got->columns, tp.end());
  alignment boxed = reference::align(qb, tb, scheme);
  boxed.query_begin += best.query_end - got->rows;
  boxed.query_end += best.query_end - got->rows;
  boxed.target_begin += best.target_end - got->columns;
  boxed.target_end += best.target_end - got->columns;
  EXPECT_EQ(boxed.score, whole.score);
  EXPECT_EQ(boxed.query_begin, whole.query_begin);
  EXPECT_EQ(boxed.query_end, whole.query_end);
  EXPECT_EQ(boxed.target_begin, whole.target_begin);
  EXPECT_EQ(boxed.target_end, whole.target_end);
  EXPECT_EQ(boxed.ops, whole.ops);
  ++seen.pairs;
  if (got->rows * 4 < best.query_end || got->columns * 4 < best.target_end) ++seen.small_boxes;
}

TEST(CpuReach, BoxIsTheReversePassBoxOnRandomAndRelatedPairs) {
  std::mt19937 rng(20261127);
  const std::vector<scoring_scheme> schemes = {
      scoring::make_dna_scheme(2, -3, 5, 2),  scoring::make_dna_scheme(1, -1, 0, 1),
      scoring::make_dna_scheme(1, -3, 20, 1), scoring::make_dna_scheme(5, -4, 1, 0),
      scoring::make_protein_scheme("BLOSUM62", 11, 1), scoring::make_protein_scheme("BLOSUM62", 0, 1)};
  counts seen;
  for (const scoring_scheme& scheme : schemes) {
    const int letters = scheme.size();
    for (int k = 0; k < 24; ++k) {
      const std::size_t m = std::uniform_int_distribution<std::size_t>(1, 220)(rng);
      const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 260)(rng);
      // unrelated; a related stretch inside random flanks; a tandem repeat against one copy
      check_pair(random_seq(rng, m, letters), random_seq(rng, n, letters), scheme, seen);
      const seq core = random_seq(rng, m, letters);
      seq t = random_seq(rng, n / 2, letters);
      const seq copy = mutated(rng, core, 0.1 * (k % 4), letters);
      t.insert(t.end(), copy.begin(), copy.end());
      const seq tail = random_seq(rng, n / 2, letters);
      t.insert(t.end(), tail.begin(), tail.end());
      check_pair(core, t, scheme, seen);
      const seq unit = random_seq(rng, 1 + k % 9, letters);
      seq repeats;
      for (int r = 0; r < 12; ++r) repeats.insert(repeats.end(), unit.begin(), unit.end());
      check_pair(unit, repeats, scheme, seen);
      check_pair(repeats, unit, scheme, seen);
    }
  }
  EXPECT_GT(seen.pairs, 400);
  EXPECT_GT(seen.small_boxes, 50);  // the pruning's point: boxes far smaller than the prefixes
}

TEST(CpuReach, WeakHitDeepInLongPrefixesTouchesFewCells) {
  // A planted 40-residue match 6,000 residues into 6 kb sequences that are otherwise unrelated:
  // the reach window of its score is over 10^7 cells, the pruned pass stays under 10^5.
  std::mt19937 rng(7);
  const scoring_scheme scheme = scoring::make_dna_scheme(2, -3, 5, 2);
  seq q = random_seq(rng, 6000, 4), t = random_seq(rng, 6500, 4);
  const seq planted = random_seq(rng, 40, 4);
  q.insert(q.end(), planted.begin(), planted.end());
  t.insert(t.end(), planted.begin(), planted.end());
  // The planted match, perhaps extended by a lucky residue or two, is the pair's best.
  const reference::dp_matrices dp = reference::fill(q, t, scheme);
  const best_cell best = reference::find_best(dp);
  ASSERT_GE(best.score, 80);
  ASSERT_LT(best.score, 100);
  const seq qp(q.begin(), q.begin() + best.query_end), tp(t.begin(), t.begin() + best.target_end);
  // The reach window (db_align.hpp's reach_span): min(m, n) + (max_s · min(m, n) − S) / e residues of each prefix.
  const std::int64_t shorter = std::int64_t(std::min(qp.size(), tp.size()));
  const std::int64_t span = shorter + (scheme.max_score() * shorter - best.score) / scheme.gap_extend;
  EXPECT_GT(double(std::min<std::int64_t>(span, std::int64_t(qp.size()))) *
                double(std::min<std::int64_t>(span, std::int64_t(tp.size()))),
            1e7);
  const std::optional<box_extent> got = pruned_reach(qp, tp, best.score, scheme, 100'000);
  ASSERT_TRUE(got.has_value());
  const box_extent want = reference_box(qp, tp, best.score, scheme);
  EXPECT_EQ(got->rows, want.rows);
  EXPECT_EQ(got->columns, want.columns);
  EXPECT_GE(got->rows, 40);
  EXPECT_LT(got->rows, 200);
}

TEST(CpuReach, GivesUpOverBudgetOrWhenTheScoreIsNotTheBest) {
  std::mt19937 rng(11);
  const scoring_scheme scheme = scoring::make_dna_scheme(2, -3, 5, 2);
  const seq q = random_seq(rng, 400, 4);
  const seq t = mutated(rng, q, 0.02, 4);
  const reference::dp_matrices dp = reference::fill(q, t, scheme);
  const best_cell best = reference::find_best(dp);
  ASSERT_GT(best.score, 500);
  const seq qp(q.begin(), q.begin() + best.query_end), tp(t.begin(), t.begin() + best.target_end);
  EXPECT_TRUE(pruned_reach(qp, tp, best.score, scheme, std::uint64_t(1) << 30).has_value());
  EXPECT_FALSE(pruned_reach(qp, tp, best.score, scheme, 1000).has_value());      // a strong hit's band
  EXPECT_FALSE(pruned_reach(qp, tp, best.score - 1, scheme, 1 << 30).has_value());  // a better path exists
  EXPECT_FALSE(pruned_reach({}, tp, best.score, scheme, 1 << 30).has_value());
  EXPECT_FALSE(pruned_reach(qp, tp, 0, scheme, 1 << 30).has_value());
}

}  // namespace
}  // namespace swat

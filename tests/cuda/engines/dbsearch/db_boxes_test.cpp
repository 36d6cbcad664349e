// The hits' boxes aligned on the GPU (db_boxes.hpp) against the reference: seeded random pairs,
// related and unrelated, of lengths around the 128-row strips and their 4-row lanes, every test scheme (blastn's
// DNA, BLOSUM62, BLOSUM45, a 1/-1/0/1 DNA scheme full of ties), low-complexity repeats whose
// optimal paths tie, and gap costs at the extremes (no open cost; a large open cost). Each
// pair's best cell comes from the reference, its box from the reverse pass (db_align.hpp);
// the box aligned on the GPU, moved back, must be the reference's alignment of the whole pair
// (score, both ends, CIGAR), for boxes of one strip up to hundreds (a box's strips on many
// warps at once), also when the batches are cut small, and when each box is the hit's whole reach
// window (as the engine aligns its large hits). A score the box's last cell does not reach gives an alignment of
// score 0 (the caller's fallback).

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "cuda/engines/dbsearch/db_align.hpp"
#include "cuda/engines/dbsearch/db_boxes.hpp"
#include "engines/fast/fast_test_util.hpp"
#include "reference/reference.hpp"
#include "scoring/scoring.hpp"
#include "support/gpu_test.hpp"

namespace swat::dbsearch {
namespace {

using seqs_t = std::vector<std::vector<std::uint8_t>>;

std::string ops_text(const std::vector<cigar_op>& ops) {
  std::string text;
  for (const cigar_op& op : ops) text += std::to_string(op.length) + op.op;
  return text;
}

//! Checks align_boxes on every pair (q[k], t[k]) with a positive best score.
//! With `windows`, each box is the hit's whole reach window (as the engine aligns its large hits)
//! instead of the reverse pass's box.
void check_boxes(const seqs_t& qs, const seqs_t& ts, const scoring_scheme& s, const std::string& what,
                 std::uint64_t budget = std::uint64_t(1) << 30, bool windows = false) {
  std::vector<residue_span> qp, tp;
  std::vector<std::int32_t> scores;
  std::vector<alignment> want;
  for (std::size_t k = 0; k < qs.size(); ++k) {
    alignment a = reference::align(qs[k], ts[k], s);
    if (a.score <= 0 || a.score > 32767 - s.max_score()) continue;
    qp.push_back(residue_span(qs[k]).first(std::size_t(a.query_end)));
    tp.push_back(residue_span(ts[k]).first(std::size_t(a.target_end)));
    scores.push_back(a.score);
    want.push_back(std::move(a));
  }
  ASSERT_FALSE(want.empty()) << what;
  const auto& dev = swat::test::test_device();
  std::vector<box_extent> boxes = reverse_reach(qp, tp, scores, s, dev);
  if (windows) {
    const std::vector<residue_span> wq = reach_window(qp, tp, scores, s), wt = reach_window(tp, qp, scores, s);
    for (std::size_t k = 0; k < boxes.size(); ++k) {
      ASSERT_GE(std::int64_t(wq[k].size()), boxes[k].rows) << what << " pair " << k;
      ASSERT_GE(std::int64_t(wt[k].size()), boxes[k].columns) << what << " pair " << k;
      boxes[k] = box_extent{std::int64_t(wq[k].size()), std::int64_t(wt[k].size())};
    }
  }
  std::vector<residue_span> bq, bt;
  for (std::size_t k = 0; k < boxes.size(); ++k) {
    ASSERT_GT(boxes[k].rows, 0) << what << " pair " << k;
    bq.push_back(qp[k].last(std::size_t(boxes[k].rows)));
    bt.push_back(tp[k].last(std::size_t(boxes[k].columns)));
  }
  box_seconds seconds;
  const std::vector<alignment> got = align_boxes(bq, bt, scores, s, dev, budget, &seconds);
  ASSERT_EQ(got.size(), want.size());
  int wrong = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    alignment a = got[k];
    const std::int64_t dq = std::int64_t(qp[k].size()) - boxes[k].rows, dt = std::int64_t(tp[k].size()) - boxes[k].columns;
    a.query_begin += dq;
    a.query_end += dq;
    a.target_begin += dt;
    a.target_end += dt;
    if (a != want[k] && ++wrong <= 5)
      ADD_FAILURE() << what << " pair " << k << " (" << qs.size() << " pairs): got score " << a.score << " ["
                    << a.query_begin << "," << a.query_end << ")x[" << a.target_begin << "," << a.target_end << ") "
                    << ops_text(a.ops) << " want " << want[k].score << " [" << want[k].query_begin << ","
                    << want[k].query_end << ")x[" << want[k].target_begin << "," << want[k].target_end << ") "
                    << ops_text(want[k].ops);
  }
  EXPECT_EQ(wrong, 0) << what;
  if (budget < (std::uint64_t(1) << 20)) {
    EXPECT_GT(seconds.batches, 1u) << what;
  }
  EXPECT_FALSE(seconds.watchdog) << what;
}

TEST(DbBoxes, RandomAndRelatedPairsEveryScheme) {
  SWAT_REQUIRE_DEVICE();
  std::mt19937 rng(20261126);
  for (const scoring_scheme& s : fast::test::schemes()) {
    seqs_t qs, ts;
    // Boxes of one strip up to 21 strips, all in one batch: a large box's strips on many warps;
    // boxes whose last row is each of a lane's 4 rows, in the strip's first and last lanes.
    for (std::int64_t m : {1, 2, 3, 4, 5, 31, 63, 65, 126, 127, 128, 129, 130, 255, 256, 257, 383, 700, 1500, 2049, 2600}) {
      for (int rep = 0; rep < 3; ++rep) {
        const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 2 * m + 40)(rng);
        qs.push_back(fast::test::random_residues(rng, std::size_t(m), s));
        ts.push_back(fast::test::related_or_random(rng, qs.back(), n, s));
      }
    }
    const std::string what = "scheme " + std::to_string(s.gap_open) + "/" + std::to_string(s.gap_extend) +
                             (s.alphabet == alphabet_kind::dna ? " dna" : " protein");
    check_boxes(qs, ts, s, what);
    check_boxes(qs, ts, s, what + ", small batches", 16 << 10);
    check_boxes(qs, ts, s, what + ", reach windows as boxes", std::uint64_t(1) << 30, true);
  }
}

TEST(DbBoxes, RepeatsWhoseOptimalPathsTie) {
  SWAT_REQUIRE_DEVICE();
  std::mt19937 rng(7);
  for (const scoring_scheme& s : {scoring::make_dna_scheme(1, -1, 0, 1), scoring::make_dna_scheme(2, -3, 5, 2),
                                  scoring::make_dna_scheme(1, -2, 0, 2)}) {
    seqs_t qs, ts;
    for (int k = 0; k < 60; ++k) {
      const std::size_t period = 1 + std::size_t(k % 5);
      std::vector<std::uint8_t> q(20 + std::size_t(k) * 7), t(30 + std::size_t(k) * 11);
      for (std::size_t i = 0; i < q.size(); ++i) q[i] = std::uint8_t((i + std::size_t(k)) % period);
      for (std::size_t j = 0; j < t.size(); ++j) t[j] = std::uint8_t(j % period);
      if (k % 3 == 0) t[t.size() / 2] = 3;
      if (k % 4 == 1) q[q.size() / 3] = std::uint8_t((q[q.size() / 3] + 1) % 4);
      qs.push_back(std::move(q));
      ts.push_back(std::move(t));
    }
    check_boxes(qs, ts, s, "repeats, scheme " + std::to_string(s.gap_open) + "/" + std::to_string(s.gap_extend));
  }
}

TEST(DbBoxes, ExtremeGapCostsAndLongBoxes) {
  SWAT_REQUIRE_DEVICE();
  std::mt19937 rng(99);
  for (const scoring_scheme& s : {scoring::make_dna_scheme(5, -4, 0, 1), scoring::make_dna_scheme(1, -3, 40, 1),
                                  scoring::make_protein_scheme("BLOSUM62", 0, 1)}) {
    seqs_t qs, ts;
    for (std::int64_t m : {3000, 5000, 9000}) {
      qs.push_back(fast::test::random_residues(rng, std::size_t(m), s));
      ts.push_back(fast::test::related_or_random(rng, qs.back(), m + 200, s));
    }
    check_boxes(qs, ts, s, "gaps " + std::to_string(s.gap_open) + "/" + std::to_string(s.gap_extend));
    check_boxes(qs, ts, s, "gaps " + std::to_string(s.gap_open) + "/" + std::to_string(s.gap_extend) + ", reach windows",
                std::uint64_t(1) << 30, true);
  }
}

TEST(DbBoxes, AScoreTheLastCellDoesNotReachGivesScoreZero) {
  SWAT_REQUIRE_DEVICE();
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  const std::vector<std::uint8_t> q = {0, 1, 2, 3, 0, 1}, t = {0, 1, 2, 3, 0, 1};
  const std::vector<residue_span> qs{q, q}, ts{t, t};
  const std::vector<std::int32_t> scores{12, 13};  // 6 matches: 12
  const std::vector<alignment> got = align_boxes(qs, ts, scores, s, swat::test::test_device(), 1 << 20);
  EXPECT_EQ(got[0].score, 12);
  EXPECT_EQ(ops_text(got[0].ops), "6M");
  EXPECT_EQ(got[1].score, 0);
  EXPECT_TRUE(got[1].ops.empty());
}

}  // namespace
}  // namespace swat::dbsearch

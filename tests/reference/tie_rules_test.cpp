// Tie rules of common/traceback.hpp as the reference applies them. Expected values are worked
// out by hand in the comments.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reference/reference.hpp"
#include "reference_test_util.hpp"
#include "scoring/scoring.hpp"

namespace swat::reference {
namespace {

using test::encode;

struct outcome {
  std::int32_t score;
  std::int64_t query_begin, query_end, target_begin, target_end;
  const char* cigar;
};

void expect_alignment(const char* query, const char* target, const scoring_scheme& scheme,
                      const outcome& want) {
  SCOPED_TRACE(std::string(query) + " vs " + target);
  const auto q = encode(scheme.alphabet, query);
  const auto t = encode(scheme.alphabet, target);
  const alignment aln = align(q, t, scheme);
  EXPECT_EQ(aln.score, want.score);
  EXPECT_EQ(aln.query_begin, want.query_begin);
  EXPECT_EQ(aln.query_end, want.query_end);
  EXPECT_EQ(aln.target_begin, want.target_begin);
  EXPECT_EQ(aln.target_end, want.target_end);
  EXPECT_EQ(cigar_string(aln, q, t, scheme.alphabet, false), want.cigar);
  test::expect_consistent(aln, q, t, scheme);
}

TEST(tie_rules, cell_beats_orders_score_then_target_end_then_query_end) {
  EXPECT_TRUE(cell_beats(5, 9, 9, 4, 1, 1));
  EXPECT_FALSE(cell_beats(4, 1, 1, 5, 9, 9));
  EXPECT_TRUE(cell_beats(4, 9, 1, 4, 1, 2));   // same score: smaller j wins even with larger i
  EXPECT_FALSE(cell_beats(4, 1, 2, 4, 9, 1));
  EXPECT_TRUE(cell_beats(4, 1, 3, 4, 2, 3));   // same score and j: smaller i wins
  EXPECT_FALSE(cell_beats(4, 2, 3, 4, 1, 3));
  EXPECT_FALSE(cell_beats(4, 2, 3, 4, 2, 3));  // a cell does not beat itself
}

// ACTGA vs GATAC (2/-3/5/2): AC/AC ends at (i=2, j=5), GA/GA at (i=5, j=2), both 4, nothing
// higher. The smaller target end j = 2 wins although its query end is larger.
TEST(tie_rules, equal_scores_smallest_target_end_wins) {
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  const dp_matrices dp = reference::fill(encode(alphabet_kind::dna, "ACTGA"), encode(alphabet_kind::dna, "GATAC"), s);
  EXPECT_EQ(dp.H(2, 5), 4);
  EXPECT_EQ(dp.H(5, 2), 4);
  EXPECT_EQ(find_best(dp), (best_cell{4, 5, 2}));
  expect_alignment("ACTGA", "GATAC", s, {4, 3, 5, 0, 2, "2M"});
  expect_alignment("GATAC", "ACTGA", s, {4, 3, 5, 0, 2, "2M"});
}

// ACGAC vs AC: AC/AC ends at (2,2) and (5,2): same target end, the smaller query end wins.
TEST(tie_rules, equal_scores_and_target_end_smallest_query_end_wins) {
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  const dp_matrices dp = reference::fill(encode(alphabet_kind::dna, "ACGAC"), encode(alphabet_kind::dna, "AC"), s);
  EXPECT_EQ(dp.H(2, 2), 4);
  EXPECT_EQ(dp.H(5, 2), 4);
  EXPECT_EQ(find_best(dp), (best_cell{4, 2, 2}));
  expect_alignment("ACGAC", "AC", s, {4, 0, 2, 0, 2, "2M"});
}

// ACG vs ACCG, match 3, mismatch -1, open 1, extend 1 (a 1-gap costs 2). Best 7 at (3,4).
// At (2,3): diag = H(1,2) + 3 = 1 + 3 = 4 and E = H(2,2) - 2 = 6 - 2 = 4. The diagonal wins, so
// the path continues to (1,2), whose H = 1 comes from E (A against C costs -1): A-CG / ACCG,
// 1M1D2M. Preferring E at (2,3) would give AC-G / ACCG, 2M1D1M, same score.
TEST(tie_rules, diagonal_beats_gap_in_query_on_equal_h) {
  const scoring_scheme s = scoring::make_dna_scheme(3, -1, 1, 1);
  const dp_matrices dp = reference::fill(encode(alphabet_kind::dna, "ACG"), encode(alphabet_kind::dna, "ACCG"), s);
  EXPECT_EQ(dp.H(2, 3), 4);
  EXPECT_EQ(dp.E(2, 3), 4);
  EXPECT_EQ(dp.code[dp.index(2, 3)] & code_h_mask, code_diag);
  EXPECT_EQ(dp.code[dp.index(1, 2)] & code_h_mask, code_e);
  expect_alignment("ACG", "ACCG", s, {7, 0, 3, 0, 4, "1M1D2M"});
}

// The same pair transposed: at (3,2) diag = 4 = F, the diagonal wins: 1M1I2M.
TEST(tie_rules, diagonal_beats_gap_in_target_on_equal_h) {
  const scoring_scheme s = scoring::make_dna_scheme(3, -1, 1, 1);
  const dp_matrices dp = reference::fill(encode(alphabet_kind::dna, "ACCG"), encode(alphabet_kind::dna, "ACG"), s);
  EXPECT_EQ(dp.H(3, 2), 4);
  EXPECT_EQ(dp.F(3, 2), 4);
  EXPECT_EQ(dp.code[dp.index(3, 2)] & code_h_mask, code_diag);
  expect_alignment("ACCG", "ACG", s, {7, 0, 4, 0, 3, "1M1I2M"});
}

// Gap in query before gap in target: in tests/reference/fixtures_test.cpp (gap_beats_mismatches)
// H(4,5) = E = F = 4 has code 'e'. Here directly: a cell where E = F > diagonal.
TEST(tie_rules, gap_in_query_beats_gap_in_target_on_equal_h) {
  const scoring_scheme s = scoring::make_dna_scheme(3, -3, 1, 1);
  const dp_matrices dp = reference::fill(encode(alphabet_kind::dna, "ACGT"), encode(alphabet_kind::dna, "ACTTGT"), s);
  EXPECT_EQ(dp.E(4, 5), 4);
  EXPECT_EQ(dp.F(4, 5), 4);
  EXPECT_EQ(dp.H(4, 5), 4);
  EXPECT_EQ(dp.code[dp.index(4, 5)] & code_h_mask, code_e);
}

// CAT vs AACGAACT, match 4, mismatch -2, open 1, extend 1. Best 7 at (3,8), reached from
// (2,7) where H = E(2,7) = 3. E(2,7): opening from H(2,6) = 5 (C--A: 4 - 3 + 4) gives 5 - 2 = 3,
// extending E(2,6) = H(2,5) - 2 = 6 - 2 = 4 gives 4 - 1 = 3. Opening wins: C--A-T / CGAACT,
// 1M2D1M1D1M. Extending would give C-A--T, 1M1D1M2D1M, same score.
TEST(tie_rules, opening_beats_extending_in_query_gap) {
  const scoring_scheme s = scoring::make_dna_scheme(4, -2, 1, 1);
  const dp_matrices dp = reference::fill(encode(alphabet_kind::dna, "CAT"), encode(alphabet_kind::dna, "AACGAACT"), s);
  EXPECT_EQ(dp.H(2, 6), 5);
  EXPECT_EQ(dp.E(2, 6), 4);
  EXPECT_EQ(dp.E(2, 7), 3);
  EXPECT_EQ(dp.H(2, 7), 3);
  EXPECT_TRUE(dp.code[dp.index(2, 7)] & code_e_open);
  expect_alignment("CAT", "AACGAACT", s, {7, 0, 3, 2, 8, "1M2D1M1D1M"});
}

// Transposed: F(7,2) ties the same way, opening wins: 1M2I1M1I1M.
TEST(tie_rules, opening_beats_extending_in_target_gap) {
  const scoring_scheme s = scoring::make_dna_scheme(4, -2, 1, 1);
  const dp_matrices dp = reference::fill(encode(alphabet_kind::dna, "AACGAACT"), encode(alphabet_kind::dna, "CAT"), s);
  EXPECT_EQ(dp.F(7, 2), 3);
  EXPECT_TRUE(dp.code[dp.index(7, 2)] & code_f_open);
  expect_alignment("AACGAACT", "CAT", s, {7, 2, 8, 0, 3, "1M2I1M1I1M"});
}

}  // namespace
}  // namespace swat::reference

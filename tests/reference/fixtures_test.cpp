// Hand-checked fixtures for the scalar Gotoh reference (src/reference/). Every H, E and F value
// and every traceback code below was computed by hand from the recurrences in
// common/traceback.hpp (Gotoh 1982; a gap of length k costs open + k·extend), not produced by
// the code under test. Rows are query residues (i = 1..m), columns target residues (j = 1..n);
// row 0 and column 0 (H = 0, E = F = -infinity, code 0) are checked separately.
//
// Codes are written as three letters per cell:
//   1st  H source: '0' H = 0 (stop), 'd' diagonal, 'e' from E (gap in query), 'f' from F
//   2nd  E: 'o' opened here (H(i,j-1) - o - e ≥ E(i,j-1) - e), 'x' extended
//   3rd  F: 'o' opened here (H(i-1,j) - o - e ≥ F(i-1,j) - e), 'x' extended

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "reference/reference.hpp"
#include "reference_test_util.hpp"
#include "scoring/scoring.hpp"

namespace swat::reference {
namespace {

using test::encode;
using grid = std::vector<std::vector<std::int32_t>>;

struct fixture {
  std::string_view name;
  scoring_scheme scheme;
  std::string_view query;
  std::string_view target;
  grid h, e, f;
  std::vector<std::string_view> codes;  // one string per query row, cells separated by spaces
  std::int32_t score;
  std::int64_t query_begin, query_end, target_begin, target_end;  // 0-based half-open
  std::string_view cigar;
};

std::uint8_t parse_code(std::string_view cell) {
  std::uint8_t code = 0;
  switch (cell.at(0)) {
    case '0': code = code_zero; break;
    case 'd': code = code_diag; break;
    case 'e': code = code_e; break;
    case 'f': code = code_f; break;
    default: ADD_FAILURE() << "bad code cell " << cell;
  }
  if (cell.at(1) == 'o') code |= code_e_open;
  if (cell.at(2) == 'o') code |= code_f_open;
  return code;
}

std::string code_text(std::uint8_t code) {
  std::string s = "0def";
  return {s[code & code_h_mask], (code & code_e_open) ? 'o' : 'x', (code & code_f_open) ? 'o' : 'x'};
}

void check_fixture(const fixture& fx) {
  SCOPED_TRACE(std::string(fx.name));
  const alphabet_kind kind = fx.scheme.alphabet;
  const std::vector<std::uint8_t> q = encode(kind, fx.query);
  const std::vector<std::uint8_t> t = encode(kind, fx.target);
  const std::int64_t m = std::int64_t(q.size()), n = std::int64_t(t.size());
  ASSERT_EQ(std::int64_t(fx.h.size()), m);
  ASSERT_EQ(std::int64_t(fx.e.size()), m);
  ASSERT_EQ(std::int64_t(fx.f.size()), m);
  ASSERT_EQ(std::int64_t(fx.codes.size()), m);

  const dp_matrices dp = reference::fill(q, t, fx.scheme);
  ASSERT_EQ(dp.m, m);
  ASSERT_EQ(dp.n, n);
  for (std::int64_t j = 0; j <= n; ++j) {
    EXPECT_EQ(dp.H(0, j), 0);
    EXPECT_EQ(dp.E(0, j), minus_infinity);
    EXPECT_EQ(dp.F(0, j), minus_infinity);
    EXPECT_EQ(dp.code[dp.index(0, j)], 0);
  }
  for (std::int64_t i = 0; i <= m; ++i) {
    EXPECT_EQ(dp.H(i, 0), 0);
    EXPECT_EQ(dp.E(i, 0), minus_infinity);
    EXPECT_EQ(dp.F(i, 0), minus_infinity);
    EXPECT_EQ(dp.code[dp.index(i, 0)], 0);
  }
  for (std::int64_t i = 1; i <= m; ++i) {
    ASSERT_EQ(std::int64_t(fx.h[i - 1].size()), n);
    ASSERT_EQ(std::int64_t(fx.e[i - 1].size()), n);
    ASSERT_EQ(std::int64_t(fx.f[i - 1].size()), n);
    std::istringstream cells{std::string(fx.codes[i - 1])};
    for (std::int64_t j = 1; j <= n; ++j) {
      std::string cell;
      ASSERT_TRUE(cells >> cell) << "row " << i << " has too few codes";
      EXPECT_EQ(dp.H(i, j), fx.h[i - 1][j - 1]) << "H(" << i << "," << j << ")";
      EXPECT_EQ(dp.E(i, j), fx.e[i - 1][j - 1]) << "E(" << i << "," << j << ")";
      EXPECT_EQ(dp.F(i, j), fx.f[i - 1][j - 1]) << "F(" << i << "," << j << ")";
      EXPECT_EQ(code_text(dp.code[dp.index(i, j)]), code_text(parse_code(cell)))
          << "code(" << i << "," << j << ")";
    }
  }

  const best_cell best = find_best(dp);
  EXPECT_EQ(best.score, fx.score);
  EXPECT_EQ(best.query_end, fx.query_end);
  EXPECT_EQ(best.target_end, fx.target_end);

  const alignment aln = align(q, t, fx.scheme);
  EXPECT_EQ(aln.score, fx.score);
  EXPECT_EQ(aln.query_begin, fx.query_begin);
  EXPECT_EQ(aln.query_end, fx.query_end);
  EXPECT_EQ(aln.target_begin, fx.target_begin);
  EXPECT_EQ(aln.target_end, fx.target_end);
  EXPECT_EQ(cigar_string(aln, q, t, kind, false), fx.cigar);
  test::expect_consistent(aln, q, t, fx.scheme);
}

// clang-format off
// DNA, blastn defaults (match 2, mismatch -3, open 5, extend 2: a 1-gap costs 7).
// Best: ACG/ACG, 6 at (3,4). Gaps never pay here; E/F show opens, extends and open/extend ties
// (E(1,4), F(3,2): -7 both ways, open wins).
TEST(reference_fixture, dna_default) {
  check_fixture({
      .name = "dna_default",
      .scheme = scoring::make_dna_scheme(2, -3, 5, 2),
      .query = "ACGT",
      .target = "TACGA",
      //      T    A    C    G    A
      .h = {{ 0,   2,   0,   0,   2},    // A
            { 0,   0,   4,   0,   0},    // C
            { 0,   0,   0,   6,   0},    // G
            { 2,   0,   0,   0,   3}},   // T
      .e = {{-7,  -7,  -5,  -7,  -7},
            {-7,  -7,  -7,  -3,  -5},
            {-7,  -7,  -7,  -7,  -1},
            {-7,  -5,  -7,  -7,  -7}},
      .f = {{-7,  -7,  -7,  -7,  -7},
            {-7,  -5,  -7,  -7,  -5},
            {-7,  -7,  -3,  -7,  -7},
            {-7,  -7,  -5,  -1,  -7}},
      .codes = {"0oo doo 0oo 0oo doo",
                "0oo 0oo doo 0oo 0xo",
                "0oo 0oo 0oo doo 0oo",
                "doo 0oo 0ox 0oo doo"},
      .score = 6, .query_begin = 0, .query_end = 3, .target_begin = 1, .target_end = 4,
      .cigar = "3M",
  });
}

// Protein, BLOSUM62, blastp defaults (open 11, extend 1: a 1-gap costs 12).
// AW-HE / AWGHE: 4 + 11 - 12 + 8 + 5 = 16 beats AW alone (15). H(4,4) = 1 is a diagonal/F tie
// (diagonal wins); H(4,3) comes from an extended F.
TEST(reference_fixture, protein_blosum62) {
  check_fixture({
      .name = "protein_blosum62",
      .scheme = scoring::make_protein_scheme("BLOSUM62", 11, 1),
      .query = "AWHE",
      .target = "GAWGHE",
      //       G    A    W    G    H    E
      .h = {{  0,   4,   0,   0,   0,   0},    // A
            {  0,   0,  15,   3,   2,   1},    // W
            {  0,   0,   3,  13,  11,   2},    // H
            {  0,   0,   2,   1,  13,  16}},   // E
      .e = {{-12, -12,  -8,  -9, -10, -11},
            {-12, -12, -12,   3,   2,   1},
            {-12, -12, -12,  -9,   1,   0},
            {-12, -12, -12, -10, -11,   1}},
      .f = {{-12, -12, -12, -12, -12, -12},
            {-12,  -8, -12, -12, -12, -12},
            {-12,  -9,   3,  -9, -10, -11},
            {-12, -10,   2,   1,  -1, -10}},
      .codes = {"0oo doo 0oo 0xo 0xo 0xo",
                "0oo 0oo doo eoo exo exo",
                "0oo 0ox foo doo doo dxo",
                "0oo 0ox fox doo doo doo"},
      .score = 16, .query_begin = 0, .query_end = 4, .target_begin = 1, .target_end = 6,
      .cigar = "2M1D2M",
  });
}

// Two end cells share the best score: AC/AC ends at (2,2) and at (2,5). The smaller target end
// wins.
TEST(reference_fixture, tie_between_end_cells) {
  check_fixture({
      .name = "tie_between_end_cells",
      .scheme = scoring::make_dna_scheme(2, -3, 5, 2),
      .query = "AC",
      .target = "ACGAC",
      //      A    C    G    A    C
      .h = {{ 2,   0,   0,   2,   0},    // A
            { 0,   4,   0,   0,   4}},   // C
      .e = {{-7,  -5,  -7,  -7,  -5},
            {-7,  -7,  -3,  -5,  -7}},
      .f = {{-7,  -7,  -7,  -7,  -7},
            {-5,  -7,  -7,  -5,  -7}},
      .codes = {"doo 0oo 0oo doo 0oo",
                "0oo doo 0oo 0xo doo"},
      .score = 4, .query_begin = 0, .query_end = 2, .target_begin = 0, .target_end = 2,
      .cigar = "2M",
  });
}

// A 2-residue gap beats aligning through mismatches: match 3, mismatch -3, open 1, extend 1.
// AC--GT / ACTTGT: 12 - (1 + 2·1) = 9; the ungapped ACGT/ACTT scores 6. H(4,5) = 4 is an E/F
// tie (E wins), H(3,4) = 1 a diagonal/E/F tie (diagonal wins).
TEST(reference_fixture, gap_beats_mismatches) {
  check_fixture({
      .name = "gap_beats_mismatches",
      .scheme = scoring::make_dna_scheme(3, -3, 1, 1),
      .query = "ACGT",
      .target = "ACTTGT",
      //      A    C    T    T    G    T
      .h = {{ 3,   1,   0,   0,   0,   0},    // A
            { 1,   6,   4,   3,   2,   1},    // C
            { 0,   4,   3,   1,   6,   4},    // G
            { 0,   3,   7,   6,   4,   9}},   // T
      .e = {{-2,   1,   0,  -1,  -2,  -2},
            {-2,  -1,   4,   3,   2,   1},
            {-2,  -2,   2,   1,   0,   4},
            {-2,  -2,   1,   5,   4,   3}},
      .f = {{-2,  -2,  -2,  -2,  -2,  -2},
            { 1,  -1,  -2,  -2,  -2,  -2},
            { 0,   4,   2,   1,   0,  -1},
            {-1,   3,   1,   0,   4,   2}},
      .codes = {"doo eoo 0xo 0xo 0oo 0oo",
                "foo doo eoo exo exo exo",
                "0ox foo doo doo dxo eoo",
                "0ox fox doo dox eoo dxo"},
      .score = 9, .query_begin = 0, .query_end = 4, .target_begin = 0, .target_end = 6,
      .cigar = "2M2D2M",
  });
}

// clang-format on

// DNA N scores a mismatch against everything, N included (SeqAn3 would score N/N as a match).
// ACNGT/ACNGT: 2 + 2 - 3 + 2 + 2 = 5 along the diagonal (8 if N/N matched).
TEST(reference_fixture, dna_n_is_a_mismatch_even_against_n) {
  const scoring_scheme scheme = scoring::make_dna_scheme(2, -3, 5, 2);
  const std::vector<std::uint8_t> q = encode(alphabet_kind::dna, "ACNGT");
  const dp_matrices dp = reference::fill(q, q, scheme);
  EXPECT_EQ(dp.H(1, 1), 2);
  EXPECT_EQ(dp.H(2, 2), 4);
  EXPECT_EQ(dp.H(3, 3), 1);
  EXPECT_EQ(dp.H(4, 4), 3);
  EXPECT_EQ(dp.H(5, 5), 5);
  for (std::int64_t j = 1; j <= 5; ++j) EXPECT_LE(dp.H(3, j), 1) << "row N never gains";
  const alignment aln = align(q, q, scheme);
  EXPECT_EQ(aln.score, 5);
  EXPECT_EQ(cigar_string(aln, q, q, alphabet_kind::dna, false), "5M");
  EXPECT_EQ(cigar_string(aln, q, q, alphabet_kind::dna, true), "2=1X2=");

  const std::vector<std::uint8_t> only_n = encode(alphabet_kind::dna, "NNNN");
  const alignment none = align(only_n, only_n, scheme);
  EXPECT_EQ(none, alignment{}) << "all-N sequences have no local alignment";
}

}  // namespace
}  // namespace swat::reference

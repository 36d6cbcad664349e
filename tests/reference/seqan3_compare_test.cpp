// The scalar reference against SeqAn3's own pairwise local alignment (seqan3::align_pairwise,
// method_local, gap_cost_affine) on seeded random pairs, DNA and protein. SeqAn3 appears in this
// test file only.
//
// Gap convention: SeqAn3 3.x scores a gap of n characters as open_score + n * extension_score
// (align_config_gap_cost_affine.hpp), the same as ours, so open_score = -gap_open and
// extension_score = -gap_extend; gap_convention_matches_seqan3 checks it on a hand case.
// DNA uses dna4 (A C G T only): SeqAn3's nucleotide scheme scores N/N as a match, ours as a
// mismatch (N is covered by hand in fixtures_test.cpp).

#include <gtest/gtest.h>

#include <random>
#include <seqan3/alignment/configuration/all.hpp>
#include <seqan3/alignment/pairwise/align_pairwise.hpp>
#include <seqan3/alignment/scoring/aminoacid_scoring_scheme.hpp>
#include <seqan3/alignment/scoring/nucleotide_scoring_scheme.hpp>
#include <seqan3/alphabet/aminoacid/aa27.hpp>
#include <seqan3/alphabet/nucleotide/dna4.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "reference/reference.hpp"
#include "reference_test_util.hpp"
#include "scoring/scoring.hpp"

namespace swat::reference {
namespace {

using ranks = std::vector<std::uint8_t>;

// Score and end cell (1-based DP indices) from SeqAn3 for one pair of rank sequences.
struct seqan3_result {
  std::int32_t score;
  std::int64_t query_end, target_end;
};

template <typename alphabet_t, typename scheme_t>
seqan3_result seqan3_align(const ranks& query, const ranks& target, const scheme_t& scheme,
                           const scoring_scheme& ours) {
  auto to_seqan = [](const ranks& r) {
    std::vector<alphabet_t> s(r.size());
    for (std::size_t k = 0; k < r.size(); ++k) s[k].assign_rank(r[k]);
    return s;
  };
  const std::vector<alphabet_t> q = to_seqan(query), t = to_seqan(target);
  const auto config = seqan3::align_cfg::method_local{} | seqan3::align_cfg::scoring_scheme{scheme} |
                      seqan3::align_cfg::gap_cost_affine{seqan3::align_cfg::open_score{-ours.gap_open},
                                                         seqan3::align_cfg::extension_score{-ours.gap_extend}} |
                      seqan3::align_cfg::output_score{} | seqan3::align_cfg::output_end_position{};
  for (const auto& result : seqan3::align_pairwise(std::tie(q, t), config))
    return {std::int32_t(result.score()), std::int64_t(result.sequence1_end_position()),
            std::int64_t(result.sequence2_end_position())};
  ADD_FAILURE() << "SeqAn3 returned no result";
  return {};
}

seqan3::nucleotide_scoring_scheme<int> seqan3_dna(int match, int mismatch) {
  return seqan3::nucleotide_scoring_scheme<int>{seqan3::match_score{match}, seqan3::mismatch_score{mismatch}};
}

// SeqAn3 scheme with exactly our matrix (same aa27 ranks), so scores must agree bit for bit.
seqan3::aminoacid_scoring_scheme<int> seqan3_protein(const scoring_scheme& ours) {
  seqan3::aminoacid_scoring_scheme<int>::matrix_type m{};
  for (int a = 0; a < protein_size; ++a)
    for (int b = 0; b < protein_size; ++b) m[a][b] = ours.score(a, b);
  return seqan3::aminoacid_scoring_scheme<int>{m};
}

// Lengths 0–300 with the edge sizes 0, 1, 31, 32, 33 (and other tile sizes ±1) drawn often.
std::size_t draw_length(std::mt19937_64& rng) {
  static constexpr std::size_t special[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 300};
  if (rng() % 3 == 0) return special[rng() % std::size(special)];
  return rng() % 301;
}

ranks random_ranks(std::mt19937_64& rng, std::size_t length, int alphabet_size) {
  ranks r(length);
  for (auto& x : r) x = std::uint8_t(rng() % alphabet_size);
  return r;
}

// A relative of source: ~15% substitutions, ~5% insertions and deletions (runs of 1–6).
ranks mutate(std::mt19937_64& rng, const ranks& source, int alphabet_size) {
  ranks out;
  for (std::size_t k = 0; k < source.size(); ++k) {
    const unsigned roll = rng() % 100;
    if (roll < 15) {
      out.push_back(std::uint8_t(rng() % alphabet_size));
    } else if (roll < 18) {
      for (unsigned run = 1 + rng() % 6; run > 0; --run) out.push_back(std::uint8_t(rng() % alphabet_size));
      out.push_back(source[k]);
    } else if (roll < 20) {
      k += rng() % 6;
    } else {
      out.push_back(source[k]);
    }
  }
  if (out.size() > 300) out.resize(300);
  return out;
}

// Runs the reference step by step, checks it against SeqAn3 and its own invariants.
template <typename alphabet_t, typename scheme_t>
bool compare_pair(const ranks& q, const ranks& t, const scoring_scheme& ours, const scheme_t& theirs,
                  bool check_transpose) {
  const dp_matrices dp = reference::fill(q, t, ours);
  const best_cell best = find_best(dp);
  const alignment aln =
      walk_traceback(best, [&](std::int64_t i, std::int64_t j) { return dp.code[dp.index(i, j)]; });
  const seqan3_result expected = seqan3_align<alphabet_t>(q, t, theirs, ours);

  EXPECT_EQ(best.score, expected.score) << "m=" << q.size() << " n=" << t.size();
  if (best.score != expected.score) return false;
  EXPECT_EQ(aln.score, best.score);
  EXPECT_EQ(aln.query_end, best.query_end);
  EXPECT_EQ(aln.target_end, best.target_end);
  test::expect_consistent(aln, q, t, ours);
  if (expected.score > 0) {  // SeqAn3 may break ties differently, but its end cell has the score
    EXPECT_LE(expected.query_end, dp.m);
    EXPECT_LE(expected.target_end, dp.n);
    if (expected.query_end <= dp.m && expected.target_end <= dp.n) {
      EXPECT_EQ(dp.H(expected.query_end, expected.target_end), expected.score);
    }
  }
  if (check_transpose) {  // symmetric matrices: H transposes, E and F swap
    const dp_matrices tr = reference::fill(t, q, ours);
    for (std::int64_t i = 0; i <= dp.m; ++i)
      for (std::int64_t j = 0; j <= dp.n; ++j)
        if (dp.H(i, j) != tr.H(j, i) || dp.E(i, j) != tr.F(j, i) || dp.F(i, j) != tr.E(j, i)) {
          ADD_FAILURE() << "transposed fill differs at (" << i << "," << j << ")";
          return false;
        }
  }
  return aln.ops.size() > 1;  // gapped
}

// Compares `pairs` seeded random pairs (half unrelated, half a mutated copy); returns how many
// optimal alignments had gaps, so a test can check that gaps were exercised at all.
template <typename alphabet_t, typename scheme_t>
int run_random_pairs(std::uint64_t seed, int pairs, int alphabet_size, const scoring_scheme& ours,
                     const scheme_t& theirs) {
  std::mt19937_64 rng(seed);
  int gapped = 0;
  for (int p = 0; p < pairs; ++p) {
    const ranks q = random_ranks(rng, draw_length(rng), alphabet_size);
    const ranks t = (p % 2 == 0) ? random_ranks(rng, draw_length(rng), alphabet_size) : mutate(rng, q, alphabet_size);
    SCOPED_TRACE("seed " + std::to_string(seed) + " pair " + std::to_string(p));
    gapped += compare_pair<alphabet_t>(q, t, ours, theirs, p % 10 == 0);
    if (::testing::Test::HasFailure()) break;  // one reported pair is enough
  }
  return gapped;
}

TEST(reference_vs_seqan3, gap_convention_matches_seqan3) {
  // X G Y vs X Y with X = ACGTTGCA, Y = CTAGGATC (2/-3/5/2): 16 matches and one 1-gap,
  // 32 - (5 + 1·2) = 25 (ungapped, X or Y alone gives 16). Under the pre-3.0 SeqAn convention
  // (open + (n-1)·extend) it would be 27. With GGG: 32 - (5 + 3·2) = 21 (old convention: 23).
  const scoring_scheme ours = scoring::make_dna_scheme(2, -3, 5, 2);
  const ranks t = test::encode(alphabet_kind::dna, "ACGTTGCACTAGGATC");
  const ranks q1 = test::encode(alphabet_kind::dna, "ACGTTGCAGCTAGGATC");
  const ranks q3 = test::encode(alphabet_kind::dna, "ACGTTGCAGGGCTAGGATC");
  EXPECT_EQ(align(q1, t, ours).score, 25);
  EXPECT_EQ(seqan3_align<seqan3::dna4>(q1, t, seqan3_dna(2, -3), ours).score, 25);
  EXPECT_EQ(align(q3, t, ours).score, 21);
  EXPECT_EQ(seqan3_align<seqan3::dna4>(q3, t, seqan3_dna(2, -3), ours).score, 21);
  EXPECT_EQ(cigar_string(align(q3, t, ours), q3, t, alphabet_kind::dna, false), "8M3I8M");
}

TEST(reference_vs_seqan3, dna_default_scheme) {
  const scoring_scheme ours = scoring::make_dna_scheme(2, -3, 5, 2);
  EXPECT_GT(run_random_pairs<seqan3::dna4>(1, 700, 4, ours, seqan3_dna(2, -3)), 70);
}

TEST(reference_vs_seqan3, dna_other_schemes) {
  const scoring_scheme linear = scoring::make_dna_scheme(1, -1, 0, 1);
  EXPECT_GT(run_random_pairs<seqan3::dna4>(2, 200, 4, linear, seqan3_dna(1, -1)), 20);
  const scoring_scheme cheap_open = scoring::make_dna_scheme(3, 0, 1, 2);
  EXPECT_GT(run_random_pairs<seqan3::dna4>(3, 200, 4, cheap_open, seqan3_dna(3, 0)), 20);
}

TEST(reference_vs_seqan3, protein_blosum62) {
  const scoring_scheme ours = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  EXPECT_GT(run_random_pairs<seqan3::aa27>(4, 700, protein_size, ours, seqan3_protein(ours)), 70);
}

TEST(reference_vs_seqan3, protein_other_matrices) {
  const scoring_scheme pam30 = scoring::make_protein_scheme("PAM30", 9, 1);
  EXPECT_GT(run_random_pairs<seqan3::aa27>(5, 150, protein_size, pam30, seqan3_protein(pam30)), 15);
  const scoring_scheme blosum45 = scoring::make_protein_scheme("BLOSUM45", 0, 3);
  EXPECT_GT(run_random_pairs<seqan3::aa27>(6, 150, protein_size, blosum45, seqan3_protein(blosum45)), 15);
}

}  // namespace
}  // namespace swat::reference

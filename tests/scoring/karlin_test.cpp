// Karlin–Altschul parameters: NCBI tables found by matrix contents, BLAST's length adjustment
// and E-values (numbers from blastn/blastp 2.12 runs), and the island-method estimate checked
// against the tables.

#include "scoring/karlin.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "scoring/scoring.hpp"

namespace swat::scoring {
namespace {

TEST(karlin_tables, protein_parameters_by_matrix_contents) {
  const auto p = published_karlin_params(make_protein_scheme("BLOSUM62", 11, 1));
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->lambda, 0.267);
  EXPECT_DOUBLE_EQ(p->k, 0.041);
  EXPECT_DOUBLE_EQ(p->alpha, 1.9);
  EXPECT_DOUBLE_EQ(p->beta, -30);
  EXPECT_EQ(p->source, karlin_source::ncbi_table);
  EXPECT_NE(p->origin.find("BLOSUM62, gap 11/1"), std::string::npos) << p->origin;
  EXPECT_DOUBLE_EQ(published_karlin_params(make_protein_scheme("BLOSUM62", 10, 1))->lambda, 0.243);
  EXPECT_DOUBLE_EQ(published_karlin_params(make_protein_scheme("PAM30", 9, 1))->k, 0.11);
  EXPECT_DOUBLE_EQ(published_karlin_params(make_protein_scheme("BLOSUM45", 14, 2))->lambda, 0.195);
  EXPECT_FALSE(published_karlin_params(make_protein_scheme("BLOSUM62", 14, 3)));  // not tabulated

  // The name does not matter, the 20x20 standard scores do; X, B, Z, * do not.
  scoring_scheme renamed = make_protein_scheme("BLOSUM62", 11, 1);
  renamed.matrix_name = "my_matrix.txt";
  const std::uint8_t x = protein_rank_table()['X'], a = protein_rank_table()['A'], w = protein_rank_table()['W'];
  renamed.matrix[x * matrix_stride + a] = renamed.matrix[a * matrix_stride + x] = 0;
  ASSERT_TRUE(published_karlin_params(renamed));
  EXPECT_DOUBLE_EQ(published_karlin_params(renamed)->lambda, 0.267);
  renamed.matrix[w * matrix_stride + a] = renamed.matrix[a * matrix_stride + w] = 0;
  EXPECT_FALSE(published_karlin_params(renamed));
}

TEST(karlin_tables, dna_parameters_follow_blastn) {
  const auto p = published_karlin_params(make_dna_scheme(2, -3, 5, 2));
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->lambda, 0.625);
  EXPECT_DOUBLE_EQ(p->k, 0.41);
  EXPECT_TRUE(p->even_scores_only);
  EXPECT_DOUBLE_EQ(published_karlin_params(make_dna_scheme(1, -2, 2, 2))->lambda, 1.33);
  EXPECT_FALSE(published_karlin_params(make_dna_scheme(1, -2, 2, 2))->even_scores_only);
  // 4/-6 is 2/-3 scaled by 2: gap costs scale too, λ and α shrink by 2 (blastn's gcd rule).
  const auto scaled = published_karlin_params(make_dna_scheme(4, -6, 10, 4));
  ASSERT_TRUE(scaled);
  EXPECT_DOUBLE_EQ(scaled->lambda, 0.3125);
  EXPECT_DOUBLE_EQ(scaled->alpha, 0.4);
  EXPECT_DOUBLE_EQ(scaled->k, 0.41);
  EXPECT_FALSE(published_karlin_params(make_dna_scheme(4, -6, 5, 2)));
  EXPECT_FALSE(published_karlin_params(make_dna_scheme(2, -3, 4, 1)));
  EXPECT_FALSE(published_karlin_params(make_dna_scheme(7, -9, 5, 2)));
}

// blastn -task blastn, 48-residue query against one 80-residue subject, score 96:
// "Effective search space used: 2993" (= 41 x 73), Expect 1.07e-23, 87.8 bits.
TEST(karlin_math, matches_blastn) {
  const karlin_params p = *published_karlin_params(make_dna_scheme(2, -3, 5, 2));
  EXPECT_EQ(length_adjustment(p, 48, 80, 1), 7);
  EXPECT_DOUBLE_EQ(effective_search_space(p, 48, 80, 1), 2993.0);
  EXPECT_NEAR(std::exp(ln_evalue(p, 96, 2993)), 1.07e-23, 0.005e-23);
  EXPECT_NEAR(bit_score(p, 96), 87.8, 0.05);
  EXPECT_DOUBLE_EQ(ln_evalue(p, 97, 2993), ln_evalue(p, 96, 2993));  // odd rounds down
}

// blastp -comp_based_stats 0, SARS-CoV-2 spike (1,273 aa) against 2 spikes of 2,524 aa in all:
// "Effective search space used: 2949960" = (1273 - 53) x (2524 - 2 x 53).
TEST(karlin_math, matches_blastp) {
  const karlin_params p = *published_karlin_params(make_protein_scheme("BLOSUM62", 11, 1));
  EXPECT_EQ(length_adjustment(p, 1273, 2524, 2), 53);
  EXPECT_DOUBLE_EQ(effective_search_space(p, 1273, 2524, 2), 2949960.0);
  EXPECT_NEAR(bit_score(p, 6540), 2523.8, 0.05);  // blastp prints 2523: it truncates above 99.9
  // A search space too small for any correction, and a huge one.
  EXPECT_EQ(length_adjustment(p, 5, 5, 1), 0);
  EXPECT_GT(length_adjustment(p, 300, 100'000'000'000ull, 300'000'000), 50);
}

TEST(karlin_math, evalues_far_below_the_double_range_stay_finite) {
  const karlin_params p = *published_karlin_params(make_dna_scheme(2, -3, 5, 2));
  const double ln_e = ln_evalue(p, 60000, 1e9);
  EXPECT_TRUE(std::isfinite(ln_e));
  EXPECT_NEAR(ln_e, std::log(0.41) + std::log(1e9) - 0.625 * 60000, 1e-6);
}

TEST(karlin_math, min_score_for_evalue_is_the_threshold) {
  for (const karlin_params& p : {*published_karlin_params(make_dna_scheme(2, -3, 5, 2)),
                                 *published_karlin_params(make_protein_scheme("BLOSUM62", 11, 1))})
    for (double e : {10.0, 1e-3, 1e-50}) {
      const std::int64_t s = min_score_for_evalue(p, e, 1e7);
      EXPECT_LE(ln_evalue(p, s, 1e7), std::log(e));
      if (s > 1) {
        EXPECT_GT(ln_evalue(p, s - 1, 1e7), std::log(e));
      }
    }
}

TEST(karlin_estimate, agrees_with_the_ncbi_tables) {
  for (const scoring_scheme& s : {make_protein_scheme("BLOSUM62", 11, 1), make_protein_scheme("BLOSUM62", 7, 2),
                                  make_protein_scheme("BLOSUM80", 10, 1), make_dna_scheme(1, -2, 2, 2),
                                  make_dna_scheme(5, -4, 10, 6)}) {
    const karlin_params table = *published_karlin_params(s);
    const karlin_params e = estimate_karlin_params(s);
    SCOPED_TRACE(s.matrix_name + " " + std::to_string(s.gap_open) + "/" + std::to_string(s.gap_extend));
    EXPECT_EQ(e.source, karlin_source::estimated);
    EXPECT_NEAR(e.lambda, table.lambda, 0.08 * table.lambda);
    EXPECT_GT(e.k, table.k / 2.5);
    EXPECT_LT(e.k, table.k * 2.5);
    // The length correction where it matters (a score 40 bits above the threshold).
    const double score = 40 / table.lambda;
    EXPECT_NEAR(e.alpha * score + e.beta, table.alpha * score + table.beta, 0.3 * (table.alpha * score));
    EXPECT_NE(e.origin.find("island"), std::string::npos);
  }
}

TEST(karlin_estimate, is_reproducible_and_used_only_without_a_table) {
  const scoring_scheme s = make_protein_scheme("BLOSUM62", 14, 3);
  const karlin_params a = estimate_karlin_params(s), b = karlin_params_for(s);
  EXPECT_EQ(a.lambda, b.lambda);
  EXPECT_EQ(a.k, b.k);
  EXPECT_EQ(a.origin, b.origin);
  EXPECT_GT(a.lambda, 0.267);  // dearer gaps: closer to the ungapped 0.3176
  EXPECT_LT(a.lambda, 0.3176 * 1.05);
  EXPECT_EQ(karlin_params_for(make_dna_scheme(2, -3, 5, 2)).source, karlin_source::ncbi_table);
}

TEST(karlin_estimate, refuses_schemes_without_a_logarithmic_regime) {
  EXPECT_THROW(estimate_karlin_params(make_dna_scheme(1, 0, 5, 2)), usage_error);   // E[score] > 0
  EXPECT_THROW(estimate_karlin_params(make_dna_scheme(1, -1, 0, 1)), usage_error);  // gaps too cheap
  try {
    estimate_karlin_params(make_protein_scheme("BLOSUM62", 0, 1));
    ADD_FAILURE() << "no error";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("gap 0/1"), std::string::npos) << e.what();
  }
}

TEST(karlin, describe_names_the_source) {
  const std::string d = describe(*published_karlin_params(make_dna_scheme(2, -3, 5, 2)));
  EXPECT_NE(d.find("lambda=0.625 K=0.41"), std::string::npos) << d;
  EXPECT_NE(d.find("NCBI BLAST table: blastn reward 2 penalty -3, gap 5/2"), std::string::npos) << d;
}

}  // namespace
}  // namespace swat::scoring

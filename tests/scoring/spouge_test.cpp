// Spouge's finite-size correction (spouge.cpp): the Gumbel parameters BLAST+ derives from its
// tables, E-values against strings blastp 2.12 printed, the log-space tail, and the --evalue
// floor over a range of target lengths.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "scoring/karlin.hpp"
#include "scoring/scoring.hpp"

namespace swat::scoring {
namespace {

karlin_params builtin(const char* matrix, int open, int extend) {
  const std::optional<karlin_params> p = published_karlin_params(make_protein_scheme(matrix, open, extend));
  EXPECT_TRUE(p && p->gumbel) << matrix << " " << open << "/" << extend;
  return p ? *p : karlin_params{};
}

//! BLAST's tabular E-value text (output/detail.cpp has the writer's copy).
std::string blast_text(double e) {
  char buf[64];
  if (e < 1e-180) return "0.0";
  std::snprintf(buf, sizeof buf, e < 0.0009 ? "%.2e" : e < 0.1 ? "%4.3f" : e < 1 ? "%3.2f" : e < 10 ? "%2.1f" : "%2.0f", e);
  return buf;
}

TEST(spouge, gumbel_parameters_as_blast_derives_them) {
  // Blast_GumbelBlkLoadFromTables, BLOSUM62 11/1: G = 12, a_un = 0.7916, Alpha_un = 4.96466.
  const karlin_params p = builtin("BLOSUM62", 11, 1);
  ASSERT_TRUE(p.gumbel);
  EXPECT_DOUBLE_EQ(p.gumbel->a, 1.9);
  EXPECT_NEAR(p.gumbel->b, -26.6016, 1e-9);
  EXPECT_DOUBLE_EQ(p.gumbel->alpha, 42.6028);
  EXPECT_NEAR(p.gumbel->beta, -903.31536, 1e-9);
  EXPECT_DOUBLE_EQ(p.gumbel->sigma, 43.6362);
  EXPECT_NEAR(p.gumbel->tau, -928.11696, 1e-9);
}

TEST(spouge, every_builtin_row_has_it_and_matrix_files_do_not) {
  for (const std::string& m : builtin_matrix_names()) {
    const std::optional<karlin_params> p = published_karlin_params(make_protein_scheme(m, 11, 1));
    if (p) {
      EXPECT_TRUE(p->gumbel) << m;
    }
  }
  // Rows BLAST+ 2.12 accepts that the classic tables here lacked before.
  EXPECT_TRUE(builtin("PAM30", 14, 2).gumbel);
  EXPECT_TRUE(builtin("PAM70", 12, 3).gumbel);
  // The same scores from a file: the classic formula with BLOSUM62's lambda and K.
  scoring_scheme copy = make_protein_scheme("BLOSUM62", 11, 1);
  copy.matrix_name = "my_blosum62.txt";
  const std::optional<karlin_params> p = published_karlin_params(copy);
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->lambda, 0.267);
  EXPECT_FALSE(p->gumbel);
  // … also a file named like the built-in matrix (NCBI's own BLOSUM62 file, say).
  scoring_scheme named = make_protein_scheme("BLOSUM62", 11, 1);
  named.from_file = true;
  const std::optional<karlin_params> same_name = published_karlin_params(named);
  ASSERT_TRUE(same_name);
  EXPECT_DOUBLE_EQ(same_name->lambda, 0.267);
  EXPECT_FALSE(same_name->gumbel);
  EXPECT_FALSE(published_karlin_params(make_dna_scheme(2, -3, 5, 2))->gumbel);
}

// blastp 2.12 -comp_based_stats 0 -seg no, the first five records of
// ../shared/data/protein/db_queries.fa against swissprot_subset_mmseqs2.fa (1,230,410 residues)
// at each matrix's default gap costs: score, query and subject lengths, printed E-value.
TEST(spouge, evalues_as_blastp_prints_them) {
  struct row {
    const char* matrix;
    int open, extend, score, m, n;
    const char* evalue;
  };
  const row rows[] = {
      {"BLOSUM62", 11, 1, 293, 149, 275, "4.40e-34"}, {"BLOSUM62", 11, 1, 635, 1123, 1251, "1.01e-68"},
      {"BLOSUM62", 11, 1, 207, 149, 562, "8.79e-21"}, {"BLOSUM62", 11, 1, 105, 1123, 1037, "2.68e-05"},
      {"BLOSUM45", 14, 2, 853, 1123, 1251, "1.31e-69"}, {"BLOSUM45", 14, 2, 253, 149, 562, "2.21e-18"},
      {"BLOSUM45", 14, 2, 127, 149, 335, "5.16e-06"}, {"BLOSUM50", 13, 2, 871, 1123, 1251, "4.17e-69"},
      {"BLOSUM50", 13, 2, 316, 1123, 8081, "8.54e-20"}, {"BLOSUM80", 10, 1, 489, 1123, 1251, "9.76e-57"},
      {"BLOSUM80", 10, 1, 97, 1123, 8081, "2.25e-05"}, {"BLOSUM90", 10, 1, 444, 1123, 1251, "4.85e-49"},
      {"PAM30", 9, 1, 249, 149, 275, "5.13e-26"},      {"PAM30", 9, 1, 63, 1123, 1251, "1.3"},
      {"PAM70", 10, 1, 296, 149, 275, "4.99e-33"},     {"PAM70", 10, 1, 61, 149, 192, "0.21"},
      {"PAM250", 14, 2, 768, 1123, 1251, "9.36e-60"},  {"PAM250", 14, 2, 114, 1123, 1059, "0.020"},
  };
  for (const row& r : rows) {
    SCOPED_TRACE(std::string(r.matrix) + " score " + std::to_string(r.score));
    const karlin_params p = builtin(r.matrix, r.open, r.extend);
    EXPECT_EQ(blast_text(std::exp(spouge_ln_evalue(p, r.score, r.m, r.n, 1230410))), r.evalue);
  }
}

// Where BLAST's double underflows the logarithm carries on smoothly: each score unit lowers
// ln E by about lambda, across the switch to log space near 1e-300 and far below it.
TEST(spouge, log_space_tail_is_smooth) {
  const karlin_params p = builtin("BLOSUM62", 11, 1);
  for (const std::uint64_t m : {150u, 1200u, 34350u}) {
    double previous = spouge_ln_evalue(p, 200, m, m, 1230410);
    for (std::int64_t s = 201; s < 12000; ++s) {
      const double ln_e = spouge_ln_evalue(p, s, m, m, 1230410);
      ASSERT_TRUE(std::isfinite(ln_e)) << "m " << m << " score " << s;
      const double step = previous - ln_e;
      ASSERT_GT(step, 0.9 * p.lambda) << "m " << m << " score " << s;
      ASSERT_LT(step, 1.5 * p.lambda) << "m " << m << " score " << s;
      previous = ln_e;
    }
  }
}

// The floor over lengths n_min..n_max is never above any length's smallest passing score and at
// most two units below the lowest of them.
TEST(spouge, evalue_floor_over_target_lengths) {
  for (const char* matrix : {"BLOSUM62", "PAM30"}) {
    const karlin_params p = builtin(matrix, matrix[0] == 'B' ? 11 : 9, 1);
    for (const double max_e : {10.0, 1e-3, 1e-30}) {
      for (const std::uint64_t m : {20u, 300u, 2000u}) {
        const std::uint64_t n_min = 5, n_max = 3000, db = 1230410;
        const std::int64_t floor = spouge_min_score_for_evalue(p, max_e, m, n_min, n_max, db);
        const auto passes = [&](std::int64_t s, std::uint64_t n) { return spouge_ln_evalue(p, s, m, n, db) <= std::log(max_e); };
        std::int64_t lowest = INT64_MAX, s = 1;
        for (std::uint64_t n = n_min; n <= n_max; ++n) {  // each length's smallest passing score
          while (s > 1 && passes(s - 1, n)) --s;
          while (!passes(s, n)) ++s;
          lowest = std::min(lowest, s);
        }
        SCOPED_TRACE(std::string(matrix) + " E " + std::to_string(max_e) + " m " + std::to_string(m));
        EXPECT_LE(floor, lowest);
        EXPECT_GE(floor, lowest - 2);
      }
    }
  }
}

}  // namespace
}  // namespace swat::scoring

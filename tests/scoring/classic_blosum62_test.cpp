// data/matrices/BLOSUM62_classic: loads with --matrix-file, equals the built-in (BLAST+) BLOSUM62
// on the 20 amino acids, differs in the X row and a few B/Z entries, and gets BLOSUM62's
// E-value parameters.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "scoring/karlin.hpp"
#include "scoring/scoring.hpp"

namespace swat::scoring {
namespace {

const std::string classic_path = std::string(SWAT_SOURCE_DIR) + "/data/matrices/BLOSUM62_classic";

TEST(classic_blosum62, differs_from_blast_plus_only_in_x_b_and_z) {
  const scoring_scheme classic = load_matrix_file(classic_path, 11, 1);
  const scoring_scheme builtin = make_protein_scheme("BLOSUM62", 11, 1);
  EXPECT_EQ(classic.matrix_name, "BLOSUM62_classic");
  const std::string letters = "ARNDCQEGHILKMFPSTWYVBZX*";  // the letters both list
  std::set<std::pair<char, char>> differ;
  for (char a : letters)
    for (char b : letters) {
      const std::uint8_t i = protein_rank_table()[std::uint8_t(a)], j = protein_rank_table()[std::uint8_t(b)];
      if (classic.score(i, j) != builtin.score(i, j)) differ.insert({std::min(a, b), std::max(a, b)});
    }
  // X: BLAST+ scores -1 against everything; the classic row has 0 for A S T and -2 for C P W.
  // B and Z: four entries differ (N-B 3 vs 4, Q-Z 3 vs 4, W-Z -3 vs -2, B-Z 1 vs 0).
  const std::set<std::pair<char, char>> expected{{'A', 'X'}, {'C', 'X'}, {'P', 'X'}, {'S', 'X'}, {'T', 'X'},
                                                 {'W', 'X'}, {'B', 'N'}, {'Q', 'Z'}, {'W', 'Z'}, {'B', 'Z'}};
  EXPECT_EQ(differ, expected);
  const auto rank = [](char c) { return protein_rank_table()[std::uint8_t(c)]; };
  EXPECT_EQ(classic.score(rank('X'), rank('A')), 0);
  EXPECT_EQ(builtin.score(rank('X'), rank('A')), -1);
  EXPECT_EQ(classic.score(rank('X'), rank('X')), -1);
}

TEST(classic_blosum62, gets_blosum62_evalue_parameters_by_contents) {
  const auto p = published_karlin_params(load_matrix_file(classic_path, 11, 1));
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->lambda, 0.267);
  EXPECT_DOUBLE_EQ(p->k, 0.041);
}

}  // namespace
}  // namespace swat::scoring

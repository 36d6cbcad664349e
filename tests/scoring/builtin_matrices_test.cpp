// Built-in NCBI matrices (src/scoring/builtin_matrices.cpp): spot values taken from the Debian
// ncbi-data files, symmetry, names, the X fallback for J/O/U, and a comparison with SeqAn3's
// tables. SeqAn3 appears in this test file only.

#include <gtest/gtest.h>

#include <filesystem>
#include <seqan3/alignment/scoring/aminoacid_scoring_scheme.hpp>
#include <seqan3/alphabet/aminoacid/aa27.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "scoring/scoring.hpp"

namespace swat::scoring {
namespace {

std::uint8_t rank(char c) { return protein_rank_table()[static_cast<unsigned char>(c)]; }

int score(const scoring_scheme& s, std::string_view pair) { return s.score(rank(pair[0]), rank(pair[1])); }

struct spot {
  std::string_view matrix;
  std::string_view pair;
  int value;
};

// Values read off /usr/share/ncbi/data/<matrix> (ncbi-data 6.1.20170106).
constexpr spot spots[] = {
    {"BLOSUM45", "AA", 5},   {"BLOSUM45", "WW", 15},   {"BLOSUM45", "CC", 12},   {"BLOSUM45", "WC", -5},
    {"BLOSUM45", "A*", -5},  {"BLOSUM45", "JI", 4},    {"BLOSUM50", "AA", 5},    {"BLOSUM50", "WW", 15},
    {"BLOSUM50", "CC", 13},  {"BLOSUM50", "WC", -5},   {"BLOSUM50", "DE", 2},    {"BLOSUM62", "AA", 4},
    {"BLOSUM62", "WW", 11},  {"BLOSUM62", "CC", 9},    {"BLOSUM62", "WC", -2},   {"BLOSUM62", "IL", 2},
    {"BLOSUM62", "BN", 4},   {"BLOSUM62", "ZE", 4},    {"BLOSUM62", "XX", -1},   {"BLOSUM62", "AX", -1},
    {"BLOSUM62", "A*", -4},  {"BLOSUM62", "**", 1},    {"BLOSUM62", "JI", 3},    {"BLOSUM80", "AA", 5},
    {"BLOSUM80", "WW", 11},  {"BLOSUM80", "WC", -3},   {"BLOSUM80", "A*", -6},   {"BLOSUM80", "DE", 1},
    {"BLOSUM90", "AA", 5},   {"BLOSUM90", "WC", -4},   {"BLOSUM90", "JJ", 4},    {"BLOSUM90", "A*", -6},
    {"PAM30", "AA", 6},      {"PAM30", "WW", 13},      {"PAM30", "WC", -15},     {"PAM30", "A*", -17},
    {"PAM30", "IL", -1},     {"PAM70", "AA", 5},       {"PAM70", "WW", 13},      {"PAM70", "WC", -11},
    {"PAM70", "DE", 3},      {"PAM70", "JJ", 5},       {"PAM250", "AA", 2},      {"PAM250", "WW", 17},
    {"PAM250", "CC", 12},    {"PAM250", "WC", -8},     {"PAM250", "A*", -8},     {"PAM250", "JJ", 5},
};

TEST(builtin_matrices, names) {
  const std::vector<std::string> expected = {"BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80",
                                             "BLOSUM90", "PAM30",    "PAM70",    "PAM250"};
  EXPECT_EQ(builtin_matrix_names(), expected);
}

TEST(builtin_matrices, spot_values) {
  for (const spot& s : spots) {
    const scoring_scheme scheme = make_protein_scheme(s.matrix, 11, 1);
    EXPECT_EQ(score(scheme, s.pair), s.value) << s.matrix << " " << s.pair;
    EXPECT_EQ(score(scheme, std::string(s.pair.rbegin(), s.pair.rend())), s.value) << s.matrix << " " << s.pair;
  }
}

TEST(builtin_matrices, symmetric_and_complete) {
  for (const std::string& name : builtin_matrix_names()) {
    const scoring_scheme s = make_protein_scheme(name, 11, 1);
    EXPECT_EQ(s.alphabet, alphabet_kind::protein);
    EXPECT_EQ(s.matrix_name, name);
    for (int a = 0; a < protein_size; ++a)
      for (int b = 0; b < protein_size; ++b)
        EXPECT_EQ(s.score(a, b), s.score(b, a)) << name << " " << protein_letters[a] << protein_letters[b];
    // Outside the 27 ranks the matrix stays zero.
    for (int a = 0; a < matrix_stride; ++a)
      for (int b = protein_size; b < matrix_stride; ++b) EXPECT_EQ(s.matrix[a * matrix_stride + b], 0);
  }
}

TEST(builtin_matrices, o_and_u_score_like_x_j_follows_the_matrix) {
  for (const std::string& name : builtin_matrix_names()) {
    const scoring_scheme s = make_protein_scheme(name, 11, 1);
    for (char c : protein_letters) {
      EXPECT_EQ(s.score(rank('U'), rank(c)), s.score(rank('X'), rank(c))) << name << " U" << c;
      EXPECT_EQ(s.score(rank('O'), rank(c)), s.score(rank('X'), rank(c))) << name << " O" << c;
    }
    EXPECT_GT(score(s, "JI"), 0) << name << ": J is listed in every NCBI matrix (I or L)";
  }
}

TEST(builtin_matrices, names_are_case_insensitive) {
  const scoring_scheme upper = make_protein_scheme("BLOSUM62", 11, 1);
  for (std::string_view n : {"blosum62", "Blosum62", "bLoSuM62"}) {
    const scoring_scheme s = make_protein_scheme(n, 11, 1);
    EXPECT_EQ(s.matrix, upper.matrix) << n;
    EXPECT_EQ(s.matrix_name, "BLOSUM62");
  }
  EXPECT_EQ(make_protein_scheme("pam250", 14, 2).matrix_name, "PAM250");
}

TEST(builtin_matrices, unknown_name_is_a_usage_error) {
  try {
    make_protein_scheme("BLOSUM99", 11, 1);
    ADD_FAILURE() << "no error";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown substitution matrix 'BLOSUM99'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("PAM250"), std::string::npos) << "lists the known names";
  }
  EXPECT_THROW(make_protein_scheme("", 11, 1), usage_error);
}

TEST(builtin_matrices, gaps_are_validated) {
  EXPECT_THROW(make_protein_scheme("BLOSUM62", -11, 1), usage_error);
  EXPECT_THROW(make_protein_scheme("BLOSUM62", 0, 0), usage_error);
  const scoring_scheme s = make_protein_scheme("BLOSUM62", 11, 1);
  EXPECT_EQ(s.gap_open, 11);
  EXPECT_EQ(s.gap_extend, 1);
}

// The embedded text must equal the files BLAST ships, read through the same parser.
TEST(builtin_matrices, equal_the_ncbi_data_files) {
  const std::filesystem::path dir = "/usr/share/ncbi/data";
  if (!std::filesystem::exists(dir / "BLOSUM62")) GTEST_SKIP() << "ncbi-data is not installed";
  for (const std::string& name : builtin_matrix_names()) {
    const scoring_scheme file = load_matrix_file((dir / name).string(), 11, 1);
    EXPECT_EQ(make_protein_scheme(name, 11, 1).matrix, file.matrix) << name;
    EXPECT_EQ(file.matrix_name, name);
  }
}

// SeqAn3 3.2 has BLOSUM45/62/80. On the 20 standard amino acids its BLOSUM45 and BLOSUM62 equal
// NCBI's; they differ only in entries involving B, Z or X (NCBI's X row is all -1), and its
// BLOSUM80 is another scale (1/3 bit: A-A 7, W-W 16; NCBI's is 1/2 bit: A-A 5, W-W 11). That is
// why the built-in matrices are NCBI's throughout.
seqan3::aa27 aa(char c) { return seqan3::aa27{}.assign_char(c); }

void compare_with_seqan3(const std::string& name, seqan3::aminoacid_similarity_matrix id,
                         int expected_differences) {
  const seqan3::aminoacid_scoring_scheme<int8_t> theirs{id};
  const scoring_scheme ours = make_protein_scheme(name, 11, 1);
  constexpr std::string_view standard = "ARNDCQEGHILKMFPSTWYV";
  constexpr std::string_view common = "ARNDCQEGHILKMFPSTWYVBZX*";  // the 24 letters of both
  for (char a : standard)
    for (char b : standard)
      EXPECT_EQ(int(theirs.score(aa(a), aa(b))), ours.score(rank(a), rank(b))) << name << " " << a << b;
  int differences = 0;
  for (char a : common)
    for (char b : common) {
      if (int(theirs.score(aa(a), aa(b))) == ours.score(rank(a), rank(b))) continue;
      ++differences;
      EXPECT_TRUE(std::string_view("BZX").find(a) != std::string_view::npos ||
                  std::string_view("BZX").find(b) != std::string_view::npos)
          << name << " " << a << b;
    }
  EXPECT_EQ(differences, expected_differences) << name;
}

TEST(builtin_matrices, blosum62_matches_seqan3_on_standard_letters) {
  compare_with_seqan3("BLOSUM62", seqan3::aminoacid_similarity_matrix::blosum62, 20);
}

TEST(builtin_matrices, blosum45_matches_seqan3_on_standard_letters) {
  compare_with_seqan3("BLOSUM45", seqan3::aminoacid_similarity_matrix::blosum45, 22);
}

TEST(builtin_matrices, blosum80_differs_from_seqan3_in_scale) {
  const seqan3::aminoacid_scoring_scheme<int8_t> theirs{seqan3::aminoacid_similarity_matrix::blosum80};
  const scoring_scheme ours = make_protein_scheme("BLOSUM80", 11, 1);
  EXPECT_EQ(int(theirs.score(aa('A'), aa('A'))), 7);
  EXPECT_EQ(int(theirs.score(aa('W'), aa('W'))), 16);
  EXPECT_EQ(score(ours, "AA"), 5);
  EXPECT_EQ(score(ours, "WW"), 11);
}

}  // namespace
}  // namespace swat::scoring

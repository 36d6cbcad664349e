// NCBI/BLAST matrix text reader (src/scoring/matrix_file.cpp): good and bad files.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "scoring/scoring.hpp"

namespace swat::scoring {
namespace {

std::uint8_t rank(char c) { return protein_rank_table()[static_cast<unsigned char>(c)]; }

// A file under the temp directory that is removed when the test ends.
class temp_file {
 public:
  explicit temp_file(const std::string& text) {
    static int counter = 0;
    path_ = (std::filesystem::temp_directory_path() /
             ("swat_matrix_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".txt"))
                .string();
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~temp_file() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Loads text from a temp file and expects input_error naming the file, "line N" (0 = no line)
// and needle.
void expect_input_error(const std::string& text, int line, const std::string& needle) {
  const temp_file f(text);
  try {
    load_matrix_file(f.path(), 11, 1);
    ADD_FAILURE() << "no input_error; expected one mentioning '" << needle << "'";
  } catch (const input_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(f.path(), 0), 0u) << what;
    if (line > 0) {
      EXPECT_NE(what.find(f.path() + ":line " + std::to_string(line) + ": "), std::string::npos) << what;
    } else {
      EXPECT_EQ(what.find(":line "), std::string::npos) << what;
    }
    EXPECT_NE(what.find(needle), std::string::npos) << what;
  }
}

constexpr const char* small_matrix =
    "# a toy matrix\n"
    "#\n"
    "   A  C  X  *\n"
    "A  4  0 -1 -4\n"
    "C  0  9 -2 -4\n"
    "\n"
    "X -1 -2 -1 -4\n"
    "* -4 -4 -4  1\n";

TEST(matrix_file, reads_values_and_name) {
  const temp_file f(small_matrix);
  const scoring_scheme s = load_matrix_file(f.path(), 11, 1);
  EXPECT_EQ(s.alphabet, alphabet_kind::protein);
  EXPECT_EQ(s.matrix_name, std::filesystem::path(f.path()).filename().string());
  EXPECT_EQ(s.gap_open, 11);
  EXPECT_EQ(s.gap_extend, 1);
  EXPECT_EQ(s.score(rank('A'), rank('A')), 4);
  EXPECT_EQ(s.score(rank('C'), rank('C')), 9);
  EXPECT_EQ(s.score(rank('A'), rank('C')), 0);
  EXPECT_EQ(s.score(rank('C'), rank('X')), -2);
  EXPECT_EQ(s.score(rank('*'), rank('*')), 1);
  EXPECT_EQ(s.score(rank('A'), rank('*')), -4);
}

TEST(matrix_file, missing_letters_score_like_x) {
  const temp_file f(small_matrix);
  const scoring_scheme s = load_matrix_file(f.path(), 11, 1);
  for (char missing : std::string("BDEFGHIJKLMNOPQRSTUVWYZ")) {
    EXPECT_EQ(s.score(rank(missing), rank('A')), -1) << missing;
    EXPECT_EQ(s.score(rank('C'), rank(missing)), -2) << missing;
    EXPECT_EQ(s.score(rank(missing), rank('*')), -4) << missing;
    EXPECT_EQ(s.score(rank(missing), rank(missing)), -1) << missing;  // X-X
    EXPECT_EQ(s.score(rank(missing), rank('W')), -1) << missing;
  }
}

TEST(matrix_file, tolerates_tabs_crlf_plus_signs_lowercase_and_row_order) {
  const temp_file f(
      "#comment\r\n"
      "\ta\tc\tx\r\n"
      "  c +0 +9 -2\r\n"
      "x -1 -2 -1\r\n"
      "A 4 0 -1");  // no final newline
  const scoring_scheme s = load_matrix_file(f.path(), 5, 2);
  EXPECT_EQ(s.score(rank('A'), rank('A')), 4);
  EXPECT_EQ(s.score(rank('C'), rank('C')), 9);
  EXPECT_EQ(s.score(rank('C'), rank('A')), 0);
  EXPECT_EQ(s.score(rank('*'), rank('*')), -1);  // '*' absent: scores like X
}

TEST(matrix_file, parse_text_directly) {
  const scoring_scheme s = parse_matrix_text("  A X\nA 3 -1\nX -1 -1\n", "inline", "toy", 1, 1);
  EXPECT_EQ(s.matrix_name, "toy");
  EXPECT_EQ(s.score(rank('A'), rank('A')), 3);
  EXPECT_EQ(s.score(rank('W'), rank('A')), -1);
}

TEST(matrix_file, missing_file) {
  try {
    load_matrix_file("/nonexistent/dir/BLOSUM99", 11, 1);
    ADD_FAILURE() << "no error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/BLOSUM99: cannot open"), std::string::npos)
        << e.what();
  }
}

TEST(matrix_file, directory) {
  EXPECT_THROW(load_matrix_file(std::filesystem::temp_directory_path().string(), 11, 1), input_error);
}

TEST(matrix_file, bad_gaps_are_usage_errors_before_reading) {
  EXPECT_THROW(load_matrix_file("/nonexistent/file", -1, 1), usage_error);
}

TEST(matrix_file, empty_or_comments_only) {
  expect_input_error("", 0, "no header row");
  expect_input_error("# only a comment\n\n", 0, "no header row");
}

TEST(matrix_file, non_numeric_entry) {
  expect_input_error("  A X\nA 4 x1\nX -1 -1\n", 2, "entry 'x1' in row 'A' is not an integer");
  expect_input_error("  A X\nA 4 -1\nX -1 1.5\n", 3, "entry '1.5'");
  expect_input_error("  A X\nA 4 -\nX - -1\n", 2, "entry '-'");
  expect_input_error("  A X\nA 4 ++1\nX ++1 -1\n", 2, "entry '++1'");
}

TEST(matrix_file, value_out_of_range) {
  expect_input_error("  A X\nA 1000001 -1\nX -1 -1\n", 2, "entry '1000001'");
  expect_input_error("  A X\nA 99999999999999999999 -1\nX -1 -1\n", 2, "not an integer");
}

TEST(matrix_file, ragged_rows) {
  expect_input_error("  A C X\nA 4 0 -1\nC 0 9\nX -1 -2 -1\n", 3, "row 'C' has 2 entries, the header has 3");
  expect_input_error("  A C X\nA 4 0 -1 7\nC 0 9 -2\nX -1 -2 -1\n", 2, "row 'A' has 4 entries");
}

TEST(matrix_file, not_square) {
  expect_input_error("  A C X\nA 4 0 -1\nX -1 -2 -1\n", 3, "not square: 3 columns but 2 rows");
}

TEST(matrix_file, unknown_letters) {
  expect_input_error("  A 1 X\nA 4 0 -1\n", 1, "unknown letter '1'");
  expect_input_error("  A X\nA 4 -1\n$ -1 -1\n", 3, "unknown letter '$'");
  expect_input_error("  AB X\nA 4 -1\n", 1, "expected a single letter, got 'AB'");
}

TEST(matrix_file, row_letter_not_in_header) {
  expect_input_error("  A X\nA 4 -1\nC -1 -1\n", 3, "row letter 'C' is not in the header");
}

TEST(matrix_file, duplicate_letters) {
  expect_input_error("  A X A\nA 4 -1 4\nX -1 -1 -1\n", 1, "duplicate letter 'A'");
  expect_input_error("  A X\nA 4 -1\nA 4 -1\nX -1 -1\n", 3, "duplicate row 'A'");
}

TEST(matrix_file, no_x_to_fall_back_on) {
  expect_input_error("  A C\nA 4 0\nC 0 9\n", 0, "has no X");
}

// A square matrix over the given letters: 5 on the diagonal, -2 elsewhere.
std::string uniform_matrix(const std::string& letters) {
  std::string text = " ";
  for (char c : letters) text += std::string(" ") + c;
  text += "\n";
  for (char r : letters) {
    text += r;
    for (char c : letters) text += r == c ? " 5" : " -2";
    text += "\n";
  }
  return text;
}

TEST(matrix_file, all_27_letters_need_no_fallback) {
  const scoring_scheme s = parse_matrix_text(uniform_matrix("ABCDEFGHIJKLMNOPQRSTUVWXYZ*"), "inline", "full", 11, 1);
  EXPECT_EQ(s.score(rank('U'), rank('U')), 5);
  EXPECT_EQ(s.score(rank('O'), rank('U')), -2);
  EXPECT_EQ(s.score(rank('X'), rank('X')), 5);
}

TEST(matrix_file, without_x_any_missing_letter_is_an_error) {
  expect_input_error(uniform_matrix("ABCDEFGHIJKLMNOPQRSTUVWYZ*"), 0, "has no X");
}

TEST(matrix_file, asymmetric) {
  expect_input_error("  A C X\nA 4 1 -1\nC 0 9 -2\nX -1 -2 -1\n", 3, "not symmetric: C-A = 0 but A-C = 1");
}

}  // namespace
}  // namespace swat::scoring

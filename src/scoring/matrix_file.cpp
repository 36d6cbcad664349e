// Reader of substitution matrices in the NCBI/BLAST text format (the files BLAST ships, e.g.
// BLOSUM62): '#' comment lines, a header row of column letters, then one row per letter that
// starts with the letter and holds one integer per column. Used for --matrix-file and for the
// built-in matrices alike.

#include <array>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/alphabet.hpp"
#include "common/error.hpp"
#include "scoring/scoring.hpp"

namespace swat::scoring {
namespace {

constexpr std::uint8_t x_rank = 23;  // 'X' in aa27

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\r')) ++pos;
    std::size_t end = pos;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r') ++end;
    if (end > pos) words.push_back(line.substr(pos, end - pos));
    pos = end;
  }
  return words;
}

// Parses one matrix entry: optional sign, digits, nothing else; |value| ≤ max_abs_score.
std::optional<int> parse_entry(std::string_view word) {
  if (!word.empty() && word.front() == '+') word.remove_prefix(1);
  if (word.empty() || word.front() == '+') return std::nullopt;
  long long value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size()) return std::nullopt;
  if (value < -max_abs_score || value > max_abs_score) return std::nullopt;
  return static_cast<int>(value);
}

class matrix_parser {
 public:
  explicit matrix_parser(const std::string& source) : source_(source) {
    column_of_rank_.fill(-1);
    row_of_rank_.fill(-1);
  }
  matrix_parser(const matrix_parser&) = delete;
  matrix_parser& operator=(const matrix_parser&) = delete;

  void parse(std::string_view text) {
    int line_no = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      line(text.substr(pos, end - pos), ++line_no);
      pos = end + 1;
    }
    last_line_ = line_no;
    if (columns_.empty()) fail("no header row of letters", std::nullopt);
    if (rows_.size() != columns_.size())
      fail("matrix is not square: " + std::to_string(columns_.size()) + " columns but " +
               std::to_string(rows_.size()) + " rows",
           last_line_);
  }

  // Fills scheme.matrix, applying the X fallback for aa27 letters the matrix does not list.
  void fill(scoring_scheme& scheme) const {
    std::array<int, protein_size> index{};  // rank → column/row index in the file
    bool needs_x = false;
    for (int r = 0; r < protein_size; ++r) {
      index[r] = column_of_rank_[r];
      if (index[r] < 0) needs_x = true;
    }
    if (needs_x) {
      const int x = column_of_rank_[x_rank];
      if (x < 0) fail("matrix lacks letters of the protein alphabet and has no X to score them", std::nullopt);
      for (int r = 0; r < protein_size; ++r)
        if (index[r] < 0) index[r] = x;
    }
    for (int a = 0; a < protein_size; ++a)
      for (int b = 0; b < protein_size; ++b)
        scheme.matrix[a * matrix_stride + b] = value_at(index[a], index[b]);
  }

 private:
  void line(std::string_view text, int line_no) {
    const std::vector<std::string_view> words = split_words(text);
    if (words.empty() || words.front().front() == '#') return;
    if (columns_.empty()) {
      header(words, line_no);
      return;
    }
    row(words, line_no);
  }

  std::uint8_t letter_rank(std::string_view word, int line_no) const {
    if (word.size() != 1) fail("expected a single letter, got '" + std::string(word) + "'", line_no);
    const std::uint8_t rank = protein_rank_table()[static_cast<unsigned char>(word.front())];
    if (rank == invalid_rank)
      fail("unknown letter '" + std::string(word) + "' (expected ABCDEFGHIJKLMNOPQRSTUVWXYZ*)", line_no);
    return rank;
  }

  void header(const std::vector<std::string_view>& words, int line_no) {
    for (std::string_view w : words) {
      const std::uint8_t rank = letter_rank(w, line_no);
      if (column_of_rank_[rank] >= 0) fail("duplicate letter '" + std::string(w) + "' in the header", line_no);
      column_of_rank_[rank] = static_cast<int>(columns_.size());
      columns_.push_back(rank);
    }
  }

  void row(const std::vector<std::string_view>& words, int line_no) {
    const std::uint8_t rank = letter_rank(words.front(), line_no);
    if (column_of_rank_[rank] < 0)
      fail("row letter '" + std::string(words.front()) + "' is not in the header", line_no);
    if (row_of_rank_[rank] >= 0) fail("duplicate row '" + std::string(words.front()) + "'", line_no);
    if (words.size() - 1 != columns_.size())
      fail("row '" + std::string(words.front()) + "' has " + std::to_string(words.size() - 1) +
               " entries, the header has " + std::to_string(columns_.size()) + " letters",
           line_no);
    std::vector<int> values;
    for (std::size_t k = 1; k < words.size(); ++k) {
      const std::optional<int> v = parse_entry(words[k]);
      if (!v)
        fail("entry '" + std::string(words[k]) + "' in row '" + std::string(words.front()) +
                 "' is not an integer within +-1000000",
             line_no);
      values.push_back(*v);
    }
    // Symmetry against rows already read: value(row, col) must equal value(col, row).
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const int other_row = row_of_rank_[columns_[c]];
      if (other_row < 0) continue;
      const int mirrored = rows_[other_row][column_of_rank_[rank]];
      if (mirrored != values[c])
        fail("matrix is not symmetric: " + std::string(words.front()) + "-" +
                 std::string(1, protein_letters[columns_[c]]) + " = " + std::to_string(values[c]) +
                 " but " + std::string(1, protein_letters[columns_[c]]) + "-" +
                 std::string(words.front()) + " = " + std::to_string(mirrored),
             line_no);
    }
    row_of_rank_[rank] = static_cast<int>(rows_.size());
    rows_.push_back(std::move(values));
  }

  int value_at(int row_index, int column_index) const {
    return rows_[row_of_rank_[columns_[row_index]]][column_index];
  }

  [[noreturn]] void fail(const std::string& what, std::optional<int> line_no) const {
    if (line_no) throw input_error(source_, what, "line " + std::to_string(*line_no));
    throw input_error(source_, what);
  }

  const std::string& source_;
  std::vector<std::uint8_t> columns_;              // header letters as ranks, file order
  std::array<int, protein_size> column_of_rank_{};  // rank → header position, -1 if absent
  std::array<int, protein_size> row_of_rank_{};     // rank → index into rows_, -1 if absent
  std::vector<std::vector<int>> rows_;
  int last_line_ = 0;
};

}  // namespace

scoring_scheme parse_matrix_text(std::string_view text, const std::string& source,
                                 const std::string& name, int gap_open, int gap_extend) {
  validate_gaps(gap_open, gap_extend);
  matrix_parser parser(source);
  parser.parse(text);
  scoring_scheme scheme;
  scheme.alphabet = alphabet_kind::protein;
  parser.fill(scheme);
  scheme.gap_open = gap_open;
  scheme.gap_extend = gap_extend;
  scheme.matrix_name = name;
  return scheme;
}

scoring_scheme load_matrix_file(const std::string& path, int gap_open, int gap_extend) {
  validate_gaps(gap_open, gap_extend);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw input_error(path, "is a directory, not a substitution matrix file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path, "cannot open substitution matrix file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw input_error(path, "cannot read substitution matrix file");
  const std::size_t slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  scoring_scheme scheme = parse_matrix_text(buffer.str(), path, name, gap_open, gap_extend);
  scheme.from_file = true;  // never the built-in matrix of that name (E-values: the classic formula)
  return scheme;
}

}  // namespace swat::scoring

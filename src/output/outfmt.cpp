// --outfmt parsing, the tabular column table (BLAST's names), and the formats' --help text.

#include <algorithm>
#include <cctype>
#include <string_view>

#include "common/error.hpp"
#include "output/columns.hpp"
#include "output/output.hpp"

namespace swat::output {
namespace {

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = char(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  const auto is_sep = [](char c) { return c == ' ' || c == '\t' || c == ',' || c == '\n'; };
  while (i < text.size()) {
    while (i < text.size() && is_sep(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_sep(text[i])) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

std::string join_names(std::size_t first, std::size_t last) {
  std::string s;
  for (std::size_t i = first; i < last; ++i) {
    if (!s.empty()) s += ' ';
    s += detail::column_defs[i].name;
  }
  return s;
}

constexpr const char* valid_formats =
    "valid formats: 6 (BLAST tabular), 7 (BLAST tabular with comment lines), blast6 (= 6 std …), sam, "
    "bam, pair, json";

//! Appends the columns named by words[first …] ("std" = the standard 12) to columns.
void add_columns(const std::vector<std::string_view>& words, std::size_t first, std::vector<std::string>& columns) {
  for (std::size_t i = first; i < words.size(); ++i) {
    const std::string col = lower(words[i]);
    if (col == "std") {
      columns.insert(columns.end(), standard_blast6_columns().begin(), standard_blast6_columns().end());
      continue;
    }
    if (!detail::find_column(col))
      throw usage_error("--outfmt: unknown column '" + std::string(words[i]) + "'; valid columns: std " +
                        join_names(0, detail::column_defs.size()));
    columns.push_back(col);
  }
}

}  // namespace

const std::vector<std::string>& standard_blast6_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (std::size_t i = 0; i < detail::standard_column_count; ++i) v.emplace_back(detail::column_defs[i].name);
    return v;
  }();
  return names;
}

const std::vector<std::string>& known_blast6_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const detail::column_def& c : detail::column_defs) v.emplace_back(c.name);
    return v;
  }();
  return names;
}

output_spec parse_outfmt(std::string_view text) {
  const std::vector<std::string_view> words = split_words(text);
  if (words.empty()) throw usage_error(std::string("--outfmt is empty; ") + valid_formats);
  const std::string name = lower(words[0]);
  output_spec spec;
  if (name == "6" || name == "7" || name == "blast6") {
    spec.fmt = format::blast6;
    spec.comments = name == "7";
    // BLAST: named columns replace the standard ones. The older "blast6" spelling appends them.
    if (name == "blast6" || words.size() == 1) spec.columns = standard_blast6_columns();
    add_columns(words, 1, spec.columns);
    return spec;
  }
  if (name == "sam")
    spec.fmt = format::sam;
  else if (name == "bam")
    spec.fmt = format::bam;
  else if (name == "pair")
    spec.fmt = format::pair;
  else if (name == "json")
    spec.fmt = format::json;
  else
    throw usage_error("--outfmt: unknown format '" + std::string(words[0]) + "'; " + valid_formats);
  if (words.size() > 1)
    throw usage_error("--outfmt: format '" + name + "' takes no columns (got '" + std::string(words[1]) +
                      "'); columns apply to the tabular formats 6 and 7");
  return spec;
}

std::string outfmt_help() {
  std::string s =
      "Output formats (--outfmt):\n"
      "  6 [COLUMN ...]       BLAST tabular: tab-separated, 1-based inclusive coordinates. Named\n"
      "                       columns replace the default ones, as in BLAST's -outfmt \"6 ...\";\n"
      "                       \"std\" stands for the standard 12:\n"
      "                         " + join_names(0, 6) + "\n"
      "                         " + join_names(6, detail::standard_column_count) + "\n"
      "  7 [COLUMN ...]       the same with BLAST -outfmt 7 comment lines: per query its name,\n"
      "                       the database, the fields and the number of hits\n"
      "  blast6 [COLUMN ...]  the older spelling: \"6 std COLUMN ...\" (extra columns appended)\n"
      "  sam                  SAM 1.6 through htslib: @SQ per database record, =/X CIGAR with\n"
      "                       soft clips, AS, NM, MD and ZE (E-value) tags, unmapped records for\n"
      "                       queries without hits (--sam-hit-only leaves them out)\n"
      "  bam                  the same as BAM (DNA only: BAM stores 4-bit bases)\n"
      "  pair                 pairwise text like EMBOSS water, 60 columns per line\n"
      "  json                 {\"metadata\": {...}, \"hits\": [...]}: run description, E-value\n"
      "                       parameters and every hit with its aligned sequences\n"
      "Columns (BLAST's names; minus-strand hits have sstart > send):\n";
  for (const detail::column_def& c : detail::column_defs) {
    std::string line = "  " + std::string(c.name);
    line.resize(12, ' ');
    s += line + std::string(c.help) + "\n";
  }
  s += "E-values (--stats): analytic where NCBI BLAST tabulates the scheme (matched by the matrix\n"
       "contents and gap costs: BLOSUM45/50/62/80/90, PAM30/70/250, blastn reward/penalty pairs),\n"
       "as BLAST+ computes them: for a built-in protein matrix Spouge's finite-size correction\n"
       "(blastp -comp_based_stats 0; it depends on the target's length), else\n"
       "E = K*m'*n'*exp(-lambda*S) with BLAST's effective lengths. Any other scheme searched against\n"
       "500 or more sequences: empirical, fitted to each query's scores against the database (as\n"
       "SSEARCH does), E = D * P(score >= S for a target of that length). Smaller searches: lambda\n"
       "and K estimated by the island method on random sequences, where the scheme has a\n"
       "logarithmic regime; else none: the evalue and bitscore columns print nan (JSON null, no SAM\n"
       "ZE tag) and --evalue is an error. A notice, SAM @CO and JSON name the method. The evalue and\n"
       "bitscore columns, pair text and the SAM ZE tag print as BLAST+ does: 0.0 below 1e-180,\n"
       "4.40e-34 below 0.0009, then 0.012, 0.20, 5.6, 12; bit scores 43.1, \" 8.4\" below 10, the\n"
       "integer part above 99.9. JSON has the full doubles, and log10_evalue where E is below the\n"
       "double range.\n";
  return s;
}

}  // namespace swat::output

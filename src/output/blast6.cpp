// --outfmt parsing and the BLAST tabular (outfmt 6) writer.

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <string_view>

#include "common/error.hpp"
#include "output/detail.hpp"

namespace swat::output {
namespace {

//! One blast6 column: its name (as BLAST spells it where BLAST has it) and a --help line.
struct column_def {
  std::string_view name;
  std::string_view help;
};

// Order: the 12 standard outfmt-6 columns, then the extras.
constexpr std::array<column_def, 22> column_defs{{
    {"qseqid", "query name"},
    {"sseqid", "target (subject) name"},
    {"pident", "percent identical positions, 100*nident/length, 3 decimals"},
    {"length", "alignment length in columns (pairs + gap residues)"},
    {"mismatch", "non-identical aligned pairs"},
    {"gapopen", "number of gaps (runs of gap residues)"},
    {"qstart", "query start, 1-based"},
    {"qend", "query end, 1-based inclusive"},
    {"sstart", "target start, 1-based (> send for minus-strand hits)"},
    {"send", "target end, 1-based inclusive"},
    {"evalue", "K*m*N*exp(-lambda*S), NA without published lambda/K"},
    {"bitscore", "(lambda*S - ln K)/ln 2, NA without published lambda/K"},
    {"score", "raw alignment score"},
    {"cigar", "extended CIGAR (= identical, X mismatch, I gap in target, D gap in query)"},
    {"qlen", "query length"},
    {"slen", "target length"},
    {"nident", "identical aligned pairs"},
    {"positive", "aligned pairs with substitution score > 0"},
    {"gaps", "gap residues (total length of all gaps)"},
    {"qseq", "aligned part of the query, '-' for gaps"},
    {"sseq", "aligned part of the target, '-' for gaps"},
    {"sstrand", "strand of the target the query aligns to: plus, minus (N/A for protein)"},
}};
constexpr std::size_t standard_count = 12;

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
    s += column_defs[i].name;
  }
  return s;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

const std::vector<std::string>& standard_blast6_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (std::size_t i = 0; i < standard_count; ++i) v.emplace_back(column_defs[i].name);
    return v;
  }();
  return names;
}

const std::vector<std::string>& known_blast6_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const column_def& c : column_defs) v.emplace_back(c.name);
    return v;
  }();
  return names;
}

output_spec parse_outfmt(std::string_view text) {
  const std::vector<std::string_view> words = split_words(text);
  if (words.empty())
    throw usage_error("--outfmt is empty; valid formats: blast6 (alias 6), sam, pair, json");
  const std::string name = lower(words[0]);
  output_spec spec;
  if (name == "blast6" || name == "6") {
    spec.fmt = format::blast6;
    spec.columns = standard_blast6_columns();
    for (std::size_t i = 1; i < words.size(); ++i) {
      const std::string col = lower(words[i]);
      const bool known = std::any_of(column_defs.begin(), column_defs.end(),
                                     [&](const column_def& c) { return c.name == col; });
      if (!known)
        throw usage_error("--outfmt: unknown blast6 column '" + std::string(words[i]) +
                          "'; valid columns: " + join_names(0, column_defs.size()));
      spec.columns.push_back(col);
    }
    return spec;
  }
  if (name == "sam")
    spec.fmt = format::sam;
  else if (name == "pair")
    spec.fmt = format::pair;
  else if (name == "json")
    spec.fmt = format::json;
  else
    throw usage_error("--outfmt: unknown format '" + std::string(words[0]) +
                      "'; valid formats: blast6 (alias 6), sam, pair, json");
  if (words.size() > 1)
    throw usage_error("--outfmt: format '" + name + "' takes no columns (got '" +
                      std::string(words[1]) + "'); columns apply to blast6 only");
  return spec;
}

std::string outfmt_help() {
  std::string s =
      "Output formats (--outfmt):\n"
      "  blast6 [COLUMN ...]  BLAST tabular (alias 6): tab-separated, 1-based inclusive\n"
      "                       coordinates; the 12 standard columns\n"
      "                         " + join_names(0, 6) + "\n"
      "                         " + join_names(6, standard_count) + "\n"
      "                       followed by any extra columns named, e.g. \"blast6 score cigar\"\n"
      "  sam                  SAM 1.6: @SQ per target, =/X CIGAR with soft clips, AS and NM tags\n"
      "  pair                 pairwise text like EMBOSS water, 60 columns per line\n"
      "  json                 one JSON array of hit objects\n"
      "Columns:\n";
  for (const column_def& c : column_defs) {
    std::string line = "  " + std::string(c.name);
    line.resize(12, ' ');
    s += line + std::string(c.help) + "\n";
  }
  s += "E-value and bit score use the published gapped Karlin-Altschul parameters of NCBI BLAST\n"
       "for these schemes only (gap open/extend): BLOSUM45 14/2, BLOSUM50 13/2, BLOSUM62 11/1,\n"
       "BLOSUM80 10/1, BLOSUM90 10/1, PAM30 9/1, PAM70 10/1, PAM250 14/2, DNA match 2\n"
       "mismatch -3 5/2; other schemes print NA (null in JSON). E = K*m*N*exp(-lambda*S) with\n"
       "m the query length and N the database residues, without edge-effect correction.\n";
  return s;
}

namespace detail {

void write_blast6(std::ostream& out, const output_spec& spec, const run_context& ctx,
                  std::span<const hit> hits) {
  const std::optional<karlin_params> params = find_karlin_params(ctx.scheme);
  const std::vector<std::string>& cols =
      spec.columns.empty() ? standard_blast6_columns() : spec.columns;
  const bool needs_rows = std::any_of(cols.begin(), cols.end(), [](const std::string& c) {
    return c == "qseq" || c == "sseq" || c == "positive";
  });
  std::string line;
  strand_cache strands;
  for (const hit& h : hits) {
    const hit_view v = view_of(ctx, params, h, strands);
    const blast_coordinates at = blast_coordinates_of(v);
    aligned_rows rows;
    if (needs_rows) rows = blast_rows(v, ctx.scheme);
    line.clear();
    for (std::size_t i = 0; i < cols.size(); ++i) {
      if (i) line += '\t';
      const std::string& c = cols[i];
      if (c == "qseqid") line += v.query.name;
      else if (c == "sseqid") line += v.target.name;
      else if (c == "pident") line += fixed(v.stats.identity_percent(), 3);
      else if (c == "length") line += std::to_string(v.stats.length);
      else if (c == "mismatch") line += std::to_string(v.stats.mismatches);
      else if (c == "gapopen") line += std::to_string(v.stats.gap_opens);
      else if (c == "qstart") line += std::to_string(at.qstart);
      else if (c == "qend") line += std::to_string(at.qend);
      else if (c == "sstart") line += std::to_string(at.sstart);
      else if (c == "send") line += std::to_string(at.send);
      else if (c == "sstrand")
        line += ctx.scheme.alphabet != alphabet_kind::dna ? "N/A" : v.strand == dna_strand::minus ? "minus" : "plus";
      else if (c == "evalue") line += v.evalue ? format_evalue(*v.evalue) : "NA";
      else if (c == "bitscore") line += v.bit_score ? format_bit_score(*v.bit_score) : "NA";
      else if (c == "score") line += std::to_string(h.aln.score);
      else if (c == "cigar") line += blast_cigar(v, ctx.scheme.alphabet);
      else if (c == "qlen") line += std::to_string(v.query.residues.size());
      else if (c == "slen") line += std::to_string(v.target.residues.size());
      else if (c == "nident") line += std::to_string(v.stats.matches);
      else if (c == "positive") line += std::to_string(rows.positives);
      else if (c == "gaps") line += std::to_string(v.stats.gaps);
      else if (c == "qseq") line += rows.query;
      else if (c == "sseq") line += rows.target;
      else throw usage_error("--outfmt: unknown blast6 column '" + c + "'");
    }
    line += '\n';
    out << line;
  }
}

}  // namespace detail
}  // namespace swat::output

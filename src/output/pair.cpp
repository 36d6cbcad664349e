// Pairwise text writer, laid out like EMBOSS water's "srspair" report.
//
// One program header, then per hit a '#' header block (names, scoring, length, identity,
// similarity, gaps, score) and the alignment in blocks of 60 columns:
//
//   <query name>  <start> <residues> <end>
//                         <markup: '|' identical, ':' positive score, '.' other, ' ' gap>
//   <target name> <start> <residues> <end>
//
// Start and end are 1-based inclusive coordinates of the first and last residue on the line.
// A line holding only gaps for one sequence repeats that sequence's previous coordinate as
// start and end (water does the same). As in water, the rows carry the names cut to 13
// characters (the full names are in the "# 1:" and "# 2:" header lines), the start number ends
// in column 20 and the residues begin in column 22; for coordinates of 7 digits or more the
// names are cut shorter so that name and start always stay in those 20 columns (Biopython's
// emboss reader relies on it). Minus-strand hits show the reverse-complemented query with
// positions counted along it (as water -sreverse1 would) and a "# Strand: minus" line.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "output/detail.hpp"

namespace swat::output::detail {
namespace {

constexpr std::size_t line_columns = 60;
constexpr std::size_t name_width = 13;   //!< water cuts names to 13 characters
constexpr std::size_t label_columns = 20;  //!< name, spaces and start number

//! "# <label padded to 11><n right-aligned in 6>/<len> (<pct>%)" like water's summary lines.
std::string summary_line(const char* label, std::int64_t n, std::int64_t len) {
  const double pct = len ? 100.0 * double(n) / double(len) : 0.0;
  char buf[128];
  std::snprintf(buf, sizeof buf, "# %-11s%6lld/%lld (%4.1f%%)\n", label, static_cast<long long>(n),
                static_cast<long long>(len), pct);
  return buf;
}

//! One sequence row of a block; pos is the count of residues of that row consumed so far
//! (0-based index of the next residue) and advances past this line's residues. name_chars is
//! how much of the name fits before the start number (see the file comment).
std::string sequence_line(const std::string& name, std::size_t name_chars, std::string_view chunk,
                          std::int64_t& pos) {
  const auto residues = std::int64_t(std::count_if(chunk.begin(), chunk.end(),
                                                   [](char c) { return c != '-'; }));
  const std::int64_t start = residues ? pos + 1 : pos;
  pos += residues;
  std::string line = name.substr(0, name_chars);
  line.resize(name_chars, ' ');
  char num[32];
  std::snprintf(num, sizeof num, "%*lld ", int(label_columns - name_chars), static_cast<long long>(start));
  line += num;
  line += chunk;
  std::snprintf(num, sizeof num, " %6lld\n", static_cast<long long>(pos));
  return line + num;
}

//! Name characters that fit beside a start number as large as `largest`.
std::size_t name_chars_for(std::int64_t largest) {
  const std::size_t digits = std::to_string(largest).size();
  return std::min(name_width, label_columns - 1 - std::max<std::size_t>(digits, 6));
}

void write_header(std::ostream& out, const run_context& ctx) {
  out << "########################################\n"
      << "# Program: swat-gpu\n";
  if (!ctx.program_version.empty()) out << "# Version: " << one_line(ctx.program_version) << '\n';
  if (!ctx.command_line.empty()) out << "# Commandline: " << one_line(ctx.command_line) << '\n';
  out << "# Align_format: pair\n"
      << "########################################\n";
}

void write_one(std::ostream& out, const run_context& ctx, const hit_view& v) {
  const scoring_scheme& s = ctx.scheme;
  const aligned_rows rows = layout(v.aln, v.query_residues, v.target.residues, s);
  const std::int64_t len = v.stats.length;
  out << "\n#=======================================\n#\n"
      << "# Aligned_sequences: 2\n"
      << "# 1: " << v.query.name << '\n'
      << "# 2: " << v.target.name << '\n';
  if (v.strand == dna_strand::minus)
    out << "# Strand: minus (row 1 is the reverse complement of the query, positions counted along it)\n";
  out
      << "# Matrix: " << (s.matrix_name.empty() ? "(unnamed)" : one_line(s.matrix_name)) << '\n'
      << "# Gap_open: " << s.gap_open << '\n'
      << "# Gap_extend: " << s.gap_extend << '\n'
      << "# Gap_cost: open + k*extend for a gap of k residues\n"
      << "#\n"
      << "# Length: " << len << '\n'
      << summary_line("Identity:", v.stats.matches, len)
      << summary_line("Similarity:", rows.positives, len)
      << summary_line("Gaps:", v.stats.gaps, len)
      << "# Score: " << v.aln.score << '\n';
  if (std::isnan(v.ln_evalue))
    out << "# E-value: n/a\n# Bit_score: n/a\n";
  else
    out << "# E-value: " << format_evalue(v.ln_evalue) << '\n' << "# Bit_score: " << format_bit_score(v.bit_score) << '\n';
  out << "#\n#\n#=======================================\n\n";

  const std::size_t name_chars = name_chars_for(std::max(v.aln.query_end, v.aln.target_end));
  const std::string markup_indent(label_columns + 1, ' ');
  std::int64_t qpos = v.aln.query_begin;
  std::int64_t tpos = v.aln.target_begin;
  const std::string_view q = rows.query, t = rows.target, m = rows.markup;
  for (std::size_t at = 0; at < q.size(); at += line_columns) {
    const std::size_t n = std::min(line_columns, q.size() - at);
    out << sequence_line(v.query.name, name_chars, q.substr(at, n), qpos);
    out << markup_indent << m.substr(at, n) << '\n';
    out << sequence_line(v.target.name, name_chars, t.substr(at, n), tpos) << '\n';
  }
}

}  // namespace

void write_pair(std::ostream& out, const run_context& ctx, std::span<const hit> hits) {
  const hit_statistics stats(ctx);
  write_header(out, ctx);
  strand_cache strands;
  for (const hit& h : hits) write_one(out, ctx, view_of(ctx, stats, h, strands));
  out << "\n#---------------------------------------\n"
      << "#---------------------------------------\n";
}

}  // namespace swat::output::detail

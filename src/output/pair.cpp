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
// start and end (water does the same). Names are padded to max(13, longest of the pair)
// instead of being truncated as water does.

#include <algorithm>
#include <cstdio>
#include <string>

#include "output/detail.hpp"

namespace swat::output::detail {
namespace {

constexpr std::size_t line_columns = 60;
constexpr std::size_t min_name_width = 13;

//! "# <label padded to 11><n right-aligned in 6>/<len> (<pct>%)" like water's summary lines.
std::string summary_line(const char* label, std::int64_t n, std::int64_t len) {
  const double pct = len ? 100.0 * double(n) / double(len) : 0.0;
  char buf[128];
  std::snprintf(buf, sizeof buf, "# %-11s%6lld/%lld (%4.1f%%)\n", label, static_cast<long long>(n),
                static_cast<long long>(len), pct);
  return buf;
}

std::string padded(const std::string& name, std::size_t width) {
  std::string s = name;
  if (s.size() < width) s.resize(width, ' ');
  return s;
}

//! One sequence row of a block; pos is the count of residues of that row consumed so far
//! (0-based index of the next residue) and advances past this line's residues.
std::string sequence_line(const std::string& name, std::size_t width, std::string_view chunk,
                          std::int64_t& pos) {
  const auto residues = std::int64_t(std::count_if(chunk.begin(), chunk.end(),
                                                   [](char c) { return c != '-'; }));
  const std::int64_t start = residues ? pos + 1 : pos;
  pos += residues;
  char num[32];
  std::snprintf(num, sizeof num, "%7lld ", static_cast<long long>(start));
  std::string line = padded(name, width) + num;
  line += chunk;
  std::snprintf(num, sizeof num, " %6lld\n", static_cast<long long>(pos));
  return line + num;
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
  if (v.evalue) out << "# E-value: " << format_evalue(*v.evalue) << '\n';
  if (v.bit_score) out << "# Bit_score: " << format_bit_score(*v.bit_score) << '\n';
  out << "#\n#\n#=======================================\n\n";

  const std::size_t width =
      std::max({min_name_width, v.query.name.size(), v.target.name.size()});
  const std::string markup_indent(width + 8, ' ');
  std::int64_t qpos = v.aln.query_begin;
  std::int64_t tpos = v.aln.target_begin;
  const std::string_view q = rows.query, t = rows.target, m = rows.markup;
  for (std::size_t at = 0; at < q.size(); at += line_columns) {
    const std::size_t n = std::min(line_columns, q.size() - at);
    out << sequence_line(v.query.name, width, q.substr(at, n), qpos);
    out << markup_indent << m.substr(at, n) << '\n';
    out << sequence_line(v.target.name, width, t.substr(at, n), tpos) << '\n';
  }
}

}  // namespace

void write_pair(std::ostream& out, const run_context& ctx, std::span<const hit> hits) {
  const std::optional<karlin_params> params = find_karlin_params(ctx.scheme);
  write_header(out, ctx);
  strand_cache strands;
  for (const hit& h : hits) write_one(out, ctx, view_of(ctx, params, h, strands));
  out << "\n#---------------------------------------\n"
      << "#---------------------------------------\n";
}

}  // namespace swat::output::detail

// Helpers shared by the writers: layout of aligned rows, strands, escaping, hit resolution.

#include "output/detail.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "common/error.hpp"

namespace swat::output::detail {

aligned_rows layout(const alignment& aln, residue_span query, residue_span target,
                    const scoring_scheme& scheme) {
  aligned_rows rows;
  const alphabet_kind kind = scheme.alphabet;
  std::int64_t qi = aln.query_begin;
  std::int64_t ti = aln.target_begin;
  for (const cigar_op& c : aln.ops) {
    for (std::uint32_t k = 0; k < c.length; ++k) {
      if (c.op == 'M') {
        const std::uint8_t a = query[qi++];
        const std::uint8_t b = target[ti++];
        rows.query += rank_to_char(kind, a);
        rows.target += rank_to_char(kind, b);
        const bool positive = scheme.score(a, b) > 0;
        rows.positives += positive ? 1 : 0;
        rows.markup += residues_identical(kind, a, b) ? '|' : positive ? ':' : '.';
      } else if (c.op == 'I') {
        rows.query += rank_to_char(kind, query[qi++]);
        rows.target += '-';
        rows.markup += ' ';
      } else if (c.op == 'D') {
        rows.query += '-';
        rows.target += rank_to_char(kind, target[ti++]);
        rows.markup += ' ';
      } else {
        throw std::logic_error(std::string("output: unknown CIGAR op ") + c.op);
      }
    }
  }
  return rows;
}

std::string letters(residue_span residues, alphabet_kind kind) {
  std::string s;
  s.reserve(residues.size());
  for (std::uint8_t r : residues) s += rank_to_char(kind, r);
  return s;
}

std::string one_line(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return r;
}

std::string json_quote(std::string_view s) {
  std::string r = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': r += "\\\""; break;
      case '\\': r += "\\\\"; break;
      case '\b': r += "\\b"; break;
      case '\f': r += "\\f"; break;
      case '\n': r += "\\n"; break;
      case '\r': r += "\\r"; break;
      case '\t': r += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
          r += buf;
        } else {
          r += ch;  // bytes >= 0x80 pass through: names are taken to be UTF-8
        }
    }
  }
  return r + '"';
}

residue_span strand_cache::residues(const sequence_record& q, std::size_t i, dna_strand s) {
  if (s == dna_strand::plus) return q.residues;
  if (index_ != i) {
    reverse_ = reverse_complement(q.residues);
    index_ = i;
  }
  return reverse_;
}

hit_statistics::hit_statistics(const run_context& ctx)
    : stats_(ctx.statistics), db_residues_(ctx.db_residues), db_sequences_(ctx.db_sequences ? ctx.db_sequences : ctx.targets.records.size()) {
  if (!stats_) {
    scoring::analytic_result a = scoring::analytic_params_of(ctx.scheme);
    stats_ = &own_.emplace(a.params ? scoring::search_statistics::analytic(std::move(*a.params))
                                    : scoring::search_statistics::none(std::move(a.why_not)));
  }
}

double hit_statistics::ln_evalue(std::size_t q, std::int64_t s, std::uint64_t query_length,
                                 std::uint64_t target_length) const {
  return stats_->ln_evalue(q, s, query_length, target_length, db_residues_, db_sequences_);
}

hit_view view_of(const run_context& ctx, const hit_statistics& stats, const hit& h, strand_cache& strands) {
  const sequence_record& q = ctx.queries.records.at(h.query_index);
  const sequence_record& t = ctx.targets.records.at(h.target_index);
  if (h.strand == dna_strand::minus && ctx.scheme.alphabet != alphabet_kind::dna)
    throw std::logic_error("output: a minus-strand hit in a protein search");
  const residue_span qr = strands.residues(q, h.query_index, h.strand);
  return {q,
          t,
          h.aln,
          h.strand,
          qr,
          compute_stats(h.aln, qr, t.residues, ctx.scheme.alphabet),
          stats.ln_evalue(h.query_index, h.aln.score, q.residues.size(), t.residues.size()),
          stats.bit_score(h.query_index, h.aln.score, q.residues.size(), t.residues.size())};
}

std::vector<std::vector<const hit*>> hits_by_query(const run_context& ctx, std::span<const hit> hits) {
  std::vector<std::vector<const hit*>> by_query(ctx.queries.records.size());
  for (const hit& h : hits) by_query.at(h.query_index).push_back(&h);
  return by_query;
}

blast_coordinates blast_coordinates_of(const hit_view& v) {
  const alignment& a = v.aln;
  if (v.strand == dna_strand::plus) return {a.query_begin + 1, a.query_end, a.target_begin + 1, a.target_end};
  const auto m = std::int64_t(v.query.residues.size());
  return {m - a.query_end + 1, m - a.query_begin, a.target_end, a.target_begin + 1};
}

namespace {

char complement_letter(char c) {
  switch (c) {
    case 'A': return 'T';
    case 'C': return 'G';
    case 'G': return 'C';
    case 'T': return 'A';
    default: return c;  // N and '-'
  }
}

void reverse_complement_row(std::string& row) {
  std::reverse(row.begin(), row.end());
  for (char& c : row) c = complement_letter(c);
}

}  // namespace

aligned_rows blast_rows(const hit_view& v, const scoring_scheme& scheme) {
  aligned_rows rows = layout(v.aln, v.query_residues, v.target.residues, scheme);
  if (v.strand == dna_strand::minus) {
    reverse_complement_row(rows.query);
    reverse_complement_row(rows.target);
    std::reverse(rows.markup.begin(), rows.markup.end());
  }
  return rows;
}

std::string blast_cigar(const hit_view& v, alphabet_kind kind) {
  std::string cigar = cigar_string(v.aln, v.query_residues, v.target.residues, kind, true);
  if (v.strand == dna_strand::plus) return cigar;
  // Reverse the order of the runs ("3=1X4=" -> "4=1X3=").
  std::vector<std::string> runs;
  std::size_t start = 0;
  for (std::size_t i = 0; i < cigar.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(cigar[i]))) {
      runs.push_back(cigar.substr(start, i + 1 - start));
      start = i + 1;
    }
  std::string out;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) out += *it;
  return out;
}

}  // namespace swat::output::detail

namespace swat::output {

void write_hits(std::ostream& out, const output_spec& spec, const run_context& ctx,
                std::span<const hit> hits) {
  check_inputs(spec, ctx.queries, ctx.targets);
  switch (spec.fmt) {
    case format::blast6: detail::write_blast6(out, spec, ctx, hits); break;
    case format::sam:
    case format::bam: detail::write_sam(out, spec, ctx, hits); break;
    case format::pair: detail::write_pair(out, ctx, hits); break;
    case format::json: detail::write_json(out, ctx, hits); break;
    default: throw std::logic_error("write_hits: unknown output format");
  }
  out.flush();
  if (!out) throw runtime_failure("cannot write output (stream error, disk full?)");
}

// BLAST+'s tabular output (CBlastTabularInfo::SetScores over CAlignFormatUtil::GetScoreString
// in objtools/align_format): below 1e-180 "0.0"; below 0.0009 two decimals of the exponent form
// ("4.40e-34"); then "%4.3f" below 0.1, "%3.2f" below 1, "%2.1f" below 10, "%2.0f" above.
std::string format_evalue(double ln_evalue) {
  if (std::isnan(ln_evalue)) return "nan";
  const double e = std::exp(ln_evalue);  // 0 far below the double range: "0.0" then
  char buf[400];
  if (e < 1.0e-180)
    return "0.0";
  else if (e < 0.0009)
    std::snprintf(buf, sizeof buf, "%.2e", e);
  else if (e < 0.1)
    std::snprintf(buf, sizeof buf, "%4.3f", e);
  else if (e < 1.0)
    std::snprintf(buf, sizeof buf, "%3.2f", e);
  else if (e < 10.0)
    std::snprintf(buf, sizeof buf, "%2.1f", e);
  else
    std::snprintf(buf, sizeof buf, "%2.0f", e);
  return buf;
}

// The same GetScoreString: "%5.3e" above 99999, the integer part above 99.9, else "%4.1f"
// (" 8.4": BLAST pads a bit score below 10 to four characters).
std::string format_bit_score(double bits) {
  if (std::isnan(bits)) return "nan";
  char buf[64];
  if (bits > 99999.0)
    std::snprintf(buf, sizeof buf, "%5.3e", bits);
  else if (bits > 99.9)
    std::snprintf(buf, sizeof buf, "%3ld", static_cast<long>(bits));  // BLAST truncates
  else
    std::snprintf(buf, sizeof buf, "%4.1f", bits);
  return buf;
}

}  // namespace swat::output

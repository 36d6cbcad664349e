#include "output/detail.hpp"

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

hit_view view_of(const run_context& ctx, const std::optional<karlin_params>& params, const hit& h) {
  const sequence_record& q = ctx.queries.records.at(h.query_index);
  const sequence_record& t = ctx.targets.records.at(h.target_index);
  hit_view v{q, t, h.aln, compute_stats(h.aln, q.residues, t.residues, ctx.scheme.alphabet),
             std::nullopt, std::nullopt};
  if (params) {
    v.evalue = evalue(*params, h.aln.score, q.residues.size(), ctx.db_residues);
    v.bit_score = bit_score(*params, h.aln.score);
  }
  return v;
}

}  // namespace swat::output::detail

namespace swat::output {

void write_hits(std::ostream& out, const output_spec& spec, const run_context& ctx,
                std::span<const hit> hits) {
  switch (spec.fmt) {
    case format::blast6: detail::write_blast6(out, spec, ctx, hits); break;
    case format::sam: detail::write_sam(out, ctx, hits); break;
    case format::pair: detail::write_pair(out, ctx, hits); break;
    case format::json: detail::write_json(out, ctx, hits); break;
    default: throw std::logic_error("write_hits: unknown output format");
  }
  out.flush();
  if (!out) throw runtime_failure("cannot write output (stream error, disk full?)");
}

}  // namespace swat::output

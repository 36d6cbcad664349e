// JSON writer: one array, one hit object per line; "[]" when there are no hits.
// Coordinates are 1-based inclusive like blast6; identity is a percentage (3 decimals);
// evalue and bitscore are null when the scheme has no published Karlin–Altschul parameters.

#include <cmath>
#include <cstdio>
#include <string>

#include "output/detail.hpp"

namespace swat::output::detail {
namespace {

std::string number(double v, const char* fmt) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string optional_number(const std::optional<double>& v) {
  return v ? number(*v, "%.6g") : "null";
}

std::string hit_object(const run_context& ctx, const hit_view& v) {
  const alignment& a = v.aln;
  const aligned_rows rows = layout(a, v.query_residues, v.target.residues, ctx.scheme);
  const blast_coordinates at = blast_coordinates_of(v);
  const auto field = [](const char* key, const std::string& value) {
    return std::string("\"") + key + "\": " + value;
  };
  std::string s = "{";
  s += field("query", json_quote(v.query.name)) + ", ";
  s += field("target", json_quote(v.target.name)) + ", ";
  s += field("score", std::to_string(a.score)) + ", ";
  s += field("query_start", std::to_string(at.qstart)) + ", ";
  s += field("query_end", std::to_string(at.qend)) + ", ";
  s += field("target_start", std::to_string(at.sstart)) + ", ";
  s += field("target_end", std::to_string(at.send)) + ", ";
  if (ctx.scheme.alphabet == alphabet_kind::dna)
    s += field("strand", v.strand == dna_strand::minus ? "\"minus\"" : "\"plus\"") + ", ";
  s += field("query_length", std::to_string(v.query.residues.size())) + ", ";
  s += field("target_length", std::to_string(v.target.residues.size())) + ", ";
  s += field("length", std::to_string(v.stats.length)) + ", ";
  s += field("identity", number(v.stats.identity_percent(), "%.3f")) + ", ";
  s += field("matches", std::to_string(v.stats.matches)) + ", ";
  s += field("mismatches", std::to_string(v.stats.mismatches)) + ", ";
  s += field("positives", std::to_string(rows.positives)) + ", ";
  s += field("gap_opens", std::to_string(v.stats.gap_opens)) + ", ";
  s += field("gaps", std::to_string(v.stats.gaps)) + ", ";
  s += field("cigar", json_quote(blast_cigar(v, ctx.scheme.alphabet))) + ", ";
  s += field("evalue", optional_number(v.evalue)) + ", ";
  s += field("bitscore", optional_number(v.bit_score));
  return s + "}";
}

}  // namespace

void write_json(std::ostream& out, const run_context& ctx, std::span<const hit> hits) {
  if (hits.empty()) {
    out << "[]\n";
    return;
  }
  const std::optional<karlin_params> params = find_karlin_params(ctx.scheme);
  strand_cache strands;
  out << "[\n";
  for (std::size_t i = 0; i < hits.size(); ++i) {
    out << "  " << hit_object(ctx, view_of(ctx, params, hits[i], strands));
    out << (i + 1 < hits.size() ? ",\n" : "\n");
  }
  out << "]\n";
}

}  // namespace swat::output::detail

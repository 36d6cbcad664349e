// JSON writer: one object, the run's metadata on one line, then one hit object per line:
//
//   {
//     "metadata": {"program": "swat-gpu", "version": ..., "command": ..., "engine": ...,
//                  "device": ..., "scheme": {...}, "queries": {...}, "database": {...},
//                  "statistics": {"method": "analytic" | "empirical" | "none", "description": ...},
//                  "evalue_parameters": {..., "finite_size_correction": {"a": ..., "b": ...,
//                                        "alpha": ..., "beta": ..., "sigma": ..., "tau": ...} |
//                                        null, "source": "ncbi_table" | "estimated",
//                                        "origin": ...} (analytic only, else null)},
//     "hits": [
//       {"query": ..., "target": ..., "score": ..., ...},
//       ...
//     ]
//   }
//
// Coordinates are 1-based inclusive as in BLAST tabular (minus-strand hits: target_start >
// target_end, "strand": "minus"; DNA hits only carry "strand"); identity is a percentage (3
// decimals); query_aligned/target_aligned are the aligned rows as BLAST's qseq/sseq; evalue and
// bitscore are the full doubles (the shortest text that reads back as the same double, not
// BLAST's rounded text); where the E-value is below the smallest normal double (2.2e-308) a
// "log10_evalue" follows it, computed in log space (-400.3 where evalue is 0); evalue and
// bitscore are null in a search without statistics.

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "output/detail.hpp"

namespace swat::output::detail {
namespace {

std::string number(double v, const char* fmt) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

//! The shortest text that reads back as v (std::to_chars), or null.
std::string full_double(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

std::string field(const char* key, const std::string& value) { return std::string("\"") + key + "\": " + value; }

//! "{k1: v1, k2: v2, ...}" from key/value pairs (values already JSON).
std::string object(std::initializer_list<std::pair<const char*, std::string>> fields) {
  std::string o = "{";
  for (const auto& [key, value] : fields) {
    if (o.size() > 1) o.append(", ");
    o.append(field(key, value));
  }
  return o.append("}");
}

//! Spouge's Gumbel parameters (karlin.hpp), or null where the classic formula applies.
std::string finite_size_correction(const std::optional<scoring::gumbel_params>& g) {
  if (!g) return "null";
  return object({{"a", number(g->a, "%.6g")},
                 {"b", number(g->b, "%.6g")},
                 {"alpha", number(g->alpha, "%.6g")},
                 {"beta", number(g->beta, "%.6g")},
                 {"sigma", number(g->sigma, "%.6g")},
                 {"tau", number(g->tau, "%.6g")}});
}

std::string evalue_parameters(const scoring::karlin_params* p) {
  if (!p) return "null";
  return object({{"lambda", number(p->lambda, "%.6g")},
                 {"k", number(p->k, "%.6g")},
                 {"h", number(p->h, "%.6g")},
                 {"alpha", number(p->alpha, "%.6g")},
                 {"beta", number(p->beta, "%.6g")},
                 {"even_scores_only", p->even_scores_only ? "true" : "false"},
                 {"finite_size_correction", finite_size_correction(p->gumbel)},
                 {"source", p->source == scoring::karlin_source::ncbi_table ? "\"ncbi_table\"" : "\"estimated\""},
                 {"origin", json_quote(p->origin)}});
}

std::string metadata(const run_context& ctx, const scoring::search_statistics& stats) {
  const scoring_scheme& s = ctx.scheme;
  return object({
      {"program", "\"swat-gpu\""},
      {"version", json_quote(ctx.program_version)},
      {"command", json_quote(ctx.command_line)},
      {"engine", json_quote(ctx.engine)},
      {"device", json_quote(ctx.device)},
      {"scheme", object({{"alphabet", json_quote(to_string(s.alphabet))},
                         {"matrix", json_quote(s.matrix_name)},
                         {"gap_open", std::to_string(s.gap_open)},
                         {"gap_extend", std::to_string(s.gap_extend)}})},
      {"queries", object({{"file", json_quote(ctx.queries.file)},
                          {"sequences", std::to_string(ctx.queries.records.size())}})},
      {"database", object({{"file", json_quote(ctx.targets.file)},
                           {"sequences", std::to_string(ctx.db_sequences ? ctx.db_sequences : ctx.targets.records.size())},
                           {"residues", std::to_string(ctx.db_residues)}})},
      {"statistics", object({{"method", json_quote(scoring::to_string(stats.method()))},
                             {"description", json_quote(stats.describe())}})},
      {"evalue_parameters", evalue_parameters(stats.analytic_params())},
  });
}

std::string optional_double(const std::optional<double>& v, const char* fmt) {
  return v ? number(*v, fmt) : "null";
}

std::string hit_object(const hit_record& r) {
  std::string s = "{";
  s += field("query", json_quote(r.query)) + ", ";
  s += field("target", json_quote(r.target)) + ", ";
  s += field("score", std::to_string(r.score)) + ", ";
  s += field("query_start", std::to_string(r.query_start)) + ", ";
  s += field("query_end", std::to_string(r.query_end)) + ", ";
  s += field("target_start", std::to_string(r.target_start)) + ", ";
  s += field("target_end", std::to_string(r.target_end)) + ", ";
  if (r.strand) s += field("strand", json_quote(*r.strand)) + ", ";
  s += field("query_length", std::to_string(r.query_length)) + ", ";
  s += field("target_length", std::to_string(r.target_length)) + ", ";
  s += field("length", std::to_string(r.length)) + ", ";
  s += field("identity", optional_double(r.identity, "%.3f")) + ", ";
  s += field("matches", std::to_string(r.matches)) + ", ";
  s += field("mismatches", std::to_string(r.mismatches)) + ", ";
  s += field("positives", std::to_string(r.positives)) + ", ";
  s += field("gap_opens", std::to_string(r.gap_opens)) + ", ";
  s += field("gaps", std::to_string(r.gaps)) + ", ";
  s += field("cigar", json_quote(r.cigar)) + ", ";
  s += field("evalue", r.evalue ? full_double(*r.evalue) : "null") + ", ";
  if (r.has_log10_evalue) s += field("log10_evalue", r.log10_evalue ? full_double(*r.log10_evalue) : "null") + ", ";
  s += field("bitscore", r.bitscore ? full_double(*r.bitscore) : "null") + ", ";
  s += field("query_aligned", json_quote(r.query_aligned)) + ", ";
  s += field("target_aligned", json_quote(r.target_aligned));
  return s + "}";
}

//! v when finite (the JSON text of a non-finite double is null).
std::optional<double> finite(double v) { return std::isfinite(v) ? std::optional<double>(v) : std::nullopt; }

//! The value "%.3f" text of v reads back as (null where v is not finite).
std::optional<double> rounded3(double v) {
  if (!std::isfinite(v)) return std::nullopt;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return std::strtod(buf, nullptr);
}

hit_record record_of(const run_context& ctx, const hit_view& v) {
  const aligned_rows rows = blast_rows(v, ctx.scheme);
  const blast_coordinates at = blast_coordinates_of(v);
  hit_record r;
  r.query = v.query.name;
  r.target = v.target.name;
  r.score = v.aln.score;
  r.query_start = at.qstart;
  r.query_end = at.qend;
  r.target_start = at.sstart;
  r.target_end = at.send;
  if (ctx.scheme.alphabet == alphabet_kind::dna) r.strand = v.strand == dna_strand::minus ? "minus" : "plus";
  r.query_length = v.query.residues.size();
  r.target_length = v.target.residues.size();
  r.length = v.stats.length;
  r.identity = rounded3(v.stats.identity_percent());
  r.matches = v.stats.matches;
  r.mismatches = v.stats.mismatches;
  r.positives = rows.positives;
  r.gap_opens = v.stats.gap_opens;
  r.gaps = v.stats.gaps;
  r.cigar = blast_cigar(v, ctx.scheme.alphabet);
  const double evalue = std::exp(v.ln_evalue);
  if (!std::isnan(v.ln_evalue)) r.evalue = finite(evalue);
  if (evalue < std::numeric_limits<double>::min()) {  // false for NaN
    r.has_log10_evalue = true;
    r.log10_evalue = finite(v.ln_evalue / std::log(10.0));
  }
  r.bitscore = finite(v.bit_score);
  r.query_aligned = rows.query;
  r.target_aligned = rows.target;
  return r;
}

}  // namespace

void write_json(std::ostream& out, const run_context& ctx, std::span<const hit> hits) {
  const hit_statistics stats(ctx);
  out << "{\n  \"metadata\": " << metadata(ctx, stats.statistics()) << ",\n  \"hits\": [";
  strand_cache strands;
  for (std::size_t i = 0; i < hits.size(); ++i)
    out << (i ? ",\n    " : "\n    ") << hit_object(record_of(ctx, view_of(ctx, stats, hits[i], strands)));
  out << (hits.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

}  // namespace swat::output::detail

namespace swat::output {

std::vector<hit_record> hit_records(const run_context& ctx, std::span<const hit> hits) {
  const detail::hit_statistics stats(ctx);
  detail::strand_cache strands;
  std::vector<hit_record> records;
  records.reserve(hits.size());
  for (const hit& h : hits) records.push_back(detail::record_of(ctx, detail::view_of(ctx, stats, h, strands)));
  return records;
}

}  // namespace swat::output

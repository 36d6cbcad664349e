// The fields of a search request (request.hpp).

#include "server/request.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "scoring/statistics.hpp"

namespace swat::server {
namespace {

const char* strand_name(pipeline::strand_choice s) {
  return s == pipeline::strand_choice::both ? "both" : s == pipeline::strand_choice::plus ? "plus" : "minus";
}

long long integer_field(const message& m, const char* key, long long min, long long max) {
  const std::string& text = m.get(key);
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min || v > max)
    throw protocol_error("the field '" + std::string(key) + "' is not an integer in range");
  return v;
}

std::optional<int> optional_int(const message& m, const char* key) {
  if (!m.find(key)) return std::nullopt;
  return int(integer_field(m, key, INT32_MIN, INT32_MAX));
}

const char* stats_name(scoring::stats_choice c) {
  switch (c) {
    case scoring::stats_choice::analytic: return "analytic";
    case scoring::stats_choice::empirical: return "empirical";
    case scoring::stats_choice::none: return "none";
    default: return "auto";
  }
}

bool flag(const message& m, const char* key) { return integer_field(m, key, 0, 1) == 1; }

}  // namespace

message make_request(const pipeline::align_options& o, const sequence_set& queries) {
  message m{message_type::request, {}};
  m.set("query", o.query_path)
      .set("alphabet", std::string(to_string(queries.alphabet)))
      .set("records", encode_records(queries.records))
      .set("outfmt", o.outfmt_text)
      .set("sam_hit_only", o.outfmt.sam_hit_only ? "1" : "0")
      .set("max_hits", std::to_string(o.max_hits))
      .set("max_hsps", std::to_string(o.max_hsps))
      .set("min_score", std::to_string(o.stats.min_score))
      .set("evalue", o.evalue_text)
      .set("evalue_given", o.stats.evalue_given ? "1" : "0")
      .set("stats", stats_name(o.stats.choice))
      .set("command_line", o.command_line);
  if (o.strand_option) m.set("strand", strand_name(*o.strand_option));
  const pipeline::scoring_options& s = o.scoring;
  if (s.match) m.set("match", std::to_string(*s.match));
  if (s.mismatch) m.set("mismatch", std::to_string(*s.mismatch));
  if (s.gap_open) m.set("gap_open", std::to_string(*s.gap_open));
  if (s.gap_extend) m.set("gap_extend", std::to_string(*s.gap_extend));
  if (!s.matrix.empty()) m.set("matrix", s.matrix);
  if (!s.matrix_file.empty()) m.set("matrix_file", s.matrix_file);
  return m;
}

search_request parse_request(const message& m) {
  search_request r;
  pipeline::align_options& o = r.options;
  o.query_path = m.get("query");
  const std::string& alphabet = m.get("alphabet");
  if (alphabet != "dna" && alphabet != "protein") throw protocol_error("the field 'alphabet' is neither dna nor protein");
  r.queries.alphabet = alphabet == "dna" ? alphabet_kind::dna : alphabet_kind::protein;
  r.queries.file = o.query_path;
  r.queries.records = decode_records(m.get("records"), r.queries.alphabet);
  o.outfmt_text = m.get("outfmt");
  o.outfmt = output::parse_outfmt(o.outfmt_text);
  o.outfmt.sam_hit_only = flag(m, "sam_hit_only");
  o.max_hits = std::size_t(integer_field(m, "max_hits", 1, LLONG_MAX));
  o.max_hsps = std::size_t(integer_field(m, "max_hsps", 0, LLONG_MAX));
  o.stats.min_score = int(integer_field(m, "min_score", INT32_MIN, INT32_MAX));
  o.evalue_text = m.get("evalue");
  char* end = nullptr;
  o.stats.max_evalue = std::strtod(o.evalue_text.c_str(), &end);
  if (o.evalue_text.empty() || *end != '\0' || !(o.stats.max_evalue > 0))
    throw protocol_error("the field 'evalue' is not a positive number");
  o.stats.evalue_given = flag(m, "evalue_given");
  o.stats.choice = scoring::parse_stats_choice(m.get("stats"));
  o.command_line = m.get("command_line");
  if (const std::string* strand = m.find("strand")) o.strand_option = pipeline::parse_strand_choice(*strand);
  pipeline::scoring_options& s = o.scoring;
  s.match = optional_int(m, "match");
  s.mismatch = optional_int(m, "mismatch");
  s.gap_open = optional_int(m, "gap_open");
  s.gap_extend = optional_int(m, "gap_extend");
  if (const std::string* v = m.find("matrix")) s.matrix = *v;
  if (const std::string* v = m.find("matrix_file")) s.matrix_file = *v;
  return r;
}

}  // namespace swat::server

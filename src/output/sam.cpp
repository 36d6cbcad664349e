// SAM/BAM writer (SAM v1.6, https://samtools.github.io/hts-specs/SAMv1.pdf): builds the header
// and the records; sam_sinks.cpp writes them through htslib (DNA: SAM or BAM) or as text
// (protein, which BAM cannot store).
//
// Header: @HD VN:1.6 SO:unsorted; one @SQ per database record in input order (names checked
// unique and valid first: check_inputs); @PG ID:swat-gpu with VN, CL (the full command line) and
// DS (engine and device); @CO lines with the scoring scheme and the E-value parameters and
// their source.
// Records, per query in query order: each hit of the query in the order given, the first
// primary, later ones secondary (FLAG 256); minus-strand hits FLAG 16 with SEQ reverse-
// complemented (output.hpp). Every mapped record carries the full SEQ (secondary ones too),
// CIGAR with =/X and soft clips (S) for the query ends outside the local alignment, MAPQ 255,
// and the tags AS:i (score), NM:i (mismatches + gap residues), MD:Z (as samtools calmd writes
// it: N never matches) and ZE:Z (the E-value as BLAST's tabular output prints it, "0.0" below
// 1e-180: format_evalue; left out in a search without statistics). A query without hits gets an
// unmapped record (FLAG 4, RNAME '*', no tags) unless output_spec::sam_hit_only; so does a hit
// without an alignment (score 0).
// Sequences are written as the encoded residues read back: IUPAC codes other than ACGT as N.
//
// Protein SAM holds amino-acid letters in SEQ, as DIAMOND writes it: the SAM grammar allows any
// letter and samtools reads such files, but htslib keeps SEQ as 4-bit nucleotide codes, so
// anything it writes back (SAM or BAM) shows letters that are not IUPAC codes as N.

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/error.hpp"
#include "output/detail.hpp"
#include "output/sam_record.hpp"
#include "output/sam_sinks.hpp"

namespace swat::output {
namespace {

bool valid_qname(std::string_view n) {
  if (n.empty() || n.size() > 254) return false;
  return std::all_of(n.begin(), n.end(), [](char c) { return c >= '!' && c <= '~' && c != '@'; });
}

bool valid_rname(std::string_view n) {
  if (n.empty() || n[0] == '*' || n[0] == '=') return false;
  constexpr std::string_view forbidden = "\\,\"'`()[]{}<>";
  return std::all_of(n.begin(), n.end(),
                     [&](char c) { return c >= '!' && c <= '~' && forbidden.find(c) == std::string_view::npos; });
}

std::string record_label(std::size_t index, const std::string& name) {
  return "record " + std::to_string(index + 1) + " '" + name + "'";
}

}  // namespace

void check_inputs(const output_spec& spec, const sequence_set& queries, const sequence_set& targets) {
  if (spec.fmt != format::sam && spec.fmt != format::bam) return;
  if (spec.fmt == format::bam && queries.alphabet != alphabet_kind::dna)
    throw usage_error("--outfmt bam: BAM stores nucleotides only (4-bit bases) and this is a " +
                      std::string(to_string(queries.alphabet)) + " search; use --outfmt sam (text SAM keeps "
                      "amino-acid letters)");
  for (std::size_t i = 0; i < queries.records.size(); ++i)
    if (!valid_qname(queries.records[i].name))
      throw input_error(queries.file,
                        "name '" + queries.records[i].name + "' cannot be a SAM QNAME (1 to 254 printable "
                        "characters other than '@'); rename the record or use another --outfmt",
                        std::to_string(i + 1));
  std::unordered_map<std::string_view, std::size_t> seen;
  for (std::size_t i = 0; i < targets.records.size(); ++i) {
    const std::string& name = targets.records[i].name;
    if (!valid_rname(name))
      throw input_error(targets.file,
                        "name '" + name + "' cannot be a SAM reference name (printable characters without "
                        "\\ , \" ' ` ( ) [ ] { } < >, not starting with * or =); rename the record or use "
                        "another --outfmt",
                        std::to_string(i + 1));
    const auto [it, fresh] = seen.emplace(name, i);
    if (!fresh)
      throw input_error(targets.file, record_label(it->second, name) + " and " + record_label(i, name) +
                                          " have the same name; SAM needs unique reference names (rename one, "
                                          "or use another --outfmt)");
  }
}

namespace detail {
namespace {

//! MD:Z as samtools calmd writes it: counts of identical bases, the reference letter at each
//! mismatch, "^" and the deleted reference letters at each deletion; insertions are skipped.
std::string md_tag(const alignment& a, residue_span query, residue_span target, alphabet_kind kind) {
  std::string md;
  std::int64_t same = 0, qi = a.query_begin, ti = a.target_begin;
  for (const cigar_op& c : a.ops) {
    if (c.op == 'I') {
      qi += c.length;
      continue;
    }
    if (c.op == 'D') {
      md += std::to_string(same) + '^';
      for (std::uint32_t k = 0; k < c.length; ++k) md += rank_to_char(kind, target[std::size_t(ti++)]);
      same = 0;
      continue;
    }
    for (std::uint32_t k = 0; k < c.length; ++k, ++qi, ++ti) {
      if (residues_identical(kind, query[std::size_t(qi)], target[std::size_t(ti)])) {
        ++same;
      } else {
        md += std::to_string(same) + rank_to_char(kind, target[std::size_t(ti)]);
        same = 0;
      }
    }
  }
  return md + std::to_string(same);
}

//! Extended CIGAR runs (= X I D) of an alignment, with soft clips for the query ends.
std::vector<std::pair<char, std::uint32_t>> sam_cigar(const alignment& a, residue_span query, residue_span target,
                                                      alphabet_kind kind) {
  std::vector<std::pair<char, std::uint32_t>> runs;
  const auto push = [&](char op, std::uint32_t n) {
    if (!runs.empty() && runs.back().first == op)
      runs.back().second += n;
    else
      runs.emplace_back(op, n);
  };
  if (a.query_begin > 0) push('S', std::uint32_t(a.query_begin));
  std::int64_t qi = a.query_begin, ti = a.target_begin;
  for (const cigar_op& c : a.ops) {
    if (c.op != 'M') {
      push(c.op, c.length);
      (c.op == 'I' ? qi : ti) += c.length;
      continue;
    }
    for (std::uint32_t k = 0; k < c.length; ++k, ++qi, ++ti)
      push(residues_identical(kind, query[std::size_t(qi)], target[std::size_t(ti)]) ? '=' : 'X', 1);
  }
  if (std::int64_t(query.size()) > a.query_end) runs.emplace_back('S', std::uint32_t(std::int64_t(query.size()) - a.query_end));
  return runs;
}

std::string header_text(const run_context& ctx, const scoring::search_statistics& stats) {
  std::string h = "@HD\tVN:1.6\tSO:unsorted\n";
  for (const sequence_record& t : ctx.targets.records)
    h += "@SQ\tSN:" + t.name + "\tLN:" + std::to_string(t.residues.size()) + '\n';
  h += "@PG\tID:swat-gpu\tPN:swat-gpu";
  if (!ctx.program_version.empty()) h += "\tVN:" + one_line(ctx.program_version);
  if (!ctx.command_line.empty()) h += "\tCL:" + one_line(ctx.command_line);
  if (!ctx.engine.empty())
    h += "\tDS:engine " + one_line(ctx.engine) + (ctx.device.empty() ? "" : " on " + one_line(ctx.device));
  h += "\n@CO\tscoring: " + one_line(ctx.scheme.matrix_name) + ", gap open " + std::to_string(ctx.scheme.gap_open) +
       " extend " + std::to_string(ctx.scheme.gap_extend) + " (a gap of k residues costs open + k*extend)\n";
  if (const scoring::karlin_params* p = stats.analytic_params())
    h += "@CO\tE-values (ZE tag): " + one_line(scoring::describe(*p)) + '\n';
  else if (stats.method() == scoring::evalue_method::empirical)
    h += "@CO\tE-values (ZE tag): " + one_line(stats.describe()) + '\n';
  else
    h += "@CO\tE-values: " + one_line(stats.describe()) + " (no ZE tags)\n";
  return h;
}

}  // namespace

void write_sam(std::ostream& out, const output_spec& spec, const run_context& ctx, std::span<const hit> hits) {
  const hit_statistics stats(ctx);
  const alphabet_kind kind = ctx.scheme.alphabet;
  std::unique_ptr<sam_sink> sink = kind == alphabet_kind::dna ? make_htslib_sink(out, spec.fmt == format::bam)
                                                              : make_text_sink(out, ctx.targets);
  sink->header(header_text(ctx, stats.statistics()));
  strand_cache strands;
  const std::vector<std::vector<const hit*>> by_query = hits_by_query(ctx, hits);
  for (std::size_t q = 0; q < by_query.size(); ++q) {
    const sequence_record& query = ctx.queries.records[q];
    if (by_query[q].empty() && !spec.sam_hit_only) {
      sam_record r;
      r.qname = &query.name;
      r.flag = 4;
      r.seq = letters(query.residues, kind);
      sink->record(r);
    }
    bool primary = true;
    for (const hit* h : by_query[q]) {
      const hit_view v = view_of(ctx, stats, *h, strands);
      sam_record r;
      r.qname = &query.name;
      r.seq = letters(v.query_residues, kind);
      if (h->aln.ops.empty()) {
        if (spec.sam_hit_only) continue;
        r.flag = 4;
        sink->record(r);
        continue;
      }
      r.flag = (primary ? 0 : 256) | (h->strand == dna_strand::minus ? 16 : 0);
      primary = false;
      r.tid = std::int32_t(h->target_index);
      r.pos = h->aln.target_begin;
      r.cigar = sam_cigar(h->aln, v.query_residues, v.target.residues, kind);
      r.as = h->aln.score;
      r.nm = v.stats.mismatches + v.stats.gaps;
      r.md = md_tag(h->aln, v.query_residues, v.target.residues, kind);
      if (!std::isnan(v.ln_evalue)) r.ze = format_evalue(v.ln_evalue);
      sink->record(r);
    }
  }
  sink->finish();
}

}  // namespace detail
}  // namespace swat::output

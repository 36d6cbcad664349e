// BLAST tabular writer: -outfmt 6 rows, and -outfmt 7's comment lines around each query's rows.
//
// Values follow BLAST+ 2.12: pident with 3 decimals, ppos with 2, qcovs/qcovhsp as rounded
// integer percentages, minus-strand hits with sstart > send and sstrand "minus" (N/A for
// protein). Comment lines (7), per query in query order, queries without hits included:
//   # swat-gpu VERSION
//   # Query: NAME DESCRIPTION
//   # Database: DB FILE
//   # Fields: query id, subject id, ...        (only when the query has hits, as BLAST)
//   # N hits found
// and "# swat-gpu processed N queries" at the end. Biopython's SearchIO "blast-tab" parser
// reads both forms (with comments=True for 7).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "common/parallel.hpp"
#include "output/columns.hpp"
#include "output/detail.hpp"

namespace swat::output::detail {
namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string percent_rounded(std::int64_t part, std::int64_t whole) {
  return std::to_string(whole ? std::int64_t(std::floor(100.0 * double(part) / double(whole) + 0.5)) : 0);
}

//! Query residues covered by all hits of each (query, target) pair, on the forward query.
std::map<std::pair<std::size_t, std::size_t>, std::int64_t> coverage_per_target(const run_context& ctx,
                                                                                std::span<const hit> hits) {
  std::map<std::pair<std::size_t, std::size_t>, std::vector<std::pair<std::int64_t, std::int64_t>>> spans;
  for (const hit& h : hits) {
    const auto m = std::int64_t(ctx.queries.records.at(h.query_index).residues.size());
    const bool minus = h.strand == dna_strand::minus;
    spans[{h.query_index, h.target_index}].push_back(
        {minus ? m - h.aln.query_end : h.aln.query_begin, minus ? m - h.aln.query_begin : h.aln.query_end});
  }
  std::map<std::pair<std::size_t, std::size_t>, std::int64_t> covered;
  for (auto& [key, list] : spans) {
    std::sort(list.begin(), list.end());
    std::int64_t total = 0, end = 0;
    for (const auto& [b, e] : list) {
      total += std::max<std::int64_t>(0, e - std::max(b, end));
      end = std::max(end, e);
    }
    covered[key] = total;
  }
  return covered;
}

class row_writer {
 public:
  row_writer(const output_spec& spec, const run_context& ctx, std::span<const hit> hits)
      : ctx_(ctx), stats_(ctx) {
    for (const std::string& c : spec.columns.empty() ? standard_blast6_columns() : spec.columns) {
      const std::optional<std::size_t> id = find_column(c);
      if (!id) throw usage_error("--outfmt: unknown column '" + c + "'");
      columns_.push_back(*id);
      const std::string_view n = column_defs[*id].name;
      needs_rows_ = needs_rows_ || n == "qseq" || n == "sseq" || n == "positive" || n == "ppos";
      if (n == "qcovs" && coverage_.empty()) coverage_ = coverage_per_target(ctx, hits);
    }
  }

  void write(std::ostream& out, const hit& h) {
    line_.clear();
    append(line_, h);
    out << line_;
  }

  //! The row of h, appended to `to`.
  void append(std::string& to, const hit& h) {
    const hit_view v = view_of(ctx_, stats_, h, strands_);
    const blast_coordinates at = blast_coordinates_of(v);
    const aligned_rows rows = needs_rows_ ? blast_rows(v, ctx_.scheme) : aligned_rows{};
    const auto qlen = std::int64_t(v.query.residues.size());
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      if (i) to += '\t';
      const std::string_view c = column_defs[columns_[i]].name;
      if (c == "qseqid") to += v.query.name;
      else if (c == "sseqid") to += v.target.name;
      else if (c == "pident") to += fixed(v.stats.identity_percent(), 3);
      else if (c == "length") to += std::to_string(v.stats.length);
      else if (c == "mismatch") to += std::to_string(v.stats.mismatches);
      else if (c == "gapopen") to += std::to_string(v.stats.gap_opens);
      else if (c == "qstart") to += std::to_string(at.qstart);
      else if (c == "qend") to += std::to_string(at.qend);
      else if (c == "sstart") to += std::to_string(at.sstart);
      else if (c == "send") to += std::to_string(at.send);
      else if (c == "evalue") to += format_evalue(v.ln_evalue);
      else if (c == "bitscore") to += format_bit_score(v.bit_score);
      else if (c == "score") to += std::to_string(h.aln.score);
      else if (c == "cigar") to += blast_cigar(v, ctx_.scheme.alphabet);
      else if (c == "qlen") to += std::to_string(qlen);
      else if (c == "slen") to += std::to_string(v.target.residues.size());
      else if (c == "nident") to += std::to_string(v.stats.matches);
      else if (c == "positive") to += std::to_string(rows.positives);
      else if (c == "gaps") to += std::to_string(v.stats.gaps);
      else if (c == "ppos") to += fixed(v.stats.length ? 100.0 * double(rows.positives) / double(v.stats.length) : 0, 2);
      else if (c == "qseq") to += rows.query;
      else if (c == "sseq") to += rows.target;
      else if (c == "sstrand")
        to += ctx_.scheme.alphabet != alphabet_kind::dna ? "N/A" : v.strand == dna_strand::minus ? "minus" : "plus";
      else if (c == "qcovs") to += percent_rounded(coverage_.at({h.query_index, h.target_index}), qlen);
      else if (c == "qcovhsp") to += percent_rounded(h.aln.query_end - h.aln.query_begin, qlen);
      else throw std::logic_error("blast6: column without a writer");
    }
    to += '\n';
  }

  //! "# Fields: query id, subject id, ..." (BLAST's long names).
  std::string fields_line() const {
    std::string s = "# Fields: ";
    for (std::size_t i = 0; i < columns_.size(); ++i) s += (i ? ", " : "") + std::string(column_defs[columns_[i]].long_name);
    return s + '\n';
  }

 private:
  const run_context& ctx_;
  hit_statistics stats_;
  strand_cache strands_;
  std::vector<std::size_t> columns_;
  bool needs_rows_ = false;
  std::map<std::pair<std::size_t, std::size_t>, std::int64_t> coverage_;
  std::string line_;
};

//! Rows formatted on several threads (a row's identity and gaps walk its alignment: 10,000 rows
//! of 1–3 kb alignments took 0.04 s on one thread), in rounds of at most rows_per_round rows:
//! a round is cut into one run of rows a thread, each formatted by a writer of its own (its
//! strand cache) into a string, and the strings are written in order. Fewer than
//! 2 × rows_per_thread rows stay on this thread.
constexpr std::size_t rows_per_round = std::size_t(1) << 16;
constexpr std::size_t rows_per_thread = 256;

void write_rows(std::ostream& out, const output_spec& spec, const run_context& ctx, std::span<const hit> hits) {
  const std::size_t threads =
      std::min<std::size_t>({8, std::max(1u, std::thread::hardware_concurrency()), hits.size() / rows_per_thread});
  if (threads < 2) {
    row_writer rows(spec, ctx, hits);
    for (const hit& h : hits) rows.write(out, h);
    return;
  }
  std::vector<std::string> runs(threads);
  // One writer a run, made once (qcovs's coverage is a pass over every hit): run t of every round
  // is formatted by writers[t], by one thread at a time.
  std::vector<std::unique_ptr<row_writer>> writers(threads);
  for (std::size_t first = 0; first < hits.size(); first += rows_per_round) {
    const std::span<const hit> round = hits.subspan(first, std::min(rows_per_round, hits.size() - first));
    parallel_for(threads, unsigned(threads), 1, [&](std::size_t t) {
      if (!writers[t]) writers[t] = std::make_unique<row_writer>(spec, ctx, hits);
      runs[t].clear();
      for (std::size_t k = round.size() * t / threads, end = round.size() * (t + 1) / threads; k < end; ++k)
        writers[t]->append(runs[t], round[k]);
    });
    for (const std::string& text : runs) out << text;
  }
}

}  // namespace

void write_blast6(std::ostream& out, const output_spec& spec, const run_context& ctx, std::span<const hit> hits) {
  if (!spec.comments) {
    write_rows(out, spec, ctx, hits);
    return;
  }
  row_writer rows(spec, ctx, hits);
  const std::vector<std::vector<const hit*>> by_query = hits_by_query(ctx, hits);
  for (std::size_t q = 0; q < by_query.size(); ++q) {
    const sequence_record& query = ctx.queries.records[q];
    out << "# swat-gpu " << one_line(ctx.program_version) << '\n' << "# Query: " << query.name;
    if (!query.description.empty()) out << ' ' << one_line(query.description);
    out << '\n' << "# Database: " << one_line(ctx.targets.file) << '\n';
    if (!by_query[q].empty()) out << rows.fields_line();
    out << "# " << by_query[q].size() << " hits found\n";
    for (const hit* h : by_query[q]) rows.write(out, *h);
  }
  out << "# swat-gpu processed " << by_query.size() << " queries\n";
}

}  // namespace swat::output::detail

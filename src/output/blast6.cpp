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
#include <utility>

#include "common/error.hpp"
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
    const hit_view v = view_of(ctx_, stats_, h, strands_);
    const blast_coordinates at = blast_coordinates_of(v);
    const aligned_rows rows = needs_rows_ ? blast_rows(v, ctx_.scheme) : aligned_rows{};
    const auto qlen = std::int64_t(v.query.residues.size());
    line_.clear();
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      if (i) line_ += '\t';
      const std::string_view c = column_defs[columns_[i]].name;
      if (c == "qseqid") line_ += v.query.name;
      else if (c == "sseqid") line_ += v.target.name;
      else if (c == "pident") line_ += fixed(v.stats.identity_percent(), 3);
      else if (c == "length") line_ += std::to_string(v.stats.length);
      else if (c == "mismatch") line_ += std::to_string(v.stats.mismatches);
      else if (c == "gapopen") line_ += std::to_string(v.stats.gap_opens);
      else if (c == "qstart") line_ += std::to_string(at.qstart);
      else if (c == "qend") line_ += std::to_string(at.qend);
      else if (c == "sstart") line_ += std::to_string(at.sstart);
      else if (c == "send") line_ += std::to_string(at.send);
      else if (c == "evalue") line_ += format_evalue(v.ln_evalue);
      else if (c == "bitscore") line_ += format_bit_score(v.bit_score);
      else if (c == "score") line_ += std::to_string(h.aln.score);
      else if (c == "cigar") line_ += blast_cigar(v, ctx_.scheme.alphabet);
      else if (c == "qlen") line_ += std::to_string(qlen);
      else if (c == "slen") line_ += std::to_string(v.target.residues.size());
      else if (c == "nident") line_ += std::to_string(v.stats.matches);
      else if (c == "positive") line_ += std::to_string(rows.positives);
      else if (c == "gaps") line_ += std::to_string(v.stats.gaps);
      else if (c == "ppos") line_ += fixed(v.stats.length ? 100.0 * double(rows.positives) / double(v.stats.length) : 0, 2);
      else if (c == "qseq") line_ += rows.query;
      else if (c == "sseq") line_ += rows.target;
      else if (c == "sstrand")
        line_ += ctx_.scheme.alphabet != alphabet_kind::dna ? "N/A" : v.strand == dna_strand::minus ? "minus" : "plus";
      else if (c == "qcovs") line_ += percent_rounded(coverage_.at({h.query_index, h.target_index}), qlen);
      else if (c == "qcovhsp") line_ += percent_rounded(h.aln.query_end - h.aln.query_begin, qlen);
      else throw std::logic_error("blast6: column without a writer");
    }
    line_ += '\n';
    out << line_;
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

}  // namespace

void write_blast6(std::ostream& out, const output_spec& spec, const run_context& ctx, std::span<const hit> hits) {
  row_writer rows(spec, ctx, hits);
  if (!spec.comments) {
    for (const hit& h : hits) rows.write(out, h);
    return;
  }
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

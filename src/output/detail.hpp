#pragma once
// Internals shared by the writers of src/output (not part of the public API).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "output/output.hpp"
#include "scoring/karlin.hpp"

namespace swat::output::detail {

//! An alignment laid out column by column: residues or '-' in each row, plus water's markup
//! ('|' identical, ':' different with positive score, '.' other pair, ' ' gap).
struct aligned_rows {
  std::string query;
  std::string target;
  std::string markup;
  std::int64_t positives = 0;  //!< aligned pairs with substitution score > 0
};

//! Lays out aln over its sequences; all three strings have alignment_stats::length characters.
aligned_rows layout(const alignment& aln, residue_span query, residue_span target,
                    const scoring_scheme& scheme);

//! The letters of a whole encoded sequence.
std::string letters(residue_span residues, alphabet_kind kind);

//! s with tabs, carriage returns and newlines replaced by spaces (for one-line header fields).
std::string one_line(std::string_view s);

//! s as a JSON string literal, quotes included (", \ and control characters escaped).
std::string json_quote(std::string_view s);

//! Complement of a DNA rank (common/sequence.hpp).
inline std::uint8_t complement(std::uint8_t rank) { return dna_complement(rank); }

//! Residues of a query on the strand a hit aligns: the record's own, or its reverse complement
//! (built once and kept until another query's is asked for; hits come grouped by query).
class strand_cache {
 public:
  //! Residues of query record q (index i) on strand s; valid until the next call.
  residue_span residues(const sequence_record& q, std::size_t i, dna_strand s);

 private:
  std::size_t index_ = SIZE_MAX;
  std::vector<std::uint8_t> reverse_;
};

//! E-values and bit scores of a run: its statistics (the run's, or resolved here: the scheme's
//! analytic parameters, else none) and the database size.
class hit_statistics {
 public:
  explicit hit_statistics(const run_context& ctx);
  //! The statistics in use.
  const scoring::search_statistics& statistics() const { return *stats_; }
  //! ln E of raw score s of query q (query_length residues) against a target of target_length
  //! residues; NaN without statistics.
  double ln_evalue(std::size_t q, std::int64_t s, std::uint64_t query_length, std::uint64_t target_length) const;
  //! Bit score of raw score s (NaN without statistics).
  double bit_score(std::size_t q, std::int64_t s, std::uint64_t query_length, std::uint64_t target_length) const {
    return stats_->bit_score(q, s, query_length, target_length);
  }

 private:
  std::optional<scoring::search_statistics> own_;
  const scoring::search_statistics* stats_;
  std::uint64_t db_residues_, db_sequences_;
};

//! Everything one hit's formatting needs, resolved once.
struct hit_view {
  const sequence_record& query;
  const sequence_record& target;
  const alignment& aln;
  dna_strand strand;
  residue_span query_residues;  //!< what aln indexes: the query, or its reverse complement
  alignment_stats stats;
  double ln_evalue;  //!< natural log of the E-value
  double bit_score;  //!< bits
};

//! Resolves h against ctx (stats, E-value, bit score). Throws std::out_of_range on bad indices
//! and std::logic_error for a minus-strand protein hit.
hit_view view_of(const run_context& ctx, const hit_statistics& stats, const hit& h, strand_cache& strands);

//! 1-based inclusive coordinates as BLAST reports them: the query on its forward strand
//! (qstart <= qend), the target reversed for minus-strand hits (sstart > send).
struct blast_coordinates {
  std::int64_t qstart, qend, sstart, send;
};

//! BLAST's coordinates of a hit (see output.hpp for the minus-strand convention).
blast_coordinates blast_coordinates_of(const hit_view& v);

//! The rows as BLAST shows them: for minus-strand hits both rows and the markup reversed and
//! complemented, so the query reads forward and the target reverse-complemented.
aligned_rows blast_rows(const hit_view& v, const scoring_scheme& scheme);

//! Extended CIGAR (=/X/I/D) in the orientation of blast_rows (runs reversed for minus hits).
std::string blast_cigar(const hit_view& v, alphabet_kind kind);

//! The hits of each query, in query order, each list in the order given.
std::vector<std::vector<const hit*>> hits_by_query(const run_context& ctx, std::span<const hit> hits);

void write_blast6(std::ostream& out, const output_spec& spec, const run_context& ctx,
                  std::span<const hit> hits);
void write_sam(std::ostream& out, const output_spec& spec, const run_context& ctx, std::span<const hit> hits);
void write_pair(std::ostream& out, const run_context& ctx, std::span<const hit> hits);
void write_json(std::ostream& out, const run_context& ctx, std::span<const hit> hits);

}  // namespace swat::output::detail

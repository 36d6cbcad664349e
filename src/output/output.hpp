#pragma once
// Result writers of swat-gpu: BLAST tabular (outfmt 6), SAM, EMBOSS-water-like pairwise text and
// JSON. Plain C++: no SeqAn3, no CUDA. The pipeline sorts and filters hits; writers only format.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/alignment.hpp"
#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"

namespace swat::output {

//! Which strand of a DNA query a hit aligns. Protein hits are always plus.
enum class dna_strand : std::uint8_t { plus, minus };

//! One reported alignment: indices into run_context::queries / ::targets records.
//!
//! Minus-strand convention: for strand == minus, aln is an alignment of the REVERSE COMPLEMENT
//! of the query (query coordinates count along the reverse complement) against the forward
//! target. Writers map it as the formats expect: BLAST tabular and JSON as BLAST reports it
//! (query coordinates on the forward query, qstart < qend; target coordinates reversed,
//! sstart > send; qseq is the forward query, sseq the reverse-complemented target); SAM with
//! FLAG 16, POS on the forward target and SEQ reverse-complemented; pair shows the alignment as
//! computed (reverse-complemented query, positions counted along it, forward target).
struct hit {
  std::size_t query_index;
  std::size_t target_index;
  alignment aln;
  dna_strand strand = dna_strand::plus;
};

//! Output formats.
enum class format { blast6, sam, pair, json };

//! A parsed --outfmt: the format and, for blast6, the column names in print order.
struct output_spec {
  format fmt = format::blast6;
  //! blast6 only: column names (the 12 standard ones, then the extras); empty otherwise.
  std::vector<std::string> columns;
};

//! The 12 standard BLAST outfmt-6 columns, in BLAST's order.
const std::vector<std::string>& standard_blast6_columns();

//! Every column name blast6 accepts (the standard ones first, then the extras).
const std::vector<std::string>& known_blast6_columns();

//! Parses --outfmt text: "blast6" (alias "6"), "blast6 score cigar" (the 12 standard columns
//! followed by the named extras; separators are spaces, tabs or commas), "sam", "pair", "json".
//! Format names are case-insensitive. Throws swat::usage_error naming the unknown format or
//! column and listing the valid ones.
output_spec parse_outfmt(std::string_view text);

//! Multi-line description of the formats and columns for --help.
std::string outfmt_help();

//! What writers need besides the hits: the sequences, the scores and the run description.
struct run_context {
  const sequence_set& queries;
  const sequence_set& targets;
  const scoring_scheme& scheme;
  //! Written into SAM @PG VN and the pairwise header, e.g. "0.1.0".
  std::string program_version;
  //! Written into SAM @PG CL and the pairwise header (tabs and newlines become spaces).
  std::string command_line;
  //! Total residues of the database (targets), N of the E-value (residues).
  std::uint64_t db_residues;
};

//! Writes all hits in spec's format to out. Throws swat::runtime_failure when out fails.
void write_hits(std::ostream& out, const output_spec& spec, const run_context& ctx,
                std::span<const hit> hits);

}  // namespace swat::output

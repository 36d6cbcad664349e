#pragma once
// Result writers of swat-gpu: BLAST tabular (-outfmt 6, and 7 with comment lines), SAM and BAM
// (through htslib), EMBOSS-water-like pairwise text and JSON. Plain C++: no SeqAn3, no CUDA.
// The pipeline sorts and filters hits; writers only format.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/alignment.hpp"
#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "scoring/statistics.hpp"

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

//! Output formats. blast6 is BLAST tabular, with comment lines (-outfmt 7) when
//! output_spec::comments is set.
enum class format { blast6, sam, bam, pair, json };

//! A parsed --outfmt.
struct output_spec {
  format fmt = format::blast6;
  //! Tabular only: column names in print order (BLAST's names, see known_blast6_columns()).
  std::vector<std::string> columns;
  //! Tabular only: BLAST -outfmt 7 comment lines (program, query, database, fields, hit count).
  bool comments = false;
  //! SAM/BAM only: leave out the unmapped records of queries without hits (--sam-hit-only).
  bool sam_hit_only = false;
};

//! The 12 standard BLAST outfmt-6 columns ("std"), in BLAST's order.
const std::vector<std::string>& standard_blast6_columns();

//! Every column name tabular output accepts (the standard ones first, then the extras).
const std::vector<std::string>& known_blast6_columns();

//! Parses --outfmt text, case-insensitively, words separated by spaces, tabs or commas:
//!   "6" / "7" [COLUMN ...]  BLAST tabular / commented tabular; the named columns REPLACE the
//!                           standard 12, "std" stands for them ("6 std score")
//!   "blast6" [COLUMN ...]   the older spelling: "6 std COLUMN ..." (the columns are appended)
//!   "sam", "bam", "pair", "json"
//! Throws swat::usage_error naming the unknown format or column and listing the valid ones.
output_spec parse_outfmt(std::string_view text);

//! Multi-line description of the formats and columns for --help.
std::string outfmt_help();

//! What writers need besides the hits: the sequences, the scores and the run description.
//! Fields after db_residues have defaults, so older aggregate initialisers keep working.
struct run_context {
  const sequence_set& queries;
  const sequence_set& targets;
  const scoring_scheme& scheme;
  //! Written into SAM @PG VN, pair and JSON, e.g. "0.1.0".
  std::string program_version;
  //! The full command line: SAM @PG CL, pair header, JSON (tabs and newlines become spaces).
  std::string command_line;
  //! Residues of the database, N of the E-value (residues): the targets' total, or --dbsize.
  std::uint64_t db_residues;
  //! Engine that computed the alignments ("cpu", "gpu-fast", …): SAM @PG DS and JSON.
  std::string engine = {};
  //! Where it ran ("cpu", "gpu"): SAM @PG DS and JSON.
  std::string device = {};
  //! The run's E-value statistics; null: the writer resolves the scheme's analytic parameters
  //! (published, else estimated), or none where the scheme has no logarithmic regime.
  const scoring::search_statistics* statistics = nullptr;
  //! Sequences of the database for the E-values (--dbseqs); 0: the targets' count.
  std::uint64_t db_sequences = 0;
};

//! Checks, before anything is written, that the inputs fit the format: for SAM/BAM that every
//! query name is a valid QNAME (1 to 254 printable ASCII characters other than '@') and every
//! database name a valid RNAME (printable ASCII without \ , " ' ` ( ) [ ] { } < >, not starting
//! with * or =) that no other database record has; an input_error names the file and the
//! record(s). For BAM, that the search is DNA (usage_error: BAM stores 4-bit bases only).
void check_inputs(const output_spec& spec, const sequence_set& queries, const sequence_set& targets);

//! Writes all hits in spec's format to out (check_inputs first). Throws swat::runtime_failure
//! when out fails.
void write_hits(std::ostream& out, const output_spec& spec, const run_context& ctx,
                std::span<const hit> hits);

//! One hit as the JSON output writes it (docs/output.md): a member for each key of its object, in
//! the same order, holding the value its text reads back as (identity rounded to 3 decimals as
//! printed; evalue, log10_evalue and bitscore the full doubles). Empty optionals are JSON nulls.
struct hit_record {
  std::string query;
  std::string target;
  std::int64_t score = 0;
  std::int64_t query_start = 0, query_end = 0;    //!< 1-based inclusive, query forward
  std::int64_t target_start = 0, target_end = 0;  //!< 1-based inclusive; start > end on the minus strand
  std::optional<std::string> strand;              //!< "plus" | "minus"; DNA hits only (absent for protein)
  std::uint64_t query_length = 0, target_length = 0;
  std::int64_t length = 0;
  std::optional<double> identity;  //!< percent
  std::int64_t matches = 0, mismatches = 0, positives = 0, gap_opens = 0, gaps = 0;
  std::string cigar;
  std::optional<double> evalue;
  bool has_log10_evalue = false;       //!< the key is written (evalue below the smallest normal double)
  std::optional<double> log10_evalue;  //!< computed in log space
  std::optional<double> bitscore;
  std::string query_aligned;
  std::string target_aligned;
};

//! The records of hits, in order: what write_hits writes as JSON, as values.
std::vector<hit_record> hit_records(const run_context& ctx, std::span<const hit> hits);

//! E-value text as BLAST+'s tabular output prints it, from the E-value's natural logarithm:
//! "0.0" below 1e-180, "4.40e-34" below 0.0009, then "0.012", "0.20", "5.6", "12" (three
//! decimals below 0.1, two below 1, one below 10, none above). "nan" for NaN (a search without
//! statistics): Python's float() and Biopython's blast-tab parser read it.
std::string format_evalue(double ln_evalue);

//! Bit score text as BLAST prints it: "%4.1f" up to 99.9 (" 8.4" below 10, as BLAST pads it),
//! the integer part above, and "%.3e" above 99999 (BLAST's CAlignFormatUtil::GetScoreString
//! thresholds); "nan" for NaN.
std::string format_bit_score(double bits);

}  // namespace swat::output

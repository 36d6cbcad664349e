#pragma once
// The tabular output's columns: BLAST's short names (-outfmt "6 ..."), the long names BLAST
// writes in the "# Fields:" line of -outfmt 7, and the --help text. Internal to src/output.

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace swat::output::detail {

//! One tabular column.
struct column_def {
  std::string_view name;       //!< short name, as BLAST spells it where BLAST has it
  std::string_view long_name;  //!< BLAST's name in the "# Fields:" comment line
  std::string_view help;       //!< one line for --help
};

// clang-format off
//! Order: the 12 standard outfmt-6 columns ("std"), then the extras.
inline constexpr std::array<column_def, 25> column_defs{{
    {"qseqid", "query id", "query name"},
    {"sseqid", "subject id", "target (subject) name"},
    {"pident", "% identity", "percent identical positions, 100*nident/length, 3 decimals"},
    {"length", "alignment length", "alignment length in columns (pairs + gap residues)"},
    {"mismatch", "mismatches", "non-identical aligned pairs"},
    {"gapopen", "gap opens", "number of gaps (runs of gap residues)"},
    {"qstart", "q. start", "query start, 1-based"},
    {"qend", "q. end", "query end, 1-based inclusive"},
    {"sstart", "s. start", "target start, 1-based (> send for minus-strand hits)"},
    {"send", "s. end", "target end, 1-based inclusive"},
    {"evalue", "evalue", "expect value as BLAST prints it: 0.0, 4.40e-34, 0.012, 5.6 (see below)"},
    {"bitscore", "bit score", "(lambda*S - ln K)/ln 2, as BLAST prints it"},
    {"score", "score", "raw alignment score"},
    {"cigar", "cigar", "extended CIGAR (= identical, X mismatch, I gap in target, D gap in query)"},
    {"qlen", "query length", "query length"},
    {"slen", "subject length", "target length"},
    {"nident", "identical", "identical aligned pairs"},
    {"positive", "positives", "aligned pairs with substitution score > 0"},
    {"gaps", "gaps", "gap residues (total length of all gaps)"},
    {"ppos", "% positives", "percent positive-scoring pairs, 100*positive/length, 2 decimals"},
    {"qseq", "query seq", "aligned part of the query, '-' for gaps"},
    {"sseq", "subject seq", "aligned part of the target, '-' for gaps"},
    {"sstrand", "subject strand", "strand of the target the query aligns to: plus, minus (N/A for protein)"},
    {"qcovs", "% query coverage per subject", "percent of the query covered by all hits to this target"},
    {"qcovhsp", "% query coverage per hsp", "percent of the query covered by this hit"},
}};
// clang-format on

//! Number of standard columns at the front of column_defs.
inline constexpr std::size_t standard_column_count = 12;

//! Index of a column name in column_defs, or nullopt.
inline std::optional<std::size_t> find_column(std::string_view name) {
  for (std::size_t i = 0; i < column_defs.size(); ++i)
    if (column_defs[i].name == name) return i;
  return std::nullopt;
}

}  // namespace swat::output::detail

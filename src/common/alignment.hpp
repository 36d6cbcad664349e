#pragma once
// The result of one optimal local alignment, as every engine reports it and every writer reads it.

#include <cstdint>
#include <string>
#include <vector>

#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"

namespace swat {

//! One run of a CIGAR: 'M' aligned pair, 'I' query residue against a gap (gap in target),
//! 'D' target residue against a gap (gap in query).
struct cigar_op {
  char op;
  std::uint32_t length;
  bool operator==(const cigar_op&) const = default;
};

//! An optimal local alignment. Coordinates are 0-based half-open on the encoded residues:
//! query[query_begin, query_end) against target[target_begin, target_end). 1-based inclusive
//! coordinates are (begin + 1, end). A score of 0 means no alignment (empty ranges, no ops).
struct alignment {
  std::int32_t score = 0;
  std::int64_t query_begin = 0;
  std::int64_t query_end = 0;
  std::int64_t target_begin = 0;
  std::int64_t target_end = 0;
  std::vector<cigar_op> ops;
  bool operator==(const alignment&) const = default;
};

//! Counts derived from an alignment and its sequences (BLAST column semantics).
struct alignment_stats {
  std::int64_t length = 0;      //!< columns: matches + mismatches + gap residues
  std::int64_t matches = 0;     //!< identical pairs (for DNA, N never counts as identical)
  std::int64_t mismatches = 0;  //!< non-identical aligned pairs
  std::int64_t gap_opens = 0;   //!< number of gaps (runs of I or D)
  std::int64_t gaps = 0;        //!< gap residues (sum of I and D lengths)
  //! Percent identity, 100 * matches / length (0 when empty).
  double identity_percent() const { return length ? 100.0 * double(matches) / double(length) : 0.0; }
};

//! True when query rank a and target rank b count as identical (DNA N never does).
bool residues_identical(alphabet_kind kind, std::uint8_t a, std::uint8_t b);

//! Stats of aln over its sequences.
alignment_stats compute_stats(const alignment& aln, residue_span query, residue_span target,
                              alphabet_kind kind);

//! CIGAR text of the ops, e.g. "10M2I5M"; with extended = true 'M' is split into '=' and 'X'.
std::string cigar_string(const alignment& aln, residue_span query, residue_span target,
                         alphabet_kind kind, bool extended);

//! Score of the alignment recomputed from its ops under the scheme; used to verify engines.
std::int64_t rescore(const alignment& aln, residue_span query, residue_span target,
                     const scoring_scheme& scheme);

//! Appends a run to ops, merging with the last run when the op is the same.
void push_op(std::vector<cigar_op>& ops, char op, std::uint32_t length = 1);

}  // namespace swat

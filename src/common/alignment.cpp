#include "common/alignment.hpp"

#include <stdexcept>

namespace swat {

bool residues_identical(alphabet_kind kind, std::uint8_t a, std::uint8_t b) {
  if (kind == alphabet_kind::dna && (a == dna_n_rank || b == dna_n_rank)) return false;
  return a == b;
}

void push_op(std::vector<cigar_op>& ops, char op, std::uint32_t length) {
  if (!ops.empty() && ops.back().op == op)
    ops.back().length += length;
  else
    ops.push_back({op, length});
}

alignment_stats compute_stats(const alignment& aln, residue_span query, residue_span target,
                              alphabet_kind kind) {
  alignment_stats s;
  std::int64_t qi = aln.query_begin;
  std::int64_t ti = aln.target_begin;
  for (const cigar_op& c : aln.ops) {
    s.length += c.length;
    if (c.op == 'M') {
      for (std::uint32_t k = 0; k < c.length; ++k, ++qi, ++ti) {
        if (residues_identical(kind, query[qi], target[ti]))
          ++s.matches;
        else
          ++s.mismatches;
      }
    } else {
      ++s.gap_opens;
      s.gaps += c.length;
      (c.op == 'I' ? qi : ti) += c.length;
    }
  }
  return s;
}

std::string cigar_string(const alignment& aln, residue_span query, residue_span target,
                         alphabet_kind kind, bool extended) {
  std::vector<cigar_op> runs;
  if (!extended) {
    runs = aln.ops;
  } else {
    std::int64_t qi = aln.query_begin;
    std::int64_t ti = aln.target_begin;
    for (const cigar_op& c : aln.ops) {
      if (c.op != 'M') {
        push_op(runs, c.op, c.length);
        (c.op == 'I' ? qi : ti) += c.length;
        continue;
      }
      for (std::uint32_t k = 0; k < c.length; ++k, ++qi, ++ti)
        push_op(runs, residues_identical(kind, query[qi], target[ti]) ? '=' : 'X');
    }
  }
  std::string out;
  for (const cigar_op& c : runs) out += std::to_string(c.length) + c.op;
  return out;
}

std::int64_t rescore(const alignment& aln, residue_span query, residue_span target,
                     const scoring_scheme& scheme) {
  std::int64_t total = 0;
  std::int64_t qi = aln.query_begin;
  std::int64_t ti = aln.target_begin;
  for (const cigar_op& c : aln.ops) {
    if (c.op == 'M') {
      for (std::uint32_t k = 0; k < c.length; ++k, ++qi, ++ti) total += scheme.score(query[qi], target[ti]);
    } else if (c.op == 'I' || c.op == 'D') {
      total -= scheme.gap_open + std::int64_t(c.length) * scheme.gap_extend;
      (c.op == 'I' ? qi : ti) += c.length;
    } else {
      throw std::logic_error(std::string("rescore: unknown CIGAR op ") + c.op);
    }
  }
  if (qi != aln.query_end || ti != aln.target_end)
    throw std::logic_error("rescore: CIGAR does not span the reported coordinates");
  return total;
}

}  // namespace swat

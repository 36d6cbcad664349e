#pragma once
// Helpers shared by the reference tests: encoding letters to ranks, checking that an alignment
// is internally consistent.

#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/alignment.hpp"
#include "common/alphabet.hpp"
#include "common/scoring_scheme.hpp"

namespace swat::reference::test {

//! Ranks of letters (case-insensitive); fails the test on a letter outside the alphabet.
inline std::vector<std::uint8_t> encode(alphabet_kind kind, std::string_view letters) {
  const auto& table = kind == alphabet_kind::dna ? dna_rank_table() : protein_rank_table();
  std::vector<std::uint8_t> ranks;
  for (char c : letters) {
    const std::uint8_t r = table[static_cast<unsigned char>(c)];
    EXPECT_NE(r, invalid_rank) << "letter '" << c << "'";
    ranks.push_back(r);
  }
  return ranks;
}

//! Checks that aln is a well-formed local alignment of query and target under scheme: ops span
//! exactly the coordinates, rescoring gives the score, no gap at either end, no empty runs.
inline void expect_consistent(const alignment& aln, residue_span query, residue_span target,
                              const scoring_scheme& scheme) {
  if (aln.score == 0) {
    EXPECT_TRUE(aln.ops.empty());
    EXPECT_EQ(aln.query_begin, aln.query_end);
    EXPECT_EQ(aln.target_begin, aln.target_end);
    return;
  }
  ASSERT_GT(aln.score, 0);
  ASSERT_FALSE(aln.ops.empty());
  EXPECT_EQ(aln.ops.front().op, 'M');
  EXPECT_EQ(aln.ops.back().op, 'M');
  std::int64_t q = 0, t = 0;
  for (std::size_t k = 0; k < aln.ops.size(); ++k) {
    const cigar_op& c = aln.ops[k];
    EXPECT_GT(c.length, 0u);
    if (k > 0) {
      EXPECT_NE(c.op, aln.ops[k - 1].op) << "runs must be merged";
    }
    if (c.op != 'D') q += c.length;
    if (c.op != 'I') t += c.length;
  }
  EXPECT_GE(aln.query_begin, 0);
  EXPECT_GE(aln.target_begin, 0);
  EXPECT_LE(aln.query_end, std::int64_t(query.size()));
  EXPECT_LE(aln.target_end, std::int64_t(target.size()));
  EXPECT_EQ(aln.query_end - aln.query_begin, q);
  EXPECT_EQ(aln.target_end - aln.target_begin, t);
  EXPECT_EQ(rescore(aln, query, target, scheme), aln.score);
}

}  // namespace swat::reference::test

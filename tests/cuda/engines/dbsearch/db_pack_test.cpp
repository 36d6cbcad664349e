// Host preparation of the database search (db_pack.hpp), no GPU needed: sorting and pairing,
// chunking by the byte budget, the packed columns and the strip-major query profile.

#include <gtest/gtest.h>

#include <random>

#include "cuda/engines/dbsearch/db_pack.hpp"
#include "engine/test_schemes.hpp"

namespace swat::dbsearch {
namespace {

std::vector<residue_span> spans_of(const std::vector<std::vector<std::uint8_t>>& seqs) {
  return {seqs.begin(), seqs.end()};
}

TEST(DbPack, SortsLongestFirstPairsNeighboursAndSkips) {
  const std::vector<std::vector<std::uint8_t>> seqs = {
      {1, 2, 3}, {}, {4}, {1, 1, 1, 1, 1}, {2, 2, 2}, std::vector<std::uint8_t>(10, 3), {0, 0}};
  const auto targets = spans_of(seqs);
  const db_layout l = plan_database(targets, 6, std::size_t(1) << 30);
  // Length 10 is skipped, length 0 left out; the rest by length, ties in input order.
  EXPECT_EQ(l.skipped, (std::vector<std::size_t>{5}));
  EXPECT_EQ(l.order, (std::vector<std::uint32_t>{3, 0, 4, 6, 2}));
  ASSERT_EQ(l.tasks.size(), 3u);
  EXPECT_EQ(l.tasks[0].columns, 5);
  EXPECT_EQ(l.tasks[0].length_b, 3);
  EXPECT_EQ(l.tasks[1].columns, 3);
  EXPECT_EQ(l.tasks[1].length_b, 2);
  EXPECT_EQ(l.tasks[2].columns, 1);
  EXPECT_EQ(l.tasks[2].length_b, 0);  // odd count: the last pair holds one target
  EXPECT_EQ(l.residues, 5u + 3 + 3 + 2 + 1);
  EXPECT_EQ(l.total_columns, 5u + 3 + 1);
  ASSERT_EQ(l.chunks.size(), 1u);
  EXPECT_EQ(l.chunks[0].longest, 5);

  std::vector<std::uint16_t> cols(l.total_columns);
  pack_columns(l, targets, 9, cols.data());
  const std::vector<std::uint16_t> want = {1 | 1 << 8, 1 | 2 << 8, 1 | 3 << 8, 1 | 9 << 8, 1 | 9 << 8,
                                           2 | 0 << 8, 2 | 0 << 8, 2 | 9 << 8, 4 | 9 << 8};
  EXPECT_EQ(cols, want);
}

TEST(DbPack, ChunksRespectTheByteBudgetAndCoverEveryPair) {
  std::mt19937 rng(7);
  std::vector<std::vector<std::uint8_t>> seqs;
  for (int k = 0; k < 500; ++k)
    seqs.push_back(test::random_residues(rng, std::uniform_int_distribution<std::size_t>(1, 300)(rng), 20));
  const auto targets = spans_of(seqs);
  const std::size_t budget = 4096;
  const db_layout l = plan_database(targets, 1 << 16, budget);
  ASSERT_GT(l.chunks.size(), 10u);
  std::size_t next_task = 0, next_column = 0;
  for (const db_chunk& c : l.chunks) {
    EXPECT_EQ(c.first_task, next_task);
    EXPECT_EQ(c.first_column, next_column);
    EXPECT_LE(c.bytes, budget);
    std::size_t cols = 0, bytes = 0;
    std::int32_t longest = 0;
    for (std::size_t p = c.first_task; p < c.first_task + c.tasks; ++p) {
      EXPECT_EQ(l.tasks[p].offset, cols);  // offsets are relative to the chunk
      cols += std::size_t(l.tasks[p].columns);
      bytes += pair_bytes(std::size_t(l.tasks[p].columns));
      longest = std::max(longest, l.tasks[p].columns);
    }
    EXPECT_EQ(cols, c.columns);
    EXPECT_EQ(bytes, c.bytes);
    EXPECT_EQ(longest, c.longest);
    next_task += c.tasks;
    next_column += c.columns;
  }
  EXPECT_EQ(next_task, l.tasks.size());
  EXPECT_EQ(next_column, l.total_columns);
  // A pair larger than the budget still gets a chunk of its own.
  const db_layout tiny = plan_database(targets, 1 << 16, 1);
  EXPECT_EQ(tiny.chunks.size(), tiny.tasks.size());
}

TEST(DbPack, ProfileIsStripMajorWithPadRowsAndPadRank) {
  const scoring_scheme s = test::dna_scheme(2, -3, 5, 2);
  const std::vector<std::uint8_t> q = {0, 1, 2, 3, 4};  // A C G T N
  const int strip_rows = 4, ranks = s.size();
  std::vector<std::int8_t> prof(std::size_t(strips_of(5, strip_rows)) * (ranks + 1) * strip_rows, 99);
  build_profile(q, s.matrix.data(), matrix_stride, ranks, strip_rows, prof.data());
  auto at = [&](int strip, int rank, int r) { return prof[std::size_t((strip * (ranks + 1) + rank) * strip_rows + r)]; };
  EXPECT_EQ(at(0, 0, 0), 2);   // A vs A
  EXPECT_EQ(at(0, 1, 0), -3);  // A vs C
  EXPECT_EQ(at(0, 3, 3), 2);   // T vs T
  EXPECT_EQ(at(1, 4, 0), -3);  // N vs N scores as a mismatch
  EXPECT_EQ(at(1, 0, 1), -1);  // row past m
  EXPECT_EQ(at(0, 5, 2), -1);  // pad rank
  for (std::int8_t v : prof) EXPECT_NE(v, 99);
}

}  // namespace
}  // namespace swat::dbsearch

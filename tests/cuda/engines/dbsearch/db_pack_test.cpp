// Host preparation of the database search (db_pack.hpp), no GPU needed: sorting and pairing,
// chunking by the byte budget, the packed columns and the strip-major query profile; the window
// of a hit's prefixes that the reverse pass reads (db_align.hpp).

#include <gtest/gtest.h>

#include <random>

#include "cuda/engines/dbsearch/db_align.hpp"
#include "cuda/engines/dbsearch/db_pack.hpp"
#include "engine/test_schemes.hpp"
#include "reference/reference.hpp"

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

TEST(DbPack, OrderIsLongestFirstWithTiesInInputOrderAtAnyLength) {
  // The counting sort by length, and the comparison sort past 2^22 residues, give the stable
  // order: longest first, equal lengths in input order.
  std::mt19937 rng(3);
  for (const std::size_t giant : {std::size_t(0), (std::size_t(1) << 22) + 1}) {
    std::vector<std::vector<std::uint8_t>> seqs;
    for (int k = 0; k < 2000; ++k)
      seqs.push_back(std::vector<std::uint8_t>(std::uniform_int_distribution<std::size_t>(0, 60)(rng), 1));
    if (giant > 0) seqs.insert(seqs.begin() + 700, std::vector<std::uint8_t>(giant, 2));
    const auto targets = spans_of(seqs);
    const db_layout l = plan_database(targets, std::int32_t(std::max<std::size_t>(giant, 100)), std::size_t(1) << 40);
    std::vector<std::uint32_t> want;
    for (std::size_t t = 0; t < seqs.size(); ++t)
      if (!seqs[t].empty()) want.push_back(std::uint32_t(t));
    std::stable_sort(want.begin(), want.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return seqs[a].size() > seqs[b].size(); });
    EXPECT_EQ(l.order, want) << "giant " << giant;
  }
  // Few targets much longer than their number (genomes): the comparison sort, the same order.
  std::vector<std::vector<std::uint8_t>> genomes;
  for (const std::size_t n : {60000, 90000, 60000, 75000, 90000, 10})
    genomes.push_back(std::vector<std::uint8_t>(n, 3));
  const db_layout few = plan_database(spans_of(genomes), 1 << 17, std::size_t(1) << 40);
  EXPECT_EQ(few.order, (std::vector<std::uint32_t>{1, 4, 3, 0, 2, 5}));
}

TEST(DbPack, PairsPackedInSlicesEqualThePackedChunks) {
  // pack_pairs writes any run of a chunk's pairs as pack_columns writes them in the chunk
  // (the slices that db_upload.cuh packs straight into the GPU), from the run's first column.
  std::mt19937 rng(11);
  std::vector<std::vector<std::uint8_t>> seqs;
  for (int k = 0; k < 301; ++k)
    seqs.push_back(test::random_residues(rng, std::uniform_int_distribution<std::size_t>(0, 200)(rng), 20));
  const auto targets = spans_of(seqs);
  const db_layout l = plan_database(targets, 150, 4096);
  ASSERT_GT(l.chunks.size(), 3u);
  std::vector<std::uint16_t> whole(l.total_columns);
  pack_columns(l, targets, 21, whole.data());
  for (const db_chunk& c : l.chunks) {
    const std::size_t end = c.first_task + c.tasks;
    for (std::size_t from = c.first_task; from < end;) {
      const std::size_t to = std::min(end, from + std::uniform_int_distribution<std::size_t>(1, 5)(rng));
      const std::size_t first = l.tasks[from].offset, last = to < end ? l.tasks[to].offset : c.columns;
      std::vector<std::uint16_t> slice(last - first, 0xffff);
      pack_pairs(l, targets, 21, from, to, slice.data());
      const auto at = whole.begin() + std::ptrdiff_t(c.first_column + first);
      EXPECT_TRUE(std::equal(slice.begin(), slice.end(), at)) << "pairs " << from << "-" << to;
      from = to;
    }
  }
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

TEST(DbPack, GuidedChunksShrinkAsTheQueueDrainsAndCoverEveryPair) {
  std::mt19937 rng(11);
  std::vector<std::vector<std::uint8_t>> seqs;
  for (int k = 0; k < 4000; ++k)
    seqs.push_back(test::random_residues(rng, std::uniform_int_distribution<std::size_t>(1, 400)(rng), 20));
  const auto targets = spans_of(seqs);
  const std::size_t parts = 4;  // two GPUs
  const db_layout whole = plan_database(targets, 1 << 16, std::size_t(1) << 30);
  std::size_t all = 0;
  for (const db_chunk& c : whole.chunks) all += c.bytes;
  for (const std::size_t budget : {std::size_t(1) << 30, all / 10}) {
    const db_layout l = plan_database(targets, 1 << 16, budget, parts);
    // The same pairs and columns as one chunk, only cut differently.
    ASSERT_EQ(l.tasks.size(), whole.tasks.size());
    EXPECT_EQ(l.order, whole.order);
    EXPECT_EQ(l.total_columns, whole.total_columns);
    ASSERT_GT(l.chunks.size(), 2 * parts) << budget;
    std::size_t left = all, next_task = 0, largest_pair = 0;
    for (const pair_task& t : l.tasks) largest_pair = std::max(largest_pair, pair_bytes(std::size_t(t.columns)));
    for (std::size_t k = 0; k < l.chunks.size(); ++k) {
      const db_chunk& c = l.chunks[k];
      EXPECT_EQ(c.first_task, next_task);
      next_task += c.tasks;
      // Each chunk within its cap: a share of what was left, the floor, the budget.
      const std::size_t cap = std::min(budget, std::max(all / (8 * parts), left / parts));
      EXPECT_LE(c.bytes, cap + largest_pair) << k;
      if (k + 1 < l.chunks.size()) {
        EXPECT_LE(c.bytes, cap) << k;
        EXPECT_GT(c.bytes + largest_pair, std::min(cap, left) / 2) << k;  // not cut far below its cap
      }
      left -= c.bytes;
    }
    EXPECT_EQ(next_task, l.tasks.size());
    EXPECT_EQ(left, 0u);
    // Large first, small last: the first chunk is the largest share, the last ones the floor's.
    EXPECT_GT(l.chunks.front().bytes, 3 * l.chunks[l.chunks.size() - 2].bytes) << budget;
  }
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

TEST(DbAlign, ReachWindowHoldsEveryAlignmentOfTheScore) {
  // The bound: a 5 kb query prefix against a 62 kb target prefix, DNA 2/-3/5/2, score 100: at
  // most 5000 aligned pairs and (2 · 5000 − 100) / 2 = 4950 gap residues, so 9950 columns.
  const scoring_scheme dna = test::dna_scheme();
  const std::vector<std::uint8_t> q(5000, 0), t(62000, 1);
  const std::vector<residue_span> qs{residue_span(q)}, ts{residue_span(t)};
  const std::vector<std::int32_t> score{100};
  EXPECT_EQ(reach_window(ts, qs, score, dna)[0].size(), 9950u);
  EXPECT_EQ(reach_window(ts, qs, score, dna)[0].data(), t.data() + (62000 - 9950));  // the last columns
  EXPECT_EQ(reach_window(qs, ts, score, dna)[0].size(), 5000u);                       // never longer
  const scoring_scheme free_extension = test::dna_scheme(2, -3, 5, 0);                 // no bound
  EXPECT_EQ(reach_window(ts, qs, score, free_extension)[0].size(), 62000u);

  // Random pairs (short queries in long targets, half with a mutated copy planted): the reference's
  // optimal alignment lies inside the window of the prefixes that end at its best cell.
  std::mt19937 rng(4242);
  int cut = 0;
  for (const scoring_scheme& s : {dna, test::dna_scheme(1, -1, 2, 1), test::protein_scheme(7, 11, 1)}) {
    for (int k = 0; k < 200; ++k) {
      const std::size_t m = std::uniform_int_distribution<std::size_t>(5, 120)(rng);
      const std::size_t n = std::uniform_int_distribution<std::size_t>(50, 1500)(rng);
      const int ranks = s.alphabet == alphabet_kind::dna ? 4 : 20;
      const auto query = test::random_residues(rng, m, ranks);
      auto target = test::random_residues(rng, n, ranks);
      if (k % 2 == 0) {  // plant a copy of the query with substitutions and short indels
        const auto copy = test::mutate(rng, query, ranks, 0.15);
        const std::size_t at = std::uniform_int_distribution<std::size_t>(0, n)(rng);
        target.insert(target.begin() + std::ptrdiff_t(at), copy.begin(), copy.end());
      }
      const alignment a = reference::align(query, target, s);
      if (a.score <= 0) continue;
      const std::vector<residue_span> qp{residue_span(query).first(std::size_t(a.query_end))};
      const std::vector<residue_span> tp{residue_span(target).first(std::size_t(a.target_end))};
      const std::vector<std::int32_t> sc{a.score};
      const residue_span qw = reach_window(qp, tp, sc, s)[0], tw = reach_window(tp, qp, sc, s)[0];
      ASSERT_GE(std::int64_t(qw.size()), a.query_end - a.query_begin) << s.matrix_name << " pair " << k;
      ASSERT_GE(std::int64_t(tw.size()), a.target_end - a.target_begin) << s.matrix_name << " pair " << k;
      cut += tw.size() < tp[0].size();
    }
  }
  EXPECT_GT(cut, 100);  // the bound does cut long target prefixes
}

}  // namespace
}  // namespace swat::dbsearch

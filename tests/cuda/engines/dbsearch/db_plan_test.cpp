// Host planning of a search (db_plan.hpp), no GPU needed: query batches, shape choice and
// profile modes for the shapes of an H100-like device.

#include <gtest/gtest.h>

#include <cmath>

#include "cuda/engines/dbsearch/db_plan.hpp"

namespace swat::dbsearch {
namespace {

//! The kernels as occupancy gives them on a 132-SM device (one block per SM; warps per block as
//! db_policy.cuh): a group per pair at every width and rows per lane (and 32 × 32 at 8 warps
//! besides 12), the pipelined kernels at width 32.
std::vector<shape_info> h100_shapes() {
  std::vector<shape_info> out;
  const auto add = [&](int g, int r, int warps, bool pipelined) {
    shape_info s;
    s.group_lanes = g;
    s.rows_per_lane = r;
    s.groups_per_warp = 32 / g;
    s.warps_per_block = warps;
    s.groups_per_block = warps * (32 / g);
    s.pipelined = pipelined;
    s.blocks = 132;
    s.sms = 132;
    out.push_back(s);
  };
  for (int g : {8, 16, 32})
    for (int r : {16, 32}) {
      add(g, r, r == 16 ? 16 : g == 8 ? 8 : 12, false);
      if (g == 32 && r == 32) add(g, r, 8, false);
      if (g == 32) add(g, r, r == 16 ? 16 : 8, true);
    }
  return out;
}

const std::vector<std::int64_t> db_queries = {218, 141, 149, 187, 1123, 1273, 34350};

TEST(DbPlan, LargeDatabaseScansTheLongestQueryAloneAndPairsTheRest) {
  const chunk_stats chunk{79575, 30'760'250, 8081, 1};  // Swiss-Prot subset x50 in pairs
  const auto batches = plan_batches(db_queries, chunk, h100_shapes(), 28);
  // Two queries fill a launch (2^17 tasks); titin's shape is not the others'.
  ASSERT_EQ(batches.size(), 4u);
  EXPECT_EQ(batches[0].queries, (std::vector<std::size_t>{6}));  // titin first
  EXPECT_EQ(batches[1].queries, (std::vector<std::size_t>{5, 4}));
  EXPECT_EQ(batches[2].queries, (std::vector<std::size_t>{0, 3}));
  EXPECT_EQ(batches[3].queries, (std::vector<std::size_t>{2, 1}));  // the shortest last
  EXPECT_EQ(batches[0].mode, profile_mode::streamed);               // 34,350 rows do not fit
  EXPECT_NE(batches[0].shape.group_lanes, 8);                       // width 8 only resident
  for (std::size_t k = 1; k < 4; ++k) EXPECT_EQ(batches[k].mode, profile_mode::resident) << k;
  // Pairs of 1 to 8,081 columns: each launch ends sooner on its first query's shortest pairs
  // than on its last query's longest.
  for (const query_batch& b : batches) EXPECT_TRUE(b.pair_major);
}

TEST(DbPlan, ManyShortQueriesShareLaunchesOfTheirShape) {
  // 400 proteins of 9 to 4,117 residues against 15,000 pairs of 4 to 8,094 columns (bench
  // shapes' protein_db): one launch each would last as long as its longest pair; one launch
  // for all would give every query the same strips. Launches of about 2^17 tasks, longest first
  // (a launch stops growing at 2^17), each query in one, narrower shapes for shorter queries,
  // pair-major.
  std::vector<std::int64_t> lengths;
  for (int k = 0; k < 400; ++k) lengths.push_back(std::int64_t(9 * std::pow(4117.0 / 9.0, k / 399.0)));
  const chunk_stats chunk{15'000, 5'800'000, 8094, 4};
  const auto batches = plan_batches(lengths, chunk, h100_shapes(), 24);
  EXPECT_GE(batches.size(), 45u);
  EXPECT_LE(batches.size(), 60u);
  std::vector<int> seen(lengths.size(), 0);
  std::int64_t previous = lengths.back() + 1;
  for (const query_batch& b : batches) {
    EXPECT_LT(std::int64_t(b.queries.size() - 1) * 15'000, std::int64_t(1) << 17);
    EXPECT_TRUE(b.pair_major);
    for (std::size_t q : b.queries) {
      ++seen[q];
      EXPECT_LE(lengths[q], previous);
      previous = lengths[q];
    }
  }
  for (std::size_t q = 0; q < lengths.size(); ++q) EXPECT_EQ(seen[q], 1) << q;
  EXPECT_GT(batches.front().shape.strip_rows(), batches.back().shape.strip_rows());
  // The same queries when a launch may hold all of them: the model alone merges them into one
  // (it does not price the host's turn between launches, which one launch cannot overlap:
  // measured slower, bench/results/db_batches_h100.csv); fill_pairs keeps the launches apart.
  batch_limits unbounded;
  unbounded.fill_pairs = std::int64_t(1) << 40;
  const auto few = plan_batches(lengths, chunk, h100_shapes(), 24, unbounded);
  EXPECT_EQ(few.size(), 1u);
}

TEST(DbPlan, EachLaunchEndsOnItsShorterTail) {
  // Reads of 1 to 10 kb against windows of a genome (seven pairs of 131,072 columns, the last
  // shorter): pair-major would end on the longest read's last window, query-major ends on the
  // shortest read's first: query-major.
  std::vector<std::int64_t> reads;
  for (int k = 0; k < 300; ++k) reads.push_back(1000 + 30 * k);
  const auto genome = plan_batches(reads, chunk_stats{7, 7 * 131'072, 131'072, 20'000}, h100_shapes(), 6);
  std::size_t shared = 0;  // launches of several reads (where the order matters)
  for (const query_batch& b : genome)
    if (b.queries.size() > 1) {
      ++shared;
      EXPECT_FALSE(b.pair_major);
    }
  EXPECT_GT(shared, 0u);
  // Without the shortest pair's length the plan keeps query-major.
  const auto unknown = plan_batches(db_queries, chunk_stats{1592, 615'205, 8081}, h100_shapes(), 28);
  EXPECT_LT(unknown.size(), db_queries.size());  // launches of several queries
  for (const query_batch& b : unknown) EXPECT_FALSE(b.pair_major);
}

TEST(DbPlan, SmallDatabaseScansTheQueriesTogether) {
  const chunk_stats chunk{1592, 615'205, 8081};  // Swiss-Prot subset x1
  batch_limits one_warp_per_pair;
  one_warp_per_pair.pipeline = -1;
  const auto batches = plan_batches(db_queries, chunk, h100_shapes(), 28, one_warp_per_pair);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].queries, (std::vector<std::size_t>{6, 5, 4, 0, 3, 2, 1}));
  EXPECT_EQ(batches[0].mode, profile_mode::streamed);
  std::int64_t bytes = 0;
  for (std::int64_t m : db_queries) bytes += profile_bytes(m, batches[0].shape.strip_rows(), 28);
  EXPECT_EQ(batches[0].profile_bytes, bytes);
}

TEST(DbPlan, LongQueriesOfASmallDatabaseArePipelinedTheRestScannedTogether) {
  // x1: titin's pairs (67 strips) would each hold one warp for the whole launch; the warps of a
  // block share them instead, and the short queries go to a second launch.
  const chunk_stats chunk{1592, 615'205, 8081};
  const auto batches = plan_batches(db_queries, chunk, h100_shapes(), 28);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0].queries, (std::vector<std::size_t>{6, 5, 4}));
  EXPECT_EQ(batches[0].mode, profile_mode::pipelined);
  EXPECT_EQ(batches[0].shape.group_lanes, 32);
  EXPECT_EQ(batches[0].shape.rows_per_lane, 32);  // strips of a few hundred columns: fewer strips
  EXPECT_EQ(batches[1].queries, (std::vector<std::size_t>{0, 3, 2, 1}));
  EXPECT_NE(batches[1].mode, profile_mode::pipelined);
}

TEST(DbPlan, FewTargetsManyQueriesPipelineOrReadProfilesThroughL1) {
  // 293 DNA fragments of 5 kb against two pairs of viral genomes: 586 tasks leave most warps
  // of the GPU idle at one warp per pair.
  const std::vector<std::int64_t> lengths(293, 5000);
  const chunk_stats chunk{2, 100'000, 64'000};
  const auto batches = plan_batches(lengths, chunk, h100_shapes(), 6);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].queries.size(), 293u);
  EXPECT_EQ(batches[0].mode, profile_mode::pipelined);
  batch_limits no_pipe;
  no_pipe.pipeline = -1;
  const auto plain = plan_batches(lengths, chunk, h100_shapes(), 6, no_pipe);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].mode, profile_mode::global);
}

TEST(DbPlan, FewLongQueriesAgainstManyEqualPairsPipelineSixteenWarps) {
  // The other way round (db_engine's transposed search): four viral genomes as the queries
  // against the fragments' 147 pairs of 5 kb. Pipelined, and at 16 rows per lane (16 warps per
  // block): on strips this long 8 warps of 32 rows leave issue slots idle while they wait.
  const std::vector<std::int64_t> genomes = {62'700, 48'500, 29'900, 8'600};
  const chunk_stats chunk{147, 147 * 5000, 5000};
  const auto batches = plan_batches(genomes, chunk, h100_shapes(), 6);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].mode, profile_mode::pipelined);
  EXPECT_EQ(batches[0].shape.group_lanes, 32);
  EXPECT_EQ(batches[0].shape.rows_per_lane, 16);
}

TEST(DbPlan, TwelveWarpsAtWidth32WhereThroughputSetsTheTimeEightWhereTheLongestPairsDo) {
  // DNA fragments against viral genomes written 4 times, both ways round: thousands of tasks of
  // equal length keep every warp busy, so 12 warps per block (three per scheduler).
  std::vector<std::int64_t> fragments(292, 5000);
  fragments.push_back(4832);
  const auto dna = plan_batches(fragments, chunk_stats{8, 299'400, 62'700}, h100_shapes(), 6);
  ASSERT_EQ(dna.size(), 1u);
  EXPECT_EQ(dna[0].shape.group_lanes, 32);
  EXPECT_FALSE(dna[0].shape.pipelined);
  EXPECT_EQ(dna[0].shape.warps_per_block, 12);
  std::vector<std::int64_t> genomes;
  for (int copy = 0; copy < 4; ++copy)
    for (std::int64_t g : {62'700, 48'500, 29'900, 8'600}) genomes.push_back(g);
  const auto flipped = plan_batches(genomes, chunk_stats{147, 735'000, 5000}, h100_shapes(), 6);
  ASSERT_EQ(flipped.size(), 1u);
  EXPECT_EQ(flipped[0].shape.warps_per_block, 12);
  // Swiss-Prot x10: titin's pairs at 32 lanes set the time, and a warp sharing its scheduler
  // with one other runs faster than with two.
  const auto x10 = plan_batches(db_queries, chunk_stats{15'915, 6'152'050, 8081}, h100_shapes(), 28);
  ASSERT_FALSE(x10.empty());
  EXPECT_EQ(x10[0].shape.group_lanes, 32);
  EXPECT_EQ(x10[0].shape.warps_per_block, 8);
  // A pipelined batch runs the pipelined kernel, every other batch the other one.
  for (const auto* plan : {&dna, &flipped, &x10})
    for (const query_batch& b : *plan) EXPECT_EQ(b.shape.pipelined, b.mode == profile_mode::pipelined);
}

TEST(DbPlan, ForcedPipelineNeedsWidth32AndTwoStrips) {
  const chunk_stats chunk{79575, 30'760'250, 8081};  // x50: the model keeps one warp per pair
  batch_limits always;
  always.pipeline = 1;
  for (const auto& b : plan_batches(db_queries, chunk, h100_shapes(), 28)) EXPECT_NE(b.mode, profile_mode::pipelined);
  const auto forced = plan_batches(db_queries, chunk, h100_shapes(), 28, always);
  std::size_t pipelined = 0;  // queries
  for (const auto& b : forced) {
    if (b.mode != profile_mode::pipelined) continue;
    pipelined += b.queries.size();
    EXPECT_EQ(b.shape.group_lanes, 32);
    for (std::size_t q : b.queries) EXPECT_GT(db_queries[q], 512);
  }
  EXPECT_EQ(pipelined, 3u);  // titin, 1273 and 1123 residues; the others have one strip
  // Without a width-32 shape nothing is pipelined.
  std::vector<shape_info> narrow = h100_shapes();
  std::erase_if(narrow, [](const shape_info& s) { return s.group_lanes == 32; });  // widths 8 and 16
  for (const auto& b : plan_batches(db_queries, chunk, narrow, 28, always)) EXPECT_NE(b.mode, profile_mode::pipelined);
}

TEST(DbPlan, BatchesRespectTheResultBudgetAndSkipEmptyQueries) {
  const std::vector<std::int64_t> lengths = {100, 0, 100, 100, 100, 0, 100};
  const chunk_stats chunk{1000, 300'000, 400};
  batch_limits limits;
  limits.max_result_bytes = 2 * 1000 * 32;  // two queries' results
  const auto batches = plan_batches(lengths, chunk, h100_shapes(), 28, limits);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0].queries, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(batches[1].queries, (std::vector<std::size_t>{3, 4}));
  EXPECT_EQ(batches[2].queries, (std::vector<std::size_t>{6}));
  const auto one = plan_batches(lengths, chunk, std::vector<shape_info>{h100_shapes()[2]}, 28, limits);  // 16 x 16
  for (const auto& b : one) EXPECT_EQ(b.shape.group_lanes, 16);  // a fixed shape is kept
}

TEST(DbPlan, ProfileBytesRoundToStripsAnd16) {
  EXPECT_EQ(profile_bytes(1, 256, 28), 256 * 28);
  EXPECT_EQ(profile_bytes(257, 256, 28), 2 * 256 * 28);
  EXPECT_EQ(profile_bytes(5, 128, 6), 128 * 6);
}

}  // namespace
}  // namespace swat::dbsearch

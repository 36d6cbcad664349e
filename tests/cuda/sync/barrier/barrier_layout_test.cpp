// Host tests of the barrier layer (CI, no GPU): tree group sizes and routes, grid sizing, error
// paths.

#include "cuda/sync/barrier/barrier_layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>

#include "common/error.hpp"

namespace swat {
namespace {

TEST(TreeBarrier, TwoLevelGroupSizesFollowThePaper) {
  for (int n = 1; n <= 1056; ++n) {
    const auto g = barrier::tree2_group_sizes(n);
    const int m = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n)) - 1e-9));
    ASSERT_EQ(barrier::tree_group_count(n), m) << n;
    EXPECT_EQ(std::accumulate(g.begin(), g.end(), 0), n) << n;
    EXPECT_TRUE(std::all_of(g.begin(), g.end(), [](int s) { return s > 0; })) << n;
    EXPECT_LE(static_cast<int>(g.size()), m) << n;
    EXPECT_GE(static_cast<int>(g.size()), std::max(1, m - 1)) << n;
    if (m * m == n) {
      EXPECT_TRUE(std::all_of(g.begin(), g.end(), [m](int s) { return s == m; })) << n;
    } else if (m > 1) {
      for (int i = 0; i < m - 1; ++i) EXPECT_EQ(g[i], n / (m - 1)) << n;
    }
  }
  EXPECT_EQ(barrier::tree2_group_sizes(1), std::vector<int>{1});
  EXPECT_EQ(barrier::tree2_group_sizes(10), (std::vector<int>{3, 3, 3, 1}));
  EXPECT_EQ(barrier::tree2_group_sizes(132), std::vector<int>(11, 12));
  EXPECT_EQ(barrier::tree2_group_sizes(528), std::vector<int>(22, 24));
  EXPECT_EQ(barrier::tree2_group_sizes(1056), std::vector<int>(32, 33));
  EXPECT_THROW(barrier::tree2_group_sizes(0), usage_error);
}

TEST(TreeBarrier, ThreeLevelGroupSizes) {
  for (int n = 1; n <= 1056; ++n) {
    const auto supers = barrier::tree3_group_sizes(n);
    const int k = static_cast<int>(std::ceil(std::cbrt(static_cast<double>(n)) - 1e-9));
    EXPECT_LE(static_cast<int>(supers.size()), k) << n;
    int total = 0;
    for (const auto& s : supers) {
      ASSERT_FALSE(s.empty()) << n;
      for (int g : s) {
        EXPECT_GT(g, 0) << n;
        total += g;
      }
    }
    EXPECT_EQ(total, n) << n;
  }
  EXPECT_EQ(barrier::tree3_group_sizes(27).size(), 3u);
  EXPECT_EQ(barrier::tree3_group_sizes(27)[0], (std::vector<int>{3, 3, 3}));
}

//! Every counter receives exactly its fan-in arrivals per barrier; every block ends at one root.
TEST(TreeBarrier, RoutesMatchFanIn) {
  for (int levels : {2, 3}) {
    for (int n = 1; n <= 1056; ++n) {
      const auto paths = barrier::tree_paths(n, levels);
      ASSERT_EQ(static_cast<int>(paths.size()), n);
      const int nodes = barrier::tree_node_count(n, levels);
      std::map<int, int> arrivals;
      std::map<int, int> fanin;
      for (const auto& p : paths) {
        ASSERT_EQ(p.levels, levels);
        ASSERT_GE(p.climb, 1);
        ASSERT_LE(p.climb, levels);
        EXPECT_EQ(p.node[levels - 1], nodes - 1) << "root is the last counter";
        for (int l = 0; l < levels; ++l) {
          ASSERT_GE(p.node[l], 0);
          ASSERT_LT(p.node[l], nodes);
          auto [it, fresh] = fanin.emplace(p.node[l], p.fanin[l]);
          EXPECT_EQ(it->second, p.fanin[l]) << "one fan-in per counter";
        }
        for (int l = 0; l < p.climb; ++l) ++arrivals[p.node[l]];
      }
      for (const auto& [node, count] : arrivals) EXPECT_EQ(count, fanin[node]) << n << " " << node;
      EXPECT_EQ(static_cast<int>(arrivals.size()), nodes) << n;
    }
  }
  EXPECT_THROW(barrier::tree_paths(5, 4), usage_error);
  EXPECT_THROW(barrier::tree_paths(0, 2), usage_error);
}

TEST(GridSizing, BenchBlockCounts) {
  EXPECT_EQ(barrier::bench_block_counts(132), (std::vector<int>{8, 16, 33, 66, 132}));
  EXPECT_EQ(barrier::bench_block_counts(528), (std::vector<int>{8, 16, 33, 66, 132, 264, 528}));
  EXPECT_EQ(barrier::bench_block_counts(1056),
            (std::vector<int>{8, 16, 33, 66, 132, 264, 528, 1056}));
  EXPECT_EQ(barrier::bench_block_counts(100), (std::vector<int>{8, 16, 33, 66, 100}));
  EXPECT_EQ(barrier::bench_block_counts(5), std::vector<int>{5});
  EXPECT_TRUE(barrier::bench_block_counts(0).empty());
}

TEST(GridSizing, StressSizesAndPersistentGrid) {
  const auto s = barrier::stress_grid_sizes(132, 528);
  for (int n : {2, 132, 133, 264, 528}) EXPECT_NE(std::find(s.begin(), s.end(), n), s.end()) << n;
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
  EXPECT_EQ(barrier::stress_grid_sizes(132, 2), std::vector<int>{2});
  EXPECT_EQ(barrier::persistent_grid_blocks(10, 528), 10);
  EXPECT_EQ(barrier::persistent_grid_blocks(100000, 528), 528);
  EXPECT_EQ(barrier::persistent_grid_blocks(0, 528), 1);
  EXPECT_THROW(barrier::persistent_grid_blocks(10, 0), usage_error);
}

TEST(GridSizing, StripeCount) {
  EXPECT_EQ(barrier::stripe_count(1), 1);
  EXPECT_EQ(barrier::stripe_count(16), 1);
  EXPECT_EQ(barrier::stripe_count(17), 2);
  EXPECT_EQ(barrier::stripe_count(132), 9);
  EXPECT_EQ(barrier::stripe_count(528), 32);
  EXPECT_EQ(barrier::stripe_count(4224), 32);
  EXPECT_THROW(barrier::stripe_count(0), usage_error);
}

}  // namespace
}  // namespace swat

// The order of a batch's strips (plan_batch_order), no GPU needed: every strip of every pair has
// exactly one place, problems go by strips (most first, ties in the pairs' order), and strip s − 1
// of a pair always comes before strip s (the batch kernel's warps take strips in this order and
// wait only on strips taken before: no deadlock).

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <stdexcept>

#include "cuda/engines/fast/fast_fill.hpp"

namespace swat::fast {
namespace {

TEST(FastBatchOrder, EveryStripOncePredecessorsFirst) {
  std::mt19937 rng(31);
  for (int round = 0; round < 200; ++round) {
    const std::size_t pairs = std::uniform_int_distribution<std::size_t>(1, 12)(rng);
    std::vector<std::int64_t> strips(pairs);
    for (auto& s : strips) s = std::uniform_int_distribution<std::int64_t>(1, round % 3 == 0 ? 3 : 40)(rng);
    const batch_order plan = plan_batch_order(strips);
    ASSERT_EQ(plan.order.size(), pairs);
    for (std::size_t k = 1; k < pairs; ++k) {  // most strips first, ties stable
      const std::int64_t a = strips[plan.order[k - 1]], b = strips[plan.order[k]];
      ASSERT_TRUE(a > b || (a == b && plan.order[k - 1] < plan.order[k])) << "round " << round;
    }
    const std::int64_t levels = strips[plan.order.front()];
    ASSERT_EQ(std::int64_t(plan.level_first.size()), levels + 1);
    std::int64_t total = 0;
    for (const auto s : strips) total += s;
    ASSERT_EQ(plan.level_first.back(), total);
    std::set<std::int64_t> taken;
    for (std::size_t k = 0; k < pairs; ++k)
      for (std::int64_t s = 0; s < strips[plan.order[k]]; ++s) {
        const std::int64_t g = plan.level_first[std::size_t(s)] + std::int64_t(k);
        ASSERT_LT(g, plan.level_first[std::size_t(s) + 1]) << "problem " << k << " strip " << s;  // on its level
        ASSERT_TRUE(taken.insert(g).second) << "round " << round;                              // once
        if (s > 0) {
          ASSERT_LT(plan.level_first[std::size_t(s) - 1] + std::int64_t(k), g);  // its predecessor first
        }
      }
    ASSERT_EQ(std::int64_t(taken.size()), total);
  }
  EXPECT_THROW(plan_batch_order(std::vector<std::int64_t>{3, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace swat::fast

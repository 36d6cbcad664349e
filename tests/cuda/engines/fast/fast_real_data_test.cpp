// The fast engine on every pair of ../shared/data/expected.tsv. Pairs whose alignment rectangle
// is small enough for the CPU tracer (all but the 1.46 Mb × 1.46 Mb Spiroplasma pair) go
// through align(): score, begin and end equal the agreed values and the printed alignment
// rescores to the score. The Spiroplasma pair: score_only() must give the agreed score and end
// cell, and the origins fill the same best cell (its begin is reported, not checked: n/a).

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "cuda/engines/fast/fast_engine.hpp"
#include "cuda/engines/fast/fast_fill.hpp"
#include "support/expected_pairs.hpp"
#include "cuda/engines/fast/fast_test_util.hpp"

namespace swat::fast {
namespace {

const std::filesystem::path data_dir = SWAT_SHARED_DATA;

using real_case = swat::test::expected_pair;

std::vector<real_case> read_cases() { return swat::test::read_expected_pairs(data_dir); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(FastRealData, EveryExpectedPair) {
  SWAT_REQUIRE_DEVICE();
  if (!std::filesystem::exists(data_dir / "expected.tsv")) GTEST_SKIP() << "no shared data";
  const auto cases = read_cases();
  ASSERT_GE(cases.size(), 8u);
  auto eng = make_fast_engine(engine_options{});
  fill_context ctx(swat::test::test_device());
  int aligned = 0, scored = 0;
  for (const real_case& c : cases) {
    const double cells = double(c.query.size()) * double(c.target.size());
    if (test::short_run() && cells > 2e9) continue;
    const auto t0 = std::chrono::steady_clock::now();
    const best_cell cell = eng->score_only(c.query, c.target, c.scheme);
    const double t_score = seconds_since(t0);
    EXPECT_EQ(cell.score, c.score) << c.name;
    EXPECT_EQ(std::to_string(cell.query_end), c.qe) << c.name;
    EXPECT_EQ(std::to_string(cell.target_end), c.te) << c.name;
    ++scored;
    if (c.qb == "n/a") {  // the 1.46 Mb pair: rectangle too large for the CPU tracer
      fill_options o;
      o.variant = fill_variant::origins32;
      const fill_result r = ctx.fill(c.query, c.target, c.scheme, o);
      EXPECT_EQ(r.best, cell) << c.name;
      std::printf("%s: score %d end %lld,%lld begin %lld,%lld; score-only %.3f s (%.1f GCUPS), "
                  "origins %.3f s (%.1f GCUPS)\n",
                  c.name.c_str(), cell.score, (long long)cell.query_end, (long long)cell.target_end,
                  (long long)r.query_begin + 1, (long long)r.target_begin + 1, t_score,
                  cells / t_score / 1e9, r.kernel_seconds, cells / r.kernel_seconds / 1e9);
      continue;
    }
    const auto t1 = std::chrono::steady_clock::now();
    const alignment a = eng->align(c.query, c.target, c.scheme);
    EXPECT_EQ(a.score, c.score) << c.name;
    EXPECT_EQ(std::to_string(a.query_begin + 1), c.qb) << c.name;
    EXPECT_EQ(std::to_string(a.query_end), c.qe) << c.name;
    EXPECT_EQ(std::to_string(a.target_begin + 1), c.tb) << c.name;
    EXPECT_EQ(std::to_string(a.target_end), c.te) << c.name;
    EXPECT_EQ(rescore(a, c.query, c.target, c.scheme), a.score) << c.name;
    std::printf("%s: score %d; score-only %.3f s, align %.3f s\n", c.name.c_str(), a.score, t_score,
                seconds_since(t1));
    ++aligned;
  }
  std::printf("fast real data: %d pairs scored, %d aligned\n", scored, aligned);
}

}  // namespace
}  // namespace swat::fast

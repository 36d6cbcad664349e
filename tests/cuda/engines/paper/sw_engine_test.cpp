// The GPU engine seam: option names, memory plan and CPU fallback with a notice.

#include "cuda/engines/paper/gpu_engine.hpp"

#include <gtest/gtest.h>

#include <random>

#include "common/error.hpp"
#include "reference/reference.hpp"
#include "cuda/engines/paper/sw_test_util.hpp"

namespace swat::paper {
namespace {

TEST(SwEngine, UnknownNamesAreUsageErrors) {
  SWAT_REQUIRE_DEVICE();
  gpu_engine_options o;
  o.kernel = "bogus";
  EXPECT_THROW(make_gpu_engine(o), usage_error);
  o.kernel = "auto";
  o.sync = "bogus";
  EXPECT_THROW(make_gpu_engine(o), usage_error);
  o.sync = "auto";
  o.kernel = "tiled";
  o.tile = 1000;
  EXPECT_THROW(make_gpu_engine(o), usage_error);
}

TEST(SwEngine, AlignsAndFallsBackWhenCodesDoNotFit) {
  SWAT_REQUIRE_DEVICE();
  const scoring_scheme s = test::schemes()[0];
  std::mt19937 rng(5);
  const auto q = test::random_residues(rng, 700, s);
  const auto t = test::related_or_random(rng, q, 650, s);
  const alignment want = reference::align(q, t, s);
  for (const char* kernel : {"auto", "diagonal", "coalesced", "tiled"}) {
    gpu_engine_options o;
    o.kernel = kernel;
    std::vector<std::string> notices;
    o.notice = [&](const std::string& n) { notices.push_back(n); };
    EXPECT_EQ(make_gpu_engine(o)->align(q, t, s), want) << kernel;
    EXPECT_TRUE(notices.empty());
    o.max_gpu_mem_bytes = 1000;  // far below the plan: CPU engine with a notice
    auto small = make_gpu_engine(o);
    EXPECT_EQ(small->align(q, t, s), want) << kernel;
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("CPU engine"), std::string::npos) << notices[0];
    EXPECT_EQ(small->score_only(q, t, s), (best_cell{want.score, want.query_end, want.target_end}));
  }
  gpu_engine_options o;
  EXPECT_EQ(make_gpu_engine(o)->align({}, t, s), alignment{});
}

}  // namespace
}  // namespace swat::paper

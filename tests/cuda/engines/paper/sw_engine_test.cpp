// The paper engines through the seam: their registry entries (names, alias, --sync, the --tile
// range checked without a device), the memory plan that refuses a pair, and the CPU fallback
// decorator taking that pair with one notice.

#include "cuda/engines/paper/paper_engine.hpp"

#include <gtest/gtest.h>

#include <random>

#include "common/error.hpp"
#include "cuda/engines/paper/sw_test_util.hpp"
#include "engine/cpu_engine.hpp"
#include "engine/fallback.hpp"
#include "engine/registry.hpp"
#include "reference/reference.hpp"

namespace swat::paper {
namespace {

TEST(SwEngine, RegisteredNamesAndOptionsWithoutADevice) {
  engine_registry r;
  register_engines(r);
  EXPECT_EQ(r.gpu_names(), "diagonal, coalesced, tiled");
  EXPECT_EQ(r.find("simple"), r.find("diagonal"));
  for (const char* name : {"diagonal", "coalesced", "tiled"}) EXPECT_TRUE(r.find(name)->takes_sync) << name;
  EXPECT_TRUE(r.find("tiled")->takes_tile);
  engine_options o;
  o.tile = 1000;
  EXPECT_THROW(r.find("tiled")->check(o), usage_error);
  o.tile = 16;
  EXPECT_NO_THROW(r.find("tiled")->check(o));
}

TEST(SwEngine, AlignsAndFallsBackWhenCodesDoNotFit) {
  SWAT_REQUIRE_DEVICE();
  const scoring_scheme s = test::schemes()[0];
  std::mt19937 rng(5);
  const auto q = test::random_residues(rng, 700, s);
  const auto t = test::related_or_random(rng, q, 650, s);
  const alignment want = reference::align(q, t, s);
  for (kernel_kind kernel : {kernel_kind::diagonal, kernel_kind::coalesced, kernel_kind::tiled}) {
    engine_options o;
    std::vector<std::string> notices;
    const notice_fn notice = [&](const std::string& n) { notices.push_back(n); };
    EXPECT_EQ(make_paper_engine(kernel, o)->align(q, t, s), want) << to_string(kernel);
    o.max_gpu_mem_bytes = 1000;  // far below the plan: the engine refuses, the CPU engine aligns
    auto small = make_paper_engine(kernel, o);
    EXPECT_NE(small->unfit_reason(q, t, s).find("--max-gpu-mem"), std::string::npos);
    auto wrapped = with_cpu_fallback(std::move(small), std::make_unique<cpu_engine>(), notice);
    EXPECT_EQ(wrapped->align(q, t, s), want) << to_string(kernel);
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("CPU engine"), std::string::npos) << notices[0];
    EXPECT_EQ(wrapped->score_only(q, t, s), (best_cell{want.score, want.query_end, want.target_end}));
  }
  EXPECT_EQ(make_paper_engine(kernel_kind::coalesced, {})->align({}, t, s), alignment{});
}

}  // namespace
}  // namespace swat::paper

// The GPU→CPU fallback decorator (CI, no GPU): pairs the wrapped engine refuses go to the CPU
// engine with one notice per reason, host memory running out falls back too, and batches are
// split between the engines with results in job order.

#include "engine/fallback.hpp"

#include <gtest/gtest.h>

#include <new>
#include <string>
#include <vector>

namespace swat {
namespace {

//! Reports score = query length; refuses pairs whose query is longer than limit; can throw.
class fake_engine final : public engine {
 public:
  fake_engine(std::string name, std::size_t limit, int offset) : name_(std::move(name)), limit_(limit), offset_(offset) {}
  std::string name() const override { return name_; }
  std::string unfit_reason(residue_span q, residue_span, const scoring_scheme&) override {
    return q.size() > limit_ ? "query of " + std::to_string(q.size()) + " too long" : "";
  }
  alignment align(residue_span q, residue_span, const scoring_scheme&) override {
    if (throw_bad_alloc) throw std::bad_alloc();
    ++calls;
    alignment a;
    a.score = std::int32_t(q.size()) + offset_;
    return a;
  }
  bool throw_bad_alloc = false;
  int calls = 0;

 private:
  std::string name_;
  std::size_t limit_;
  int offset_;
};

struct fixture {
  fake_engine* gpu;
  fake_engine* cpu;
  std::vector<std::string> notices;
  std::unique_ptr<engine> wrapped;
  fixture() {
    auto g = std::make_unique<fake_engine>("gpu-x", 4, 1000);
    auto c = std::make_unique<fake_engine>("cpu", 1u << 30, 0);
    gpu = g.get();
    cpu = c.get();
    wrapped = with_cpu_fallback(std::move(g), std::move(c), [this](const std::string& n) { notices.push_back(n); });
  }
};

const scoring_scheme scheme{};
const std::vector<std::uint8_t> short_seq(3, 0), long_seq(9, 0);

TEST(Fallback, UnfitPairsGoToTheCpuWithOneNoticePerReason) {
  fixture f;
  EXPECT_EQ(f.wrapped->name(), "gpu-x");
  EXPECT_EQ(f.wrapped->align(short_seq, short_seq, scheme).score, 1003);
  EXPECT_TRUE(f.notices.empty());
  EXPECT_EQ(f.wrapped->align(long_seq, short_seq, scheme).score, 9);
  EXPECT_EQ(f.wrapped->score_only(long_seq, short_seq, scheme).score, 9);
  ASSERT_EQ(f.notices.size(), 1u);
  EXPECT_EQ(f.notices[0], "gpu-x: query of 9 too long; aligning this pair with the CPU engine");
  EXPECT_EQ(f.gpu->calls, 1);
  EXPECT_EQ(f.cpu->calls, 2);
}

TEST(Fallback, HostMemoryRunningOutFallsBack) {
  fixture f;
  f.gpu->throw_bad_alloc = true;
  EXPECT_EQ(f.wrapped->align(short_seq, short_seq, scheme).score, 3);
  ASSERT_EQ(f.notices.size(), 1u);
  EXPECT_NE(f.notices[0].find("host memory"), std::string::npos);
}

TEST(Fallback, BatchesAreSplitAndKeepJobOrder) {
  fixture f;
  std::vector<pair_job> jobs;
  for (std::size_t k = 0; k < 6; ++k) jobs.push_back({0, k, k % 2 ? residue_span(long_seq) : residue_span(short_seq), short_seq});
  std::vector<alignment> out(jobs.size());
  std::uint64_t cells = 0;
  f.wrapped->align_many(jobs, scheme, out, [&](std::uint64_t c) { cells += c; });
  for (std::size_t k = 0; k < jobs.size(); ++k) EXPECT_EQ(out[k].score, k % 2 ? 9 : 1003) << k;
  EXPECT_EQ(cells, 3 * (9 * 3 + 3 * 3));
  std::vector<best_cell> best(jobs.size());
  f.wrapped->score_many(jobs, scheme, best, {});
  for (std::size_t k = 0; k < jobs.size(); ++k) EXPECT_EQ(best[k].score, k % 2 ? 9 : 1003) << k;
  EXPECT_EQ(f.notices.size(), 1u);
}

}  // namespace
}  // namespace swat

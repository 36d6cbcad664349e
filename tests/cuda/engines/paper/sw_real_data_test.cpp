// Every paper kernel × every sync mode on every pair of ../shared/data/expected.tsv whose
// sequences are at most 65 kb (mtDNA, SARS-CoV-2 pairs, spike proteins, lambda × Stx2 phage):
// score, begin and end equal the agreed values and the alignment rescores to the score.
// By default each kernel × mode runs the small pairs and one of the three large ones (over 5·10^8
// cells) in turn, so that every large pair meets 11 of the 33 combinations, every kernel and every
// mode, within a minute on one H100; SWAT_LONG=1 runs every pair on every combination.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "support/expected_pairs.hpp"
#include "cuda/engines/paper/sw_fill.hpp"
#include "cuda/engines/paper/sw_test_util.hpp"

namespace swat::paper {
namespace {

const std::filesystem::path data_dir = SWAT_SHARED_DATA;
constexpr std::uintmax_t max_file_bytes = 66000;

using real_case = swat::test::expected_pair;

const std::vector<real_case>& real_cases() {
  static const std::vector<real_case> out = swat::test::read_expected_pairs(data_dir, max_file_bytes);
  return out;
}

class SwRealData : public testing::TestWithParam<std::tuple<kernel_kind, sync_mode>> {};

TEST_P(SwRealData, ExpectedPairsUpTo65kb) {
  SWAT_REQUIRE_DEVICE();
  if (!std::filesystem::exists(data_dir / "expected.tsv")) GTEST_SKIP() << "no shared data";
  static wavefront_fill ctx(swat::test::test_device());
  const auto& cases = real_cases();
  ASSERT_GE(cases.size(), 5u);
  const auto combos = test::kernel_modes();
  const std::size_t combo =
      static_cast<std::size_t>(std::find(combos.begin(), combos.end(), GetParam()) - combos.begin());
  std::size_t large = 0;  // index of the current pair among the large ones
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const real_case& c = cases[k];
    const std::size_t cells = c.query.size() * c.target.size();
    if (test::short_run() && cells > 2'000'000) continue;
    if (cells > 500'000'000 && large++ % 3 != combo % 3 && !swat::test::long_run()) continue;
    fill_config cfg;
    cfg.kernel = std::get<0>(GetParam());
    cfg.sync = std::get<1>(GetParam());
    cfg.poison = true;
    const alignment a = traceback(ctx.fill(c.query, c.target, c.scheme, cfg));
    EXPECT_EQ(a.score, c.score) << c.name;
    if (c.qb != "n/a") {
      EXPECT_EQ(std::to_string(a.query_begin + 1), c.qb) << c.name;
    }
    EXPECT_EQ(std::to_string(a.query_end), c.qe) << c.name;
    if (c.tb != "n/a") {
      EXPECT_EQ(std::to_string(a.target_begin + 1), c.tb) << c.name;
    }
    EXPECT_EQ(std::to_string(a.target_end), c.te) << c.name;
    EXPECT_EQ(rescore(a, c.query, c.target, c.scheme), a.score) << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(AllKernelsAllModes, SwRealData, testing::ValuesIn(test::kernel_modes()),
                         test::kernel_mode_name);

}  // namespace
}  // namespace swat::paper

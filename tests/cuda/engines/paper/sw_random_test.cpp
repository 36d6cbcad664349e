// Every paper kernel × every sync mode × {DNA 2/-3/5/2, BLOSUM62 11/1, BLOSUM45 10/2} equals
// reference::align (score, both ends, every CIGAR op) on seeded random pairs around warp, tile
// and line borders, and cpu_engine on skewed shapes. Buffers are poisoned before every fill.

#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "engine/cpu_engine.hpp"
#include "reference/reference.hpp"
#include "cuda/engines/paper/sw_fill.hpp"
#include "cuda/engines/paper/sw_test_util.hpp"

namespace swat::paper {
namespace {

using test::kernel_modes;

//! One random pair and its reference alignment.
struct case_t {
  std::vector<std::uint8_t> query, target;
  alignment want;
};

//! 500 seeded pairs per scheme (60 with SWAT_SHORT), built once.
const std::vector<case_t>& cases(std::size_t scheme_index) {
  static std::map<std::size_t, std::vector<case_t>> cache;
  auto it = cache.find(scheme_index);
  if (it != cache.end()) return it->second;
  const scoring_scheme s = test::schemes()[scheme_index];
  std::mt19937 rng(1000 + static_cast<unsigned>(scheme_index));
  const std::vector<std::int64_t> borders{1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129};
  const int count = test::short_run() ? 60 : 500;
  std::vector<case_t> out;
  for (int k = 0; k < count; ++k) {
    auto pick = [&] {
      if (std::uniform_int_distribution<int>(0, 3)(rng) == 0)
        return std::uniform_int_distribution<std::int64_t>(1, 200)(rng);
      return borders[std::uniform_int_distribution<std::size_t>(0, borders.size() - 1)(rng)];
    };
    case_t c;
    c.query = test::random_residues(rng, pick(), s);
    c.target = test::related_or_random(rng, c.query, pick(), s);
    c.want = reference::align(c.query, c.target, s);
    out.push_back(std::move(c));
  }
  return cache.emplace(scheme_index, std::move(out)).first->second;
}

class SwKernelMode : public testing::TestWithParam<std::tuple<kernel_kind, sync_mode>> {
 protected:
  static wavefront_fill& ctx() {
    static wavefront_fill c(swat::test::test_device());
    return c;
  }
  fill_config config(int tile) const {
    fill_config c;
    c.kernel = std::get<0>(GetParam());
    c.sync = std::get<1>(GetParam());
    c.tile = c.kernel == kernel_kind::tiled ? tile : 0;
    c.poison = true;
    return c;
  }
};

TEST_P(SwKernelMode, RandomPairsEqualReference) {
  SWAT_REQUIRE_DEVICE();
  const auto all = test::schemes();
  for (std::size_t si = 0; si < all.size(); ++si) {
    const auto& set = cases(si);
    int failures = 0;
    for (std::size_t k = 0; k < set.size() && failures < 3; ++k) {
      const case_t& c = set[k];
      const fill_config cfg = config(k % 2 ? 16 : 32);
      const alignment got = traceback(ctx().fill(c.query, c.target, all[si], cfg));
      if (got != c.want) {
        ++failures;
        ADD_FAILURE() << all[si].matrix_name << " pair " << k << " (" << c.query.size() << " x "
                      << c.target.size() << ", tile " << cfg.tile << "): got score " << got.score
                      << " [" << got.query_begin << "," << got.query_end << ") x ["
                      << got.target_begin << "," << got.target_end << ") ops " << got.ops.size()
                      << ", want " << c.want.score << " [" << c.want.query_begin << ","
                      << c.want.query_end << ") x [" << c.want.target_begin << ","
                      << c.want.target_end << ") ops " << c.want.ops.size();
      }
    }
  }
}

TEST_P(SwKernelMode, SkewedShapesEqualCpuEngine) {
  SWAT_REQUIRE_DEVICE();
  const auto all = test::schemes();
  cpu_engine cpu(1);
  std::mt19937 rng(77);
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes =
      test::short_run() ? std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 5000}, {3, 2000}}
                        : std::vector<std::pair<std::int64_t, std::int64_t>>{
                              {1, 5000}, {5000, 1}, {3, 20000}, {20000, 3}};
  for (const auto& s : all) {
    for (auto [m, n] : shapes) {
      const auto q = test::random_residues(rng, m, s);
      const auto t = test::related_or_random(rng, q, n, s);
      const alignment got = traceback(ctx().fill(q, t, s, config(32)));
      EXPECT_EQ(got, cpu.align(q, t, s)) << s.matrix_name << " " << m << " x " << n;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllKernelsAllModes, SwKernelMode, testing::ValuesIn(kernel_modes()),
                         test::kernel_mode_name);

}  // namespace
}  // namespace swat::paper

// The fast engine against reference::align on seeded random pairs: lengths at strip, warp,
// block and chunk borders and random ones, DNA and protein schemes, related and unrelated
// pairs. align() must equal the reference exactly (score, begin, end, every CIGAR op);
// score_only() (the 32-bit fill at these sizes) and the packed 16-bit fill must give the same
// best cell. A second set caps the grid at one block so that each warp takes many strips
// (border rows reused, flags of finished strips).

#include <gtest/gtest.h>

#include <random>

#include "cuda/engines/fast/fast_engine.hpp"
#include "cuda/engines/fast/fast_fill.hpp"
#include "engine/cpu_engine.hpp"
#include "engine/fallback.hpp"
#include "reference/reference.hpp"
#include "cuda/engines/fast/fast_test_util.hpp"

namespace swat::fast {
namespace {

std::int64_t pick_length(std::mt19937& rng) {
  static const std::vector<std::int64_t> borders = test::border_lengths();
  if (std::uniform_int_distribution<int>(0, 9)(rng) < 7)
    return borders[std::uniform_int_distribution<std::size_t>(0, borders.size() - 1)(rng)];
  return std::uniform_int_distribution<std::int64_t>(1, 1200)(rng);
}

TEST(FastRandom, AlignEqualsReferenceOnRandomPairs) {
  SWAT_REQUIRE_DEVICE();
  auto eng = make_fast_engine(engine_options{});
  fill_context ctx(swat::test::test_device());
  const auto schemes = test::schemes();
  std::mt19937 rng(20240611);
  const int pairs = swat::test::test_size(200, 500, 2100);
  int checked = 0, failed = 0;
  for (int k = 0; k < pairs && failed < 10; ++k) {
    const scoring_scheme& s = schemes[std::size_t(k) % schemes.size()];
    std::int64_t m = pick_length(rng), n = pick_length(rng);
    while (m * n > 2'500'000) m = std::max<std::int64_t>(1, m / 2);
    const auto q = test::random_residues(rng, m, s);
    const auto t = test::related_or_random(rng, q, n, s);
    const alignment want = reference::align(q, t, s);
    const alignment got = eng->align(q, t, s);
    const best_cell cell = eng->score_only(q, t, s);
    fill_options o16;
    o16.variant = fill_variant::score16;
    const fill_result r16 = ctx.fill(q, t, s, o16);
    const best_cell cell16 = r16.best;
    EXPECT_FALSE(r16.overflowed) << "pair " << k;  // the scores here stay far below 32767
    EXPECT_EQ(r16.ran, fill_variant::score16);
    const best_cell want_cell{want.score, want.query_end, want.target_end};
    const bool ok = got == want && cell == want_cell && cell16 == want_cell;
    EXPECT_EQ(cell16, want_cell) << "score16 pair " << k << " m " << m << " n " << n << " " << s.matrix_name;
    EXPECT_EQ(got.score, want.score) << "pair " << k << " m " << m << " n " << n << " " << s.matrix_name;
    EXPECT_EQ(got, want) << "pair " << k << " m " << m << " n " << n << " " << s.matrix_name
                         << " begin " << got.query_begin << "," << got.target_begin << " want "
                         << want.query_begin << "," << want.target_begin;
    EXPECT_EQ(cell, (best_cell{want.score, want.query_end, want.target_end}))
        << "score_only pair " << k << " m " << m << " n " << n << " " << s.matrix_name;
    failed += ok ? 0 : 1;
    ++checked;
  }
  EXPECT_EQ(checked, pairs);
  std::printf("fast random: %d pairs checked, %d failed\n", checked, failed);
}

TEST(FastRandom, OneBlockTakesManyStrips) {
  SWAT_REQUIRE_DEVICE();
  const auto schemes = test::schemes();
  std::mt19937 rng(7);
  fill_context ctx(swat::test::test_device());
  for (int k = 0; k < (test::short_run() ? 8 : 40); ++k) {
    const scoring_scheme& s = schemes[std::size_t(k) % 2];
    const std::int64_t m = std::uniform_int_distribution<std::int64_t>(1500, 6000)(rng);
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 700)(rng);
    const auto q = test::random_residues(rng, m, s);
    const auto t = test::related_or_random(rng, q, n, s);
    const alignment want = reference::align(q, t, s);
    for (fill_variant v : {fill_variant::score32, fill_variant::origins32, fill_variant::score16}) {
      fill_options o;
      o.variant = v;
      o.max_blocks = 1;
      const fill_result r = ctx.fill(q, t, s, o);
      EXPECT_EQ(r.blocks, 1);
      EXPECT_EQ(r.best, (best_cell{want.score, want.query_end, want.target_end})) << "pair " << k;
      EXPECT_EQ(r.ran, v) << "pair " << k;  // score16: no (false) overflow, no 32-bit rerun
      EXPECT_FALSE(r.overflowed) << "pair " << k;
      if (v == fill_variant::origins32 && want.score > 0) {
        EXPECT_EQ(r.query_begin, want.query_begin) << "pair " << k;
        EXPECT_EQ(r.target_begin, want.target_begin) << "pair " << k;
      }
    }
  }
}

TEST(FastRandom, EmptyAndUnfitSchemes) {
  SWAT_REQUIRE_DEVICE();
  auto eng = make_fast_engine(engine_options{});
  const scoring_scheme s = test::schemes()[0];
  const std::vector<std::uint8_t> q{0, 1, 2, 3}, empty;
  EXPECT_EQ(eng->align(empty, q, s), alignment{});
  EXPECT_EQ(eng->score_only(q, empty, s), best_cell{});
  scoring_scheme big = scoring::make_dna_scheme(2, -3, 5, 2);
  for (auto& v : big.matrix) v *= 100;  // 200 / -300: outside the int8 profile → CPU engine
  std::vector<std::string> notices;
  auto unwrapped = make_fast_engine(engine_options{});
  EXPECT_FALSE(unwrapped->unfit_reason(q, q, big).empty());
  EXPECT_TRUE(unwrapped->unfit_reason(q, q, s).empty());
  auto eng2 = with_cpu_fallback(std::move(unwrapped), std::make_unique<cpu_engine>(),
                                [&](const std::string& n) { notices.push_back(n); });
  std::mt19937 rng(3);
  const auto a = test::random_residues(rng, 300, big), b = test::related_or_random(rng, a, 280, big);
  EXPECT_EQ(eng2->align(a, b, big), reference::align(a, b, big));
  EXPECT_FALSE(notices.empty());
}

}  // namespace
}  // namespace swat::fast

// The packed 16-bit fill (fast_tile16.cuh): exact against the reference and the CPU engine, with
// scores relative to a warp base far past 32767 where the scheme allows it, and otherwise (or
// with a lowered limit) an automatic 32-bit rerun on overflow — forced both by a real overflow
// and by a lowered limit on ordinary pairs, on both sides of the limit.

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "cuda/engines/fast/fast_engine.hpp"
#include "cuda/engines/fast/fast_fill.hpp"
#include "engine/cpu_engine.hpp"
#include "reference/reference.hpp"
#include "cuda/engines/fast/fast_test_util.hpp"

namespace swat::fast {
namespace {

//! Random A/C/G/T ranks (no N: identical sequences then score exactly 2 per residue).
std::vector<std::uint8_t> acgt(std::mt19937& rng, std::int64_t length) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(length));
  for (auto& r : out) r = static_cast<std::uint8_t>(std::uniform_int_distribution<int>(0, 3)(rng));
  return out;
}

best_cell cell_of(const alignment& a) { return {a.score, a.query_end, a.target_end}; }

//! A query and a target of lengths m and n, related or random; with tandem (every third pair
//! of a test), the query a tandem repeat of a unit of 1–6 residues and copies of it written into
//! the target every m + gap residues: many cells of the best score.
std::pair<std::vector<std::uint8_t>, std::vector<std::uint8_t>> pair_of(std::mt19937& rng, std::int64_t m, std::int64_t n,
                                                                        const scoring_scheme& s, bool tandem,
                                                                        std::size_t gap) {
  auto q = test::random_residues(rng, m, s);
  if (tandem) {
    const std::size_t unit = std::uniform_int_distribution<std::size_t>(1, 6)(rng);
    for (std::size_t i = unit; i < q.size(); ++i) q[i] = q[i - unit];
  }
  auto t = test::related_or_random(rng, q, n, s);
  if (tandem)
    for (std::size_t j = 0; j + q.size() < t.size(); j += q.size() + gap) std::copy(q.begin(), q.end(), t.begin() + std::ptrdiff_t(j));
  return {std::move(q), std::move(t)};
}

fill_options score16(std::int32_t limit = 0) {
  fill_options o;
  o.variant = fill_variant::score16;
  o.score16_limit = limit;
  return o;
}

TEST(FastScore16, EqualsReferenceOnSeededPairs) {
  SWAT_REQUIRE_DEVICE();
  const auto schemes = test::schemes();
  std::mt19937 rng(1606);
  fill_context ctx(swat::test::test_device());
  const auto borders = test::border_lengths();
  const int pairs = test::short_run() ? 150 : 600;
  for (int k = 0; k < pairs; ++k) {
    const scoring_scheme& s = schemes[std::size_t(k) % schemes.size()];
    std::int64_t m = borders[std::uniform_int_distribution<std::size_t>(0, borders.size() - 1)(rng)];
    std::int64_t n = std::uniform_int_distribution<int>(0, 1)(rng)
                         ? borders[std::uniform_int_distribution<std::size_t>(0, borders.size() - 1)(rng)]
                         : std::uniform_int_distribution<std::int64_t>(1, 900)(rng);
    while (m * n > 3'000'000) n = std::max<std::int64_t>(1, n / 2);
    const auto [q, t] = pair_of(rng, m, n, s, k % 3 == 2, 5);
    const best_cell want = cell_of(reference::align(q, t, s));
    const fill_result r = ctx.fill(q, t, s, score16());
    ASSERT_EQ(r.best, want) << "pair " << k << " m " << m << " n " << n << " " << s.matrix_name;
    EXPECT_EQ(r.ran, fill_variant::score16);
    EXPECT_FALSE(r.overflowed);
  }
}

TEST(FastScore16, ScoresPast32767StayExactRelativeToABase) {
  SWAT_REQUIRE_DEVICE();
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  std::mt19937 rng(42);
  fill_context ctx(swat::test::test_device());
  // Relative scores (o + e + max s ≤ 26): no overflow, no rerun, however high the score.
  for (std::int64_t len : {std::int64_t(16382), std::int64_t(16383), std::int64_t(40000)}) {
    const auto a = acgt(rng, len);
    const fill_result r = ctx.fill(a, a, s, score16());
    EXPECT_EQ(r.best, (best_cell{std::int32_t(2 * len), len, len}));
    EXPECT_FALSE(r.overflowed);
    EXPECT_EQ(r.ran, fill_variant::score16);
  }
  // 24,000 residues inside random flanks, and a 30,000-residue tail after them: the warp's base
  // goes up through the core and down again over the tail.
  const auto core = acgt(rng, 24000);
  auto q = test::random_residues(rng, 3000, s), t = test::random_residues(rng, 1000, s);
  q.insert(q.end(), core.begin(), core.end());
  t.insert(t.end(), core.begin(), core.end());
  const auto tail = test::random_residues(rng, 30000, s), tail2 = test::random_residues(rng, 20000, s);
  q.insert(q.end(), tail.begin(), tail.end());
  t.insert(t.end(), tail2.begin(), tail2.end());
  const fill_result r = ctx.fill(q, t, s, score16());
  EXPECT_FALSE(r.overflowed);
  EXPECT_EQ(r.ran, fill_variant::score16);
  EXPECT_GE(r.best.score, 48000);
  EXPECT_EQ(r.best, cpu_engine(4).score_only(q, t, s));
}

TEST(FastScore16, AbsoluteScoresPast32767RerunAt32Bits) {
  SWAT_REQUIRE_DEVICE();
  // o + e + max s > 26: absolute 16-bit scores, an overflow reruns the pair at 32 bits.
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 40, 2);
  std::mt19937 rng(43);
  fill_context ctx(swat::test::test_device());
  const auto a = acgt(rng, 16382);
  fill_result r = ctx.fill(a, a, s, score16());
  EXPECT_EQ(r.best, (best_cell{32764, 16382, 16382}));
  EXPECT_FALSE(r.overflowed);
  EXPECT_EQ(r.ran, fill_variant::score16);
  const auto b = acgt(rng, 16383);
  r = ctx.fill(b, b, s, score16());
  EXPECT_EQ(r.best, (best_cell{32766, 16383, 16383}));
  EXPECT_TRUE(r.overflowed);
  EXPECT_EQ(r.ran, fill_variant::score32);
}

//! Long related pairs (scores up to ~10^5: many rebases) on every scheme that takes relative
//! scores, against the CPU engine; also the special rows the fill keeps, against the 32-bit fill's.
TEST(FastScore16, RelativeScoresEqualTheCpuEngineOnLongPairs) {
  SWAT_REQUIRE_DEVICE();
  const auto schemes = test::schemes();
  std::mt19937 rng(44);
  fill_context ctx(swat::test::test_device());
  cpu_engine cpu(8);
  int relative = 0;
  for (int k = 0; k < (test::short_run() ? 4 : 12); ++k) {
    const scoring_scheme& s = schemes[std::size_t(k) % schemes.size()];
    const std::int64_t m = std::uniform_int_distribution<std::int64_t>(20000, 60000)(rng);
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(20000, 60000)(rng);
    const auto q = test::random_residues(rng, m, s);
    const auto t = test::related_or_random(rng, q, n, s);
    const fill_result r = ctx.fill(q, t, s, score16());
    EXPECT_EQ(r.best, cpu.score_only(q, t, s)) << "pair " << k << " m " << m << " n " << n << " " << s.matrix_name;
    EXPECT_FALSE(r.overflowed && scheme_relative16(s)) << "pair " << k;
    relative += scheme_relative16(s) && r.best.score > 40000 ? 1 : 0;
  }
  EXPECT_GE(relative, 2);
}

TEST(FastScore16, LoweredLimitForcesTheRerun) {
  SWAT_REQUIRE_DEVICE();
  const auto schemes = test::schemes();
  std::mt19937 rng(77);
  fill_context ctx(swat::test::test_device());
  int forced = 0;
  for (int k = 0; k < (test::short_run() ? 40 : 200); ++k) {
    const scoring_scheme& s = schemes[std::size_t(k) % schemes.size()];
    const std::int64_t m = std::uniform_int_distribution<std::int64_t>(1, 2500)(rng);
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 1500)(rng);
    const auto q = test::random_residues(rng, m, s);
    const auto t = test::related_or_random(rng, q, n, s);
    const best_cell want = cell_of(reference::align(q, t, s));
    // Limit just below the best score: must rerun; exactly at it: must not.
    if (want.score > 1) {
      const fill_result below = ctx.fill(q, t, s, score16(want.score - 1));
      EXPECT_TRUE(below.overflowed) << "pair " << k;
      EXPECT_EQ(below.ran, fill_variant::score32);
      EXPECT_EQ(below.best, want) << "pair " << k;
      ++forced;
    }
    const fill_result at = ctx.fill(q, t, s, score16(std::max(want.score, 1)));
    EXPECT_FALSE(at.overflowed) << "pair " << k;
    EXPECT_EQ(at.ran, fill_variant::score16) << "pair " << k;
    EXPECT_EQ(at.best, want) << "pair " << k;
  }
  EXPECT_GT(forced, 10);  // the seeded pairs must exercise the forced rerun many times
}

TEST(FastScore16, LongGapsGoStraightTo32Bits) {
  SWAT_REQUIRE_DEVICE();
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 9000, 1);  // o + e > 8192
  ASSERT_TRUE(scheme_fits(s));
  ASSERT_FALSE(scheme_fits16(s));
  std::mt19937 rng(5);
  const auto q = test::random_residues(rng, 700, s);
  const auto t = test::related_or_random(rng, q, 650, s);
  fill_context ctx(swat::test::test_device());
  const fill_result r = ctx.fill(q, t, s, score16());
  EXPECT_EQ(r.ran, fill_variant::score32);
  EXPECT_FALSE(r.overflowed);
  EXPECT_EQ(r.best, cell_of(reference::align(q, t, s)));
}

}  // namespace
}  // namespace swat::fast

namespace swat::fast {
namespace {

// The grid-barrier variant (fast_barrier_kernel.cuh): every persistent mode, phases of 32, 64
// and 256 columns, grids of 1, 3 and all blocks (1 and 3 blocks: several rounds of strips,
// idle warps in the last round), equal to the reference; an overflow still reruns at 32 bits.
TEST(FastScore16Barrier, EveryModeEqualsReference) {
  SWAT_REQUIRE_DEVICE();
  const auto schemes = test::schemes();
  std::mt19937 rng(2010);
  fill_context ctx(swat::test::test_device());
  const int columns[] = {32, 64, 256};
  const int grids[] = {1, 3, 0};
  int k = 0;
  for (sync_mode mode : persistent_sync_modes()) {
    for (int pass = 0; pass < (test::short_run() ? 2 : 6); ++pass, ++k) {
      const scoring_scheme& s = schemes[std::size_t(k) % schemes.size()];
      const std::int64_t m = std::uniform_int_distribution<std::int64_t>(1, 14000)(rng);
      const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 300)(rng);
      const auto q = test::random_residues(rng, m, s);
      const auto t = test::related_or_random(rng, q, n, s);
      fill_options o = score16();
      o.grid_barrier = mode;
      o.barrier_columns = columns[k % 3];
      o.max_blocks = grids[(k / 3) % 3];
      const fill_result r = ctx.fill(q, t, s, o);
      EXPECT_EQ(r.best, cell_of(reference::align(q, t, s)))
          << to_string(mode) << " pair " << k << " m " << m << " n " << n << " columns " << o.barrier_columns
          << " blocks " << r.blocks;
      EXPECT_EQ(r.ran, fill_variant::score16);
    }
  }
  // Past 32767 under a barrier: relative scores stay exact; absolute ones (o + e + max s > 26)
  // overflow, the fill runs to its end, then the 32-bit rerun gives the answer.
  const auto a = acgt(rng, 17000);
  fill_options o = score16();
  o.grid_barrier = sync_mode::lastin;
  fill_result r = ctx.fill(a, a, scoring::make_dna_scheme(2, -3, 5, 2), o);
  EXPECT_FALSE(r.overflowed);
  EXPECT_EQ(r.best, (best_cell{34000, 17000, 17000}));
  r = ctx.fill(a, a, scoring::make_dna_scheme(2, -3, 40, 2), o);
  EXPECT_TRUE(r.overflowed);
  EXPECT_EQ(r.best, (best_cell{34000, 17000, 17000}));
}

TEST(FastScore16Barrier, RejectsLaunchModesAndOtherVariants) {
  SWAT_REQUIRE_DEVICE();
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  const std::vector<std::uint8_t> q{0, 1, 2, 3};
  fill_context ctx(swat::test::test_device());
  fill_options o = score16();
  o.grid_barrier = sync_mode::cpu;
  EXPECT_THROW(ctx.fill(q, q, s, o), std::invalid_argument);
  o.grid_barrier = sync_mode::lastin;
  o.barrier_columns = 48;
  EXPECT_THROW(ctx.fill(q, q, s, o), std::invalid_argument);
  o.barrier_columns = 0;
  o.variant = fill_variant::score32;
  EXPECT_THROW(ctx.fill(q, q, s, o), std::invalid_argument);
}

//! The rows-first tie rule (fill_options::rows_first): a pair filled transposed gives the
//! original's best cell transposed, on both score variants — random pairs, tandem repeats (ties
//! everywhere) and the fast engine's own transposed score pass of short queries against long
//! targets.
TEST(FastRowsFirst, TransposedFillsGiveTheBestCellOfThePair) {
  SWAT_REQUIRE_DEVICE();
  const auto schemes = test::schemes();
  std::mt19937 rng(909);
  fill_context ctx(swat::test::test_device());
  auto eng = make_fast_engine(engine_options{});
  int ties = 0;
  for (int k = 0; k < (test::short_run() ? 60 : 240); ++k) {
    const scoring_scheme& s = schemes[std::size_t(k) % schemes.size()];
    const std::int64_t m = std::uniform_int_distribution<std::int64_t>(1, 1500)(rng);
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 6000)(rng);
    const auto [q, t] = pair_of(rng, m, n, s, k % 3 == 2, 7);
    const alignment ref = reference::align(q, t, s);
    const best_cell want{ref.score, ref.query_end, ref.target_end};
    for (const fill_variant v : {fill_variant::score32, fill_variant::score16}) {
      fill_options o;
      o.variant = v;
      o.rows_first = true;
      const best_cell b = ctx.fill(t, q, s, o).best;
      EXPECT_EQ((best_cell{b.score, b.target_end, b.query_end}), want)
          << "pair " << k << " m " << m << " n " << n << " " << s.matrix_name << " variant " << int(v);
    }
    if (s.symmetric()) {
      EXPECT_EQ(eng->score_only(q, t, s), want) << "engine, pair " << k;
    }
    ties += k % 3 == 2 && want.score > 0 ? 1 : 0;
  }
  EXPECT_GT(ties, 10);
}

}  // namespace
}  // namespace swat::fast

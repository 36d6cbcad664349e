// The fast engine on every pair of ../shared/data/expected.tsv. Pairs whose alignment rectangle
// is small enough for the CPU tracer (all but the 1.46 Mb × 1.46 Mb Spiroplasma pair) go
// through align(): score, begin and end equal the agreed values and the printed alignment
// rescores to the score. The Spiroplasma pair: score_only() must give the agreed score and end
// cell, and the origins fill the same best cell (its begin is reported, not checked: n/a); and
// its full alignment through the traceback backend (fast_trace.hpp: special rows, then the root
// fill), which must rescore to the agreed score.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "cuda/engines/fast/fast_engine.hpp"
#include "cuda/engines/fast/fast_fill.hpp"
#include "cuda/engines/fast/fast_trace.hpp"
#include "io/fasta.hpp"
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

TEST(FastRealData, SpiroplasmaFullAlignment) {
  SWAT_REQUIRE_DEVICE();
  const std::filesystem::path dir = SWAT_SHARED_DATA;
  const auto read = [&](const char* f) {
    return io::read_fasta((dir / "dna" / f).string(), io::alphabet_request::dna, {}).records.at(0).residues;
  };
  if (!std::filesystem::exists(dir / "dna/spiroplasma_kunkelii_CP010899.1.fa")) GTEST_SKIP() << "no data";
  if (test::short_run()) GTEST_SKIP() << "short run";
  const auto q = read("spiroplasma_kunkelii_CP010899.1.fa");
  const auto t = read("spiroplasma_kunkelii_CP010899.1_mutated_seed42.fa");
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  // Special rows of 2048 rows, then the crossing-pointer root fill with bands of 2048 rows (with
  // the progress hook; long runs add 4096): the same alignment.
  std::vector<std::int64_t> band_rows{0, 2048};
  if (swat::test::long_run()) band_rows.push_back(4096);
  alignment first;
  for (std::int64_t pref : band_rows) {
    trace_progress hook;  // the root fill of K = 2048 prints the progress hook's calls (a TTY is not there)
    if (pref == 2048)
      hook = {[](void*, double f, double e) { std::fprintf(stderr, "\rfill %3d%% (%.1f s)%s", int(f * 100), e, f >= 1 ? "\n" : ""); },
              nullptr};
    auto be = make_gpu_trace_backend(swat::test::test_device(), s, 20.0, hook);
    trace_options o;
    o.special = pref == 0;
    o.preferred_band_rows = pref;
    o.budget_bytes = std::int64_t(double(swat::test::test_device().free_bytes()) * 0.85);
    trace_stats st;
    const auto t0 = std::chrono::steady_clock::now();
    const alignment a = trace_alignment(q, t, *be, o, &st);
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(a.score, 2832494);
    EXPECT_EQ(a.query_end, 1463918);
    EXPECT_EQ(a.target_end, 1463909);
    EXPECT_EQ(rescore(a, q, t, s), a.score);
    if (pref == 0) first = a;
    else EXPECT_EQ(a, first) << "the root fill's alignment differs from the special rows'";
    std::printf("spiroplasma trace %s K=%lld: score %d begin %lld,%lld end %lld,%lld ops %zu; total %.3f s = "
                "special fill %.3f s + crossing fills %.3f s (%d) + codes fills %.3f s (%d, %d bands, %.3g cells) + "
                "CPU walk %.3f s; peak plan %.2f GB\n",
                pref == 0 ? "special rows" : "root fill", (long long)(pref == 0 ? st.special_rows_k : st.root_band_rows),
                a.score, (long long)a.query_begin + 1, (long long)a.target_begin + 1, (long long)a.query_end,
                (long long)a.target_end, a.ops.size(), total, st.special_seconds, st.crossing_seconds,
                st.crossing_fills, st.codes_seconds, st.codes_fills, st.bands, double(st.band_cells), st.walk_seconds,
                double(st.peak_bytes) / 1e9);
  }
}

}  // namespace
}  // namespace swat::fast

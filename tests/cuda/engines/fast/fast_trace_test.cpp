// Bounded-memory traceback (cuda/engines/fast/fast_trace.hpp). The host algorithm with the scalar CPU
// model of the fills (no device needed) and with the GPU fills, against reference::align on
// seeded random pairs under tiny budgets (root bands of 256 rows, segments split again; one GPU
// backend per scheme serves pair after pair), and mid-size related pairs (2k–20k) against
// cpu_engine, also through one fast engine pair after pair (the 1.46 Mb Spiroplasma pair end to end:
// fast_real_data_test.cpp).
// The banded backend (the root fill in one row band per GPU, each keeping its checkpoint rows;
// here the test GPU named two or three times, hand-overs direct and through host memory) against
// the reference and the CPU engine.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cuda/engines/fast/fast_bands.hpp"
#include "cuda/engines/fast/fast_engine.hpp"
#include "cuda/engines/fast/fast_trace.hpp"
#include "engine/cpu_engine.hpp"
#include "io/fasta.hpp"
#include "reference/reference.hpp"
#include "cuda/engines/fast/fast_test_util.hpp"

namespace swat::fast {
namespace {

//! A budget that holds the root with ~4 checkpoint rows but forces splits of wide segments
//! (the crossing-pointer root fill: no special rows).
trace_options tight(std::int64_t m, std::int64_t n, std::int64_t preferred) {
  trace_options o;
  o.special = false;
  o.preferred_band_rows = preferred;
  o.budget_bytes = std::max(crossing_fill_bytes(m, n, std::max<std::int64_t>(trace_strip_rows, (m + 4) / 5)),
                            codes_fill_bytes(trace_strip_rows, n + 1));
  return o;
}

void random_pairs(trace_backend& (*get)(const scoring_scheme&), int pairs, std::int64_t max_len, std::uint32_t seed) {
  const auto schemes = test::schemes();
  std::mt19937 rng(seed);
  int failed = 0, splits = 0, fell_back = 0;
  for (int k = 0; k < pairs && failed < 5; ++k) {
    const scoring_scheme& s = schemes[std::size_t(k) % schemes.size()];
    const std::int64_t m = std::uniform_int_distribution<std::int64_t>(1, max_len)(rng);
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, max_len)(rng);
    const auto q = test::random_residues(rng, m, s);
    const auto t = test::related_or_random(rng, q, n, s);
    const alignment want = reference::align(q, t, s);
    trace_stats st;
    trace_options o = tight(m, n, k % 2 ? trace_strip_rows : 1024);
    // Every third pair asks for special rows: under these budgets they seldom fit (a band's
    // codes do not), and the traceback falls back to the root fill by itself.
    o.special = k % 3 == 0;
    get(s).drop_special();
    const alignment got = trace_alignment(q, t, get(s), o, &st);
    fell_back += o.special && st.special_rows_k == 0 ? 1 : 0;
    splits += st.special_rows_k > 0 ? 0 : st.crossing_fills - 1;
    EXPECT_EQ(got, want) << "pair " << k << " m " << m << " n " << n << " " << s.matrix_name << " score "
                         << got.score << " want " << want.score;
    EXPECT_LE(st.peak_bytes, o.budget_bytes);
    failed += got == want ? 0 : 1;
  }
  std::printf("trace: %d pairs, %d segment splits, %d fell back from special rows, %d failed\n", pairs, splits,
              fell_back, failed);
  EXPECT_GT(splits, 0);
  EXPECT_GT(fell_back, 0);
}

trace_backend& cpu_backend(const scoring_scheme& s) {
  static std::unique_ptr<trace_backend> be;
  be = make_cpu_trace_backend(s);
  return *be;
}

//! One GPU backend per scheme, kept from pair to pair (as the fast engine keeps its own): every
//! pair after a scheme's first runs on the buffers and staging another pair left behind.
trace_backend& gpu_backend(const scoring_scheme& s) {
  static std::vector<std::pair<scoring_scheme, std::unique_ptr<trace_backend>>> kept;
  for (auto& [scheme, be] : kept)
    if (scheme == s) return *be;
  kept.emplace_back(s, make_gpu_trace_backend(swat::test::test_device(), s, 20.0, {}));
  return *kept.back().second;
}

//! Special rows every 512 rows, two ways on each pair: (a) filled by the traceback itself under a
//! roomy budget; (b) kept by a score pass of the whole pair (as a search's) and reused for the
//! prefixes that end at its best cell, under a budget that leaves wide bands no room for their
//! codes, so that they are cut by crossing fills whose top border is the special row.
void special_pairs(trace_backend& (*get)(const scoring_scheme&), int pairs, std::int64_t max_len, std::uint32_t seed) {
  auto schemes = test::schemes();
  schemes.push_back(scoring::make_dna_scheme(2, -3, 4, 0));     // gap extension free: no width bound
  schemes.push_back(scoring::make_dna_scheme(5, -4, 60, 12));    // gaps dearer than many matches
  schemes.push_back(scoring::make_protein_scheme("BLOSUM62", 0, 1));  // gaps opened for free
  std::mt19937 rng(seed);
  int failed = 0, bands = 0, band_splits = 0, reused = 0, ahead = 0;
  double refetched_s = 0;
  for (int k = 0; k < pairs && failed < 5; ++k) {
    const scoring_scheme& s = schemes[std::size_t(k) % schemes.size()];
    const std::int64_t m = std::uniform_int_distribution<std::int64_t>(1, max_len)(rng);
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, max_len)(rng);
    auto q = test::random_residues(rng, m, s);
    if (k % 4 == 3) {  // tandem repeats: equal-scoring paths everywhere, ties across band edges
      const std::size_t unit = std::uniform_int_distribution<std::size_t>(1, 12)(rng);
      for (std::size_t i = unit; i < q.size(); ++i) q[i] = q[i - unit];
    }
    const auto t = test::related_or_random(rng, q, n, s);
    const alignment want = reference::align(q, t, s);
    trace_backend& be = get(s);
    // A traceback that throws is reported with its pair, and the loop goes on.
    const auto traced = [&](residue_span qs, residue_span ts, const trace_options& o, trace_stats& st,
                            const char* what) -> std::optional<alignment> {
      try {
        return trace_alignment(qs, ts, be, o, &st);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "pair " << k << " m " << m << " n " << n << " " << s.matrix_name << " gaps " << s.gap_open
                      << "/" << s.gap_extend << " (" << what << ") threw: " << e.what();
        ++failed;
        return std::nullopt;
      }
    };
    {
      trace_options o;
      o.budget_bytes = std::int64_t(1) << 30;
      o.special_band_rows = 512;
      o.bands_ahead_min_walk = 0;  // bands ahead on walks of a few bands too
      // No margin around the guessed path on every other pair: the walk leaves the copied codes
      // often, and the whole fill's codes are copied back then (GPU backend).
      if (k % 2 == 1) o.path_copy_margin = 0;
      trace_stats st;
      be.drop_special();
      const std::optional<alignment> run = traced(q, t, o, st, "special rows");
      if (!run) continue;
      const alignment& got = *run;
      EXPECT_EQ(got, want) << "pair " << k << " m " << m << " n " << n << " " << s.matrix_name << " (special rows)";
      EXPECT_EQ(st.special_rows_k, 512);
      EXPECT_FALSE(st.special_reused);
      bands += st.bands;
      ahead += st.bands_ahead;
      refetched_s += st.codes_refetch_seconds;
      failed += got == want ? 0 : 1;
    }
    const best_cell best = be.special_fill(q, t, 512, false);
    ASSERT_EQ(best.score, want.score);
    ASSERT_EQ(be.special_kept().band_rows, 512);
    const residue_span qp = residue_span(q).first(std::size_t(best.query_end));
    const residue_span tp = residue_span(t).first(std::size_t(best.target_end));
    trace_options o;
    o.special_band_rows = 512;
    o.bands_ahead_min_walk = 0;  // bands ahead on walks of a few bands too
    o.budget_bytes = special_fill_bytes(m, n, 512) + crossing_fill_bytes(512, n + 1, 256) + 130 * (n + 32);
    trace_stats st;
    const std::optional<alignment> run = traced(qp, tp, o, st, "kept rows");
    if (!run) continue;
    const alignment& got = *run;
    EXPECT_EQ(got, want) << "pair " << k << " m " << m << " n " << n << " " << s.matrix_name << " (kept rows)";
    EXPECT_TRUE(st.special_reused || want.score == 0);
    EXPECT_LE(st.peak_bytes, o.budget_bytes);
    reused += st.special_reused ? 1 : 0;
    band_splits += st.crossing_fills;
    failed += got == want ? 0 : 1;
  }
  // A different pair's rows are not reused: the traceback fills its own.
  const auto q = test::random_residues(rng, 900, schemes[0]);
  const auto t = test::related_or_random(rng, q, 800, schemes[0]);
  trace_backend& be = get(schemes[0]);
  be.special_fill(t, q, 512, false);
  trace_options o;
  o.budget_bytes = std::int64_t(1) << 30;
  o.special_band_rows = 512;
  trace_stats st;
  EXPECT_EQ(trace_alignment(q, t, be, o, &st), reference::align(q, t, schemes[0]));
  EXPECT_FALSE(st.special_reused);
  std::printf("special rows: %d pairs, %d bands (%d filled ahead), %d kept rows reused, %d band crossing fills, %d failed\n",
              pairs, bands, ahead, reused, band_splits, failed);
  EXPECT_GT(band_splits, 0);
  EXPECT_GT(bands, pairs);
  EXPECT_GT(ahead, 0);  // bands filled ahead of the walk served some bands
  // The GPU backend copies back only the codes along each band's guessed path: without a margin
  // the walks left them, and the whole codes came back (the alignments above are exact anyway).
  if (get == gpu_backend) {
    EXPECT_GT(refetched_s, 0.0);
  }
}

//! A pair of many bands: the windows of the bands filled ahead serve where the path keeps its
//! slope (small indels), and miss where it leaves them (a long insertion, a long deletion): the
//! missed bands are filled again and the alignment is the reference's either way.
void bands_ahead(trace_backend& (*get)(const scoring_scheme&), std::int64_t length, std::int64_t k) {
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  std::mt19937 rng(29);
  const auto q = test::random_residues(rng, std::size_t(length), s);
  std::uniform_int_distribution<int> base(0, 3), percent(0, 99), indel(1, 3);
  for (int gap : {0, 1, 2}) {  // 0: small indels only; 1: a long insertion in t; 2: a long deletion
    std::vector<std::uint8_t> t;
    for (std::size_t i = 0; i < q.size(); ++i) {
      if (gap == 1 && i == q.size() / 2)
        for (std::int64_t g = 0; g < k / 2; ++g) t.push_back(std::uint8_t(base(rng)));
      if (gap == 2 && i >= q.size() / 2 && i < q.size() / 2 + std::size_t(k / 2)) continue;
      const int p = percent(rng);
      if (p < 4) t.push_back(std::uint8_t((q[i] + 1 + base(rng) % 3) % 4));  // substitution
      else if (p < 5) continue;                                                // deletion
      else if (p < 6) for (int g = indel(rng); g > 0; --g) t.push_back(std::uint8_t(base(rng)));  // insertion
      else t.push_back(q[i]);
    }
    const alignment want = reference::align(q, t, s);
    trace_options o;
    o.budget_bytes = std::int64_t(1) << 30;
    o.special_band_rows = k;
    o.bands_ahead_min_walk = 0;
    trace_stats st;
    trace_backend& be = get(s);
    be.drop_special();
    EXPECT_EQ(trace_alignment(q, t, be, o, &st), want) << "gap case " << gap;
    EXPECT_EQ(st.special_rows_k, k);
    if (gap == 0) {  // the path keeps its slope: most bands come from fills ahead, their special
                     // row cells read back with them
      EXPECT_GT(st.bands_ahead, st.bands / 2) << st.bands << " bands";
      EXPECT_GT(st.band_reads_ahead, st.bands / 2) << st.bands << " bands";
    } else {  // the band of the gap leaves its window; the others still serve
      EXPECT_GT(st.bands_ahead, 0) << "gap case " << gap;
      EXPECT_GT(st.bands_ahead_missed, 0) << "gap case " << gap;
    }
    // Under a budget of the special rows and a few bands' codes the ring holds fewer bands (every
    // slot's buffer counted as held, a slot growing by half) and the alignment stays the same.
    trace_options tight = o;
    tight.budget_bytes = special_fill_bytes(std::int64_t(q.size()), std::int64_t(t.size()), k) +
                         codes_fill_bytes(k, 2 * k + 1024);
    trace_stats tst;
    be.drop_special();
    EXPECT_EQ(trace_alignment(q, t, be, tight, &tst), want) << "gap case " << gap << " (tight budget)";
    EXPECT_LE(tst.peak_bytes, tight.budget_bytes) << "gap case " << gap;
    std::printf("bands ahead, gap case %d: %d bands, %d walked from fills ahead, %d missed, %d special row reads "
                "ahead; %.4f s of codes copied back whole after the walk left the guessed path; under the tight "
                "budget %d from fills ahead, peak %lld of %lld bytes\n",
                gap, st.bands, st.bands_ahead, st.bands_ahead_missed, st.band_reads_ahead, st.codes_refetch_seconds,
                tst.bands_ahead, static_cast<long long>(tst.peak_bytes), static_cast<long long>(tight.budget_bytes));
  }
}

//! Traces q × t (alignment want) with special rows every 512 rows and root bands of root_rows
//! rows in modes first_mode … 2: 0 special rows under a roomy budget (codes), 1 kept special rows
//! under a budget that makes their bands' crossing fills split them, 2 the root fill.
//! crossings: the modes that must have run a crossing fill (bit per mode).
void trace_in_modes(trace_backend& (*get)(const scoring_scheme&), const scoring_scheme& s,
                    const std::vector<std::uint8_t>& q, const std::vector<std::uint8_t>& t, const alignment& want,
                    std::int64_t root_rows, int first_mode, unsigned crossings, const std::string& what) {
  const std::int64_t m = std::int64_t(q.size()), n = std::int64_t(t.size());
  for (int mode = first_mode; mode < 3; ++mode) {
    trace_options o;
    o.special_band_rows = 512;
    o.preferred_band_rows = root_rows;
    o.special = mode < 2;
    o.budget_bytes = mode == 1 ? special_fill_bytes(m, n, 512) + crossing_fill_bytes(512, n + 1, 256) + 160 * (n + 32)
                               : std::int64_t(1) << 30;
    trace_backend& be = get(s);
    if (mode == 1) be.special_fill(q, t, 512, false);  // kept, so that the tight budget still uses them
    else be.drop_special();
    trace_stats st;
    EXPECT_EQ(trace_alignment(q, t, be, o, &st), want) << what << " mode " << mode;
    EXPECT_EQ(st.special_rows_k > 0, mode < 2) << what << " mode " << mode;
    if (crossings >> mode & 1) {
      EXPECT_GT(st.crossing_fills, 0) << what << " mode " << mode;
    }
  }
}

//! An alignment that begins on column 0 of a band's top row (q = 512·b unrelated residues, then
//! the target): the walk reaches the left border exactly on a special or checkpoint row. Special
//! rows (codes, and crossing fills under a tight budget) and the root fill.
void begins_on_column_0(trace_backend& (*get)(const scoring_scheme&)) {
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  std::mt19937 rng(31);
  for (int b = 1; b <= 2; ++b) {
    std::vector<std::uint8_t> t(300), q(std::size_t(512 * b), 0);  // A… against C/G/T
    for (auto& r : t) r = std::uint8_t(std::uniform_int_distribution<int>(1, 3)(rng));
    q.insert(q.end(), t.begin(), t.end());
    const alignment want = reference::align(q, t, s);
    ASSERT_EQ(want.query_begin, 512 * b);
    ASSERT_EQ(want.target_begin, 0);
    trace_in_modes(get, s, q, t, want, 512, 0, 0b010, "b " + std::to_string(b));
  }
}

//! An alignment that begins inside the matrix exactly on a checkpoint row of a crossing fill
//! (q = 512·b + 256 unrelated residues, then a piece of the target from column 200 on): the pointer
//! chain meets the begin (H = 0) at a crossing, and no segment lies above it. The root fill in
//! bands of 256 rows, and kept special rows every 512 rows whose band is split in two by a
//! crossing fill (seed 17's pair 134 of GpuSpecialRowsEqualReference threw "empty segment").
void begins_on_a_checkpoint_row(trace_backend& (*get)(const scoring_scheme&)) {
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  std::mt19937 rng(37);
  for (int b = 0; b <= 1; ++b) {
    std::vector<std::uint8_t> t(600), q(std::size_t(512 * b + 256), 0);  // A… against C/G/T
    for (auto& r : t) r = std::uint8_t(std::uniform_int_distribution<int>(1, 3)(rng));
    q.insert(q.end(), t.begin() + 200, t.begin() + 500);
    const alignment want = reference::align(q, t, s);
    ASSERT_EQ(want.query_begin, 512 * b + 256);
    ASSERT_EQ(want.target_begin, 200);
    trace_in_modes(get, s, q, t, want, 256, 1, 0b110, "b " + std::to_string(b));
  }
}

TEST(FastTrace, CpuModelBeginsOnColumn0OfABandTop) { begins_on_column_0(cpu_backend); }

TEST(FastTrace, CpuModelBeginsOnACheckpointRow) { begins_on_a_checkpoint_row(cpu_backend); }

TEST(FastTrace, GpuBeginsOnACheckpointRow) {
  SWAT_REQUIRE_DEVICE();
  begins_on_a_checkpoint_row(gpu_backend);
}

TEST(FastTrace, GpuBeginsOnColumn0OfABandTop) {
  SWAT_REQUIRE_DEVICE();
  begins_on_column_0(gpu_backend);
}

TEST(FastTrace, CpuModelEqualsReference) { random_pairs(cpu_backend, swat::test::test_size(40, 150, 300), 1500, 11); }

TEST(FastTrace, CpuModelBandsAheadServeAndMiss) { bands_ahead(cpu_backend, 6000, 512); }

TEST(FastTrace, GpuBandsAheadServeAndMiss) {
  SWAT_REQUIRE_DEVICE();
  bands_ahead(gpu_backend, 12000, 1024);
}

TEST(FastTrace, CpuModelSpecialRowsEqualReference) {
  special_pairs(cpu_backend, swat::test::test_size(40, 150, 300), 1800, 16);
}

TEST(FastTrace, GpuSpecialRowsEqualReference) {
  SWAT_REQUIRE_DEVICE();
  special_pairs(gpu_backend, swat::test::test_size(60, 150, 600), 3000, 17);
}

TEST(FastTrace, GpuEqualsReference) {
  SWAT_REQUIRE_DEVICE();
  random_pairs(gpu_backend, swat::test::test_size(60, 150, 600), 2600, 12);
}

TEST(FastTrace, GpuMidSizeEqualsCpuEngine) {
  SWAT_REQUIRE_DEVICE();
  const auto schemes = test::schemes();
  std::mt19937 rng(13);
  cpu_engine cpu;
  for (int k = 0; k < (test::short_run() ? 3 : 16); ++k) {
    const scoring_scheme& s = schemes[std::size_t(k) % 2];
    const std::int64_t m = std::uniform_int_distribution<std::int64_t>(2000, 20000)(rng);
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(2000, 20000)(rng);
    const auto q = test::random_residues(rng, m, s);
    const auto t = test::related_or_random(rng, q, n, s);
    const alignment want = cpu.align(q, t, s);
    for (std::int64_t pref : {std::int64_t(256), std::int64_t(2048)}) {
      trace_stats st;
      const trace_options o = tight(m, n, pref);
      const alignment got = trace_alignment(q, t, gpu_backend(s), o, &st);
      EXPECT_EQ(got, want) << "pair " << k << " m " << m << " n " << n << " K " << pref;
      EXPECT_EQ(rescore(got, q, t, s), got.score);
      EXPECT_LE(st.peak_bytes, o.budget_bytes);
    }
    for (std::int64_t special_k : {std::int64_t(512), std::int64_t(2048)}) {  // the special rows
      trace_options o;
      o.budget_bytes = std::int64_t(1) << 30;
      o.special_band_rows = special_k;
      trace_stats st;
      gpu_backend(s).drop_special();  // (the rows of the run before would serve this pair)
      EXPECT_EQ(trace_alignment(q, t, gpu_backend(s), o, &st), want) << "pair " << k << " special K " << special_k;
      EXPECT_EQ(st.special_rows_k, special_k);
      EXPECT_FALSE(st.special_reused);
    }
  }
  // The engine path (GPU trace above 2^24 cells), pair after pair on one engine: its backend is
  // kept while the scheme stays and made again when it changes.
  auto eng = make_fast_engine(engine_options{});
  const std::pair<std::int64_t, std::int64_t> sizes[] = {{9000, 8000}, {5000, 4200}, {4300, 6000}, {8000, 9000}};
  for (int k = 0; k < 4; ++k) {
    const scoring_scheme& s = schemes[std::size_t(k / 2) % 2];
    const auto q = test::random_residues(rng, sizes[k].first, s);
    const auto t = test::related_or_random(rng, q, sizes[k].second, s);
    EXPECT_EQ(eng->align(q, t, s), cpu.align(q, t, s)) << "engine pair " << k << " " << s.matrix_name;
  }
}

//! A search's pattern on one engine, for the first two schemes: the score pass of an m × n pair
//! keeps its special rows, and the alignment of the prefixes that end at its best cell starts
//! from them; both alignments (prefixes, whole pair) equal the CPU engine's. after(scheme) runs
//! after each pair.
void score_then_align(engine& eng, std::uint32_t seed, std::int64_t m, std::int64_t n,
                      const std::function<void(const scoring_scheme&)>& after = {}) {
  const auto schemes = test::schemes();
  std::mt19937 rng(seed);
  cpu_engine cpu;
  for (int k = 0; k < 2; ++k) {
    const scoring_scheme& s = schemes[std::size_t(k)];
    const auto q = test::random_residues(rng, m, s);
    const auto t = test::related_or_random(rng, q, n, s);
    const best_cell best = eng.score_only(q, t, s);
    const alignment want = cpu.align(q, t, s);
    ASSERT_EQ(best.score, want.score) << s.matrix_name;
    const alignment got = eng.align(residue_span(q).first(std::size_t(best.query_end)),
                                    residue_span(t).first(std::size_t(best.target_end)), s);
    EXPECT_EQ(got, want) << s.matrix_name;
    EXPECT_EQ(eng.align(q, t, s), want) << s.matrix_name << " (the whole pair)";
    if (after) after(s);
  }
}

TEST(FastTrace, EngineAlignsFromItsScorePassSpecialRows) {
  SWAT_REQUIRE_DEVICE();
  auto eng = make_fast_engine(engine_options{});
  score_then_align(*eng, 18, 70000, 66000);
}

//! The special fill in row bands over two GPUs (the test's GPU named twice: two bands of one
//! round each, the second writing its rows by "peer" access; and GPUs 0 and 1 where there are
//! two) keeps the rows and maxima of the fill on one GPU, byte for byte, for both fill variants.
TEST(FastTrace, SpecialRowsFilledInBandsAreTheWholeFillsRows) {
  SWAT_REQUIRE_DEVICE();
  const auto schemes = test::schemes();
  std::mt19937 rng(1128);
  const swat::cuda::device_context dev = swat::test::test_device();
  for (int k = 0; k < 4; ++k) {
    const scoring_scheme& s = schemes[std::size_t(k) % 2];
    const bool try16 = k >= 2;  // the packed fill keeps rows every 1024 rows (its strips)
    const std::int64_t every = try16 ? 1024 : 512;
    const auto q = test::random_residues(rng, 9000 + 700 * k, s);
    const auto t = test::related_or_random(rng, q, 3000 + 500 * k, s);
    auto whole = make_gpu_trace_backend(dev, s, 20.0, {});
    auto bands = make_gpu_trace_backend(dev, s, 20.0, {});
    const bool two = k % 2 == 1 && dev.id() == 0 && swat::cuda::device_count() >= 2 && bands_reach_first({0, 1});
    bands->spread_special_fills({dev.id(), two ? 1 : dev.id()});
    const best_cell want = whole->special_fill(q, t, every, try16);
    EXPECT_EQ(bands->special_fill(q, t, every, try16), want) << k;
    EXPECT_GE(bands->special_kept().fill_bands, 2) << k << ": the fill did not run in bands";
    EXPECT_EQ(whole->special_kept().fill_bands, 0) << k;
    const alignment ref = reference::align(q, t, s);
    EXPECT_EQ(want, (best_cell{ref.score, ref.query_end, ref.target_end})) << k;
    const std::int64_t rows = (std::int64_t(q.size()) - 1) / every, n = std::int64_t(t.size());
    ASSERT_GT(rows, 2);
    std::vector<special_cell> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
    for (std::int64_t r = 0; r < rows; ++r) {
      whole->special_cells(r, 1, n, a.data());
      bands->special_cells(r, 1, n, b.data());
      std::int64_t differ = 0;
      for (std::int64_t c = 0; c < n; ++c)
        differ += a[std::size_t(c)].h != b[std::size_t(c)].h || a[std::size_t(c)].f != b[std::size_t(c)].f;
      EXPECT_EQ(differ, 0) << "pair " << k << ", special row " << r;
      EXPECT_EQ(whole->special_max(r), bands->special_max(r)) << "pair " << k << ", special row " << r;
    }
  }
}

//! The search's pattern over two GPUs (the test's GPU named twice in --gpus): the score pass runs
//! in bands of query rows cycled over them, every band writing its special rows into the first
//! GPU's memory, and the alignment walks from those rows on the first GPU as on one (its stages
//! name the bands walked), not from a root fill in bands.
TEST(FastTrace, EngineOverTwoGpusAlignsFromItsBandedScorePassSpecialRows) {
  SWAT_REQUIRE_DEVICE();
  const int d = swat::test::test_device().id();
  engine_options o;
  o.gpu_id = d;
  o.gpus = gpu_selection{false, 0, {d, d}};
  auto eng = make_fast_engine(o);
  score_then_align(*eng, 19, 72000, 64000, [&](const scoring_scheme& s) {
    bool walked = false, banded = false;
    for (const auto& [name, seconds] : eng->stage_seconds()) {
      walked |= name.starts_with("pair tracebacks: bands ");
      banded |= name.starts_with("long pairs' score passes in bands over GPUs ");
    }
    EXPECT_TRUE(banded) << s.matrix_name << ": the score pass did not run in bands";
    EXPECT_TRUE(walked) << s.matrix_name << ": the walk did not start from the score pass's special rows";
  });
}

trace_backend& banded_backend(const scoring_scheme& s) {
  static std::unique_ptr<trace_backend> be;
  static int calls = 0;
  const int d = swat::test::test_device().id();
  ++calls;  // two and three bands, direct and through host memory, in turn
  be = make_banded_trace_backend(calls % 2 ? std::vector<int>{d, d} : std::vector<int>{d, d, d}, s, 20.0, {},
                                 calls % 4 >= 2);
  return *be;
}

TEST(FastTraceBands, EqualTheReference) {
  SWAT_REQUIRE_DEVICE();
  random_pairs(banded_backend, swat::test::test_size(40, 100, 400), 2600, 14);
}

TEST(FastTraceBands, MidSizeEqualTheCpuEngineAndTheOneDeviceBackend) {
  SWAT_REQUIRE_DEVICE();
  const auto schemes = test::schemes();
  std::mt19937 rng(15);
  cpu_engine cpu;
  const int d = swat::test::test_device().id();
  for (int k = 0; k < (test::short_run() ? 2 : 8); ++k) {
    const scoring_scheme& s = schemes[std::size_t(k) % 2];
    const std::int64_t m = std::uniform_int_distribution<std::int64_t>(3000, 16000)(rng);
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(2000, 16000)(rng);
    const auto q = test::random_residues(rng, m, s);
    const auto t = test::related_or_random(rng, q, n, s);
    const alignment want = cpu.align(q, t, s);
    for (std::int64_t pref : {std::int64_t(256), std::int64_t(1024)}) {
      for (const bool special : {false, true}) {  // the root fill in device bands; the special fill in bands
        trace_options o;
        o.preferred_band_rows = pref;
        o.budget_bytes = std::int64_t(1) << 31;
        o.special = special;
        o.special_band_rows = 512;
        auto banded = make_banded_trace_backend({d, d, d}, s, 20.0, {}, k % 2 == 1);
        trace_stats st;
        const alignment got = trace_alignment(q, t, *banded, o, &st);
        EXPECT_EQ(got, want) << "pair " << k << " m " << m << " n " << n << " K " << pref
                             << (special ? " (special rows)" : "");
        if (special) {
          EXPECT_EQ(st.special_rows_k, 512) << "pair " << k;
        } else {
          EXPECT_GT(st.root_band_rows, 0);
          EXPECT_GE(m, 3 * st.root_band_rows) << "the root fill ran in three device bands";
        }
      }
    }
  }
  EXPECT_THROW(make_banded_trace_backend({}, schemes[0], 20.0, {}), std::invalid_argument);
}

}  // namespace
}  // namespace swat::fast

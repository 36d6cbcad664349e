// A fill cut into bands of strips, each band with its own buffers and the border row handed to
// the next band with a system-scope flag (cuda/engines/fast/fast_bands.hpp, the logic of a long
// pair over several GPUs, run here on one): the best cell equals the reference's for 1 to 7
// bands (more bands than strips included), both fill variants, every scheme, related and random
// pairs, hand-overs into the next band's memory and through mapped host memory (the path of GPUs
// without peer access); a 16-bit overflow in one band reruns every band at 32 bits, and the band
// below an overflowing band stops at once (poisoned flag) instead of waiting for its watchdog;
// the real 30 kb SARS-CoV-2 × RaTG13 pair against the whole fill; bands running at once on one
// device (one stream each, as on several GPUs) wait for the whole of the bands above them under
// a watchdog far shorter than that wait (the shared progress counter keeps it from firing).

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include "cuda/common/device_buffer.hpp"
#include "cuda/engines/fast/fast_bands.hpp"
#include "cuda/engines/fast/fast_trace_types.hpp"
#include "cuda/engines/fast/fast_test_util.hpp"
#include "io/fasta.hpp"
#include "reference/reference.hpp"
#include "scoring/scoring.hpp"

namespace swat::fast {
namespace {

best_cell cell_of(const alignment& a) { return {a.score, a.query_end, a.target_end}; }

fill_options variant_options(fill_variant v, std::int32_t limit = 0) {
  fill_options o;
  o.variant = v;
  o.score16_limit = limit;
  o.max_blocks = 2;  // few warps take many strips: hand-overs meet strips still running
  return o;
}

TEST(FastBands, EveryBandCountEqualsTheReference) {
  SWAT_REQUIRE_DEVICE();
  const auto schemes = test::schemes();
  std::mt19937 rng(20261125);
  const int dev = swat::test::test_device().id();
  for (int k = 0; k < (test::short_run() ? 12 : 60); ++k) {
    const scoring_scheme& s = schemes[std::size_t(k) % schemes.size()];
    const std::int64_t m = std::uniform_int_distribution<std::int64_t>(1, 6000)(rng);
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 1500)(rng);
    const auto q = test::random_residues(rng, m, s);
    const auto t = test::related_or_random(rng, q, n, s);
    const best_cell want = cell_of(reference::align(q, t, s));
    for (const fill_variant v : {fill_variant::score32, fill_variant::score16}) {
      const int bands = 1 + k % 7;
      band_layout layout;
      layout.devices = {dev};
      layout.through_host = k % 2 == 1;
      const fill_result got = fill_bands(q, t, s, variant_options(v), bands, layout);
      EXPECT_EQ(got.best, want) << "pair " << k << " (" << m << " x " << n << "), " << bands << " bands, "
                                << (v == fill_variant::score16 ? "score16" : "score32")
                                << (layout.through_host ? ", through host memory" : "");
      const int handovers = std::max(0, std::min<int>(bands, got.strips) - 1);
      EXPECT_EQ(got.handovers_through_host, layout.through_host ? handovers : 0);
      EXPECT_EQ(got.handover_bytes, std::int64_t(handovers) * n * (got.ran == fill_variant::score16 ? 4 : 8));
    }
  }
}

TEST(FastBands, AnOverflowInOneBandRerunsEveryBandAt32Bits) {
  SWAT_REQUIRE_DEVICE();
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  std::mt19937 rng(5);
  band_layout layout;
  layout.devices = {swat::test::test_device().id()};
  for (int k = 0; k < 6; ++k) {
    const auto q = test::random_residues(rng, 5000, s);
    const auto t = test::related_or_random(rng, q, 1200, s);
    const best_cell want = cell_of(reference::align(q, t, s));
    if (want.score < 2) continue;
    layout.through_host = k % 2 == 1;
    const auto t0 = std::chrono::steady_clock::now();
    fill_options o = variant_options(fill_variant::score16, want.score - 1);
    o.watchdog_seconds = 30;  // a band left waiting would take this long: the poisoned flag stops it
    const fill_result got = fill_bands(q, t, s, o, 3, layout);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0) << k;
    EXPECT_TRUE(got.overflowed) << k;
    EXPECT_EQ(got.ran, fill_variant::score32);
    EXPECT_EQ(got.best, want) << k;
  }
}

TEST(FastBands, BandsAtOnceOutwaitAShortWatchdogAndEqualTheWholeFill) {
  SWAT_REQUIRE_DEVICE();
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  std::mt19937 rng(1125);
  const auto q = test::random_residues(rng, 60000, s);
  const auto t = test::related_or_random(rng, q, 60000, s);
  fill_context whole(swat::test::test_device());
  for (const fill_variant v : {fill_variant::score32, fill_variant::score16}) {
    fill_options o;
    o.variant = v;
    const best_cell want = whole.fill(q, t, s, o).best;
    o.max_blocks = 2;           // every band's grid fits beside the others: they run at once
    o.watchdog_seconds = 0.05;  // the last band waits about two bands' time, far longer than this
    for (bool through_host : {false, true}) {
      band_layout layout;
      layout.devices = {swat::test::test_device().id()};
      layout.through_host = through_host;
      layout.concurrent = true;
      const fill_result got = fill_bands(q, t, s, o, 3, layout);
      EXPECT_EQ(got.best, want) << (v == fill_variant::score16 ? "score16" : "score32")
                                << (through_host ? ", through host memory" : "");
      layout.concurrent = false;  // for the record: at once against one after the other
      o.watchdog_seconds = 20;
      const fill_result in_order = fill_bands(q, t, s, o, 3, layout);
      o.watchdog_seconds = 0.05;
      EXPECT_EQ(in_order.best, want);
      std::printf("[ bands    ] %s%s: 3 bands at once %.3f s, one after the other %.3f s\n",
                  v == fill_variant::score16 ? "score16" : "score32", through_host ? " through host" : "",
                  got.kernel_seconds, in_order.kernel_seconds);
    }
  }
}

TEST(FastBands, BandsOfOneRoundCycleOverTheDevices) {
  SWAT_REQUIRE_DEVICE();
  // bands = 0: bands of at most one round of co-resident warps (2 blocks × 4 warps here), as many
  // on every device; the same device named twice stands for two GPUs (band g on devices[g % 2]).
  const scoring_scheme s = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  std::mt19937 rng(31);
  const auto q = test::random_residues(rng, 20000, s);
  const auto t = test::related_or_random(rng, q, 3000, s);
  const best_cell want = cell_of(reference::align(q, t, s));
  const int dev = swat::test::test_device().id();
  for (const fill_variant v : {fill_variant::score32, fill_variant::score16}) {
    band_layout layout;
    layout.devices = {dev, dev};
    const fill_options o = variant_options(v);  // max_blocks 2: rounds of 8 strips
    const fill_result got = fill_bands(q, t, s, o, 0, layout);
    EXPECT_EQ(got.best, want) << (v == fill_variant::score16 ? "score16" : "score32");
    const std::int64_t rounds = (std::int64_t(got.strips) + 7) / 8, bands = (rounds + 1) / 2 * 2;  // as many on each
    EXPECT_EQ(got.handover_bytes, (bands - 1) * std::int64_t(t.size()) * (got.ran == fill_variant::score16 ? 4 : 8));
    layout.devices = {dev};  // fewer strips than one round: one band per device
    fill_options wide = o;
    wide.max_blocks = 0;
    const residue_span short_q = residue_span(q).first(3000);
    EXPECT_EQ(fill_bands(short_q, t, s, wide, 0, layout).handover_bytes, 0);
  }
}

//! Special rows (fill_options::special) written by bands into the first device's memory after a
//! 16-bit overflow in one band: every band reruns at 32 bits and writes the rows again, which
//! then equal, byte for byte, those of the whole fill (also rerun), maxima included.
TEST(FastBands, SpecialRowsOfBandsSurviveTheOverflowRerun) {
  SWAT_REQUIRE_DEVICE();
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  std::mt19937 rng(1128);
  const int dev = swat::test::test_device().id();
  fill_context whole(swat::test::test_device());
  int checked = 0;
  for (int k = 0; k < 6 && checked < 3; ++k) {
    const auto q = test::random_residues(rng, 6000, s);
    const auto t = test::related_or_random(rng, q, 1500, s);
    const best_cell want = cell_of(reference::align(q, t, s));
    if (want.score < 2) continue;
    ++checked;
    const std::int64_t every = 1024, rows = (std::int64_t(q.size()) - 1) / every, n = std::int64_t(t.size());
    const std::size_t row_bytes = std::size_t(rows * n) * sizeof(special_cell);
    std::vector<std::vector<std::uint8_t>> got;
    for (int run = 0; run < 2; ++run) {  // the whole fill, then 3 bands over "two GPUs"
      swat::cuda::device_buffer memory;
      memory.reserve(row_bytes + 256 + std::size_t(rows) * 4);
      fill_options o = variant_options(fill_variant::score16, want.score - 1);  // the 16-bit fill overflows
      o.special.rows = memory.as<special_cell>(0);
      o.special.row_max = memory.as<std::int32_t>(row_bytes + 256);
      o.special.every_rows = every;
      band_layout layout;
      layout.devices = {dev, dev};
      const fill_result r = run == 0 ? whole.fill(q, t, s, o) : fill_bands(q, t, s, o, 3, layout);
      EXPECT_TRUE(r.overflowed) << k;
      EXPECT_EQ(r.best, want) << k;
      std::vector<std::uint8_t> bytes(row_bytes + std::size_t(rows) * 4);
      ASSERT_EQ(cudaMemcpy(bytes.data(), memory.as<void>(), row_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(bytes.data() + row_bytes, memory.as<void>(row_bytes + 256), std::size_t(rows) * 4,
                           cudaMemcpyDeviceToHost),
                cudaSuccess);
      got.push_back(std::move(bytes));
    }
    EXPECT_TRUE(got[0] == got[1]) << "pair " << k << ": the bands' special rows differ from the whole fill's";
  }
  EXPECT_EQ(checked, 3);
}

TEST(FastBands, RealPairEqualsTheWholeFill) {
  SWAT_REQUIRE_DEVICE();
  const std::filesystem::path dir = std::filesystem::path(SWAT_SHARED_DATA) / "dna";
  const auto qf = dir / "sarscov2_MN908947.3.fa", tf = dir / "ratg13_MN996532.2.fa";
  if (!std::filesystem::exists(qf) || !std::filesystem::exists(tf)) GTEST_SKIP() << "no " << dir;
  const auto q = io::read_fasta(qf.string(), io::alphabet_request::dna, {});
  const auto t = io::read_fasta(tf.string(), io::alphabet_request::dna, {});
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  fill_context whole(swat::test::test_device());
  fill_options o;
  o.variant = fill_variant::score16;
  const best_cell want = whole.fill(q.records[0].residues, t.records[0].residues, s, o).best;
  for (int bands : {2, 3, 8}) {
    for (bool through_host : {false, true}) {
      band_layout layout;
      layout.devices = {swat::test::test_device().id()};
      layout.through_host = through_host;
      const fill_result got = fill_bands(q.records[0].residues, t.records[0].residues, s, o, bands, layout);
      EXPECT_EQ(got.best, want) << bands << " bands" << (through_host ? ", through host memory" : "");
    }
  }
  EXPECT_THROW(fill_bands(q.records[0].residues, t.records[0].residues, s, o, -1), std::invalid_argument);
}

}  // namespace
}  // namespace swat::fast

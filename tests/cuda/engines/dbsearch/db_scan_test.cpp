// The database scan on the GPU against the CPU engine (whose score pass equals the reference):
// every (query, target) best cell — score, query end, target end under the tie rule — on seeded
// random databases (target lengths 0 … 70,000 with the strip and group borders ±1, one-residue
// and empty targets, related and unrelated targets), every protein matrix and DNA schemes, the
// three group widths, task queue and static partition, resident and streamed query profiles,
// chunked databases, 16-bit saturation and too-long targets handed back; and every pair of
// db_queries.fa × swissprot_subset_mmseqs2.fa from ../shared/data.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>

#include "cuda/engines/dbsearch/db_align.hpp"
#include "cuda/engines/dbsearch/db_launch.cuh"
#include "cuda/engines/dbsearch/db_policy.cuh"
#include "cuda/engines/dbsearch/db_problem.hpp"
#include "cuda/engines/dbsearch/db_scan.hpp"
#include "cuda/engines/dbsearch/db_upload.cuh"
#include "cuda/common/device_buffer.hpp"
#include "cuda/engines/dbsearch/db_pack.hpp"
#include "engine/cpu_engine.hpp"
#include "io/fasta.hpp"
#include "scoring/scoring.hpp"
#include "support/gpu_test.hpp"
#include "engines/dbsearch/db_test_util.hpp"
#include "engines/fast/fast_test_util.hpp"

namespace swat::dbsearch {
namespace {

using seqs_t = std::vector<std::vector<std::uint8_t>>;

std::vector<residue_span> spans_of(const seqs_t& seqs) { return {seqs.begin(), seqs.end()}; }

using test_support::cpu_cells;

//! Runs the scan and checks it against the CPU: every cell not handed back is exact; a pair is
//! handed back only when its target is longer than max_target_length or its score exceeds the
//! 16-bit limit (no false overflow, no missed one). Returns the number of pairs handed back.
std::size_t check_scan(const std::vector<residue_span>& queries, const std::vector<residue_span>& targets,
                       const scoring_scheme& scheme, const scan_options& options, const std::string& label,
                       const std::vector<best_cell>* expected = nullptr, std::size_t* chunks = nullptr,
                       scan_timing* timing = nullptr) {
  const std::vector<best_cell> want = expected ? *expected : cpu_cells(queries, targets, scheme);
  scan_options o = options;
  // Sanitizers (short runs) slow a pipelined strip's waits 100-fold and run three tools on the
  // GPU at once: the watchdog gets 600 s there.
  if (test::short_run()) o.watchdog_seconds = 600;
  db_scanner scanner(targets, scheme, o);
  std::vector<best_cell> got(queries.size() * targets.size());
  std::vector<pair_index> rescan;
  std::atomic<std::uint64_t> progress_cells{0};
  scanner.search(queries, got, rescan, [&](std::uint64_t c) { progress_cells += c; });
  if (chunks) *chunks = scanner.timing().chunks;
  if (timing) *timing = scanner.timing();
  const std::int32_t limit = options.score_limit > 0 ? options.score_limit : 32767 - scheme.max_score();
  std::set<pair_index> handed(rescan.begin(), rescan.end());
  EXPECT_EQ(handed.size(), rescan.size()) << label << ": a pair handed back twice";
  std::uint64_t cells = 0;
  int wrong = 0;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    for (std::size_t t = 0; t < targets.size(); ++t) {
      const std::size_t k = q * targets.size() + t;
      const bool too_long = targets[t].size() > std::size_t(options.max_target_length);
      const bool saturates = want[k].score > limit;
      const bool back = handed.count({q, t}) > 0;
      if (!too_long) cells += std::uint64_t(queries[q].size()) * targets[t].size();
      if (back != ((too_long || saturates) && !queries[q].empty())) {
        if (++wrong <= 10)
          ADD_FAILURE() << label << ": query " << q << " (" << queries[q].size() << ") target " << t << " ("
                        << targets[t].size() << ") handed back " << back << " but score " << want[k].score
                        << " limit " << limit;
        continue;
      }
      if (back) continue;
      if (got[k] != want[k] && ++wrong <= 10)
        ADD_FAILURE() << label << ": query " << q << " (" << queries[q].size() << ") target " << t << " ("
                      << targets[t].size() << ") got " << got[k].score << " @" << got[k].query_end << ","
                      << got[k].target_end << " want " << want[k].score << " @" << want[k].query_end << ","
                      << want[k].target_end;
    }
  }
  EXPECT_EQ(wrong, 0) << label;
  EXPECT_EQ(progress_cells.load(), cells) << label << ": progress must add up to the scanned cells";
  return rescan.size();
}

//! Lengths at the borders of strips (128, 256, 512 rows), group widths and chunks of columns.
std::vector<std::int64_t> border_lengths() {
  std::vector<std::int64_t> out = {0, 1, 2};
  for (std::int64_t b : {8, 16, 32, 64, 128, 256, 512, 1024, 2048})
    for (std::int64_t d : {-1, 0, 1}) out.push_back(b + d);
  return out;
}

//! Queries of the given lengths and targets: every border length plus random ones, half of
//! them related to a query.
void random_db(std::mt19937& rng, const scoring_scheme& s, const std::vector<std::int64_t>& query_lengths,
               int random_targets, std::int64_t max_random, seqs_t& queries, seqs_t& targets) {
  for (std::int64_t m : query_lengths) queries.push_back(test::random_residues(rng, m, s));
  std::vector<std::int64_t> lengths = border_lengths();
  for (int k = 0; k < random_targets; ++k)
    lengths.push_back(std::uniform_int_distribution<std::int64_t>(1, max_random)(rng));
  std::shuffle(lengths.begin(), lengths.end(), rng);
  for (std::int64_t n : lengths) {
    const auto& q = queries[std::uniform_int_distribution<std::size_t>(0, queries.size() - 1)(rng)];
    targets.push_back(fast::test::related_or_random(rng, q, n, s));
  }
}

std::vector<scoring_scheme> every_scheme() {
  std::vector<scoring_scheme> out = {scoring::make_dna_scheme(2, -3, 5, 2), scoring::make_dna_scheme(1, -1, 0, 1),
                                     scoring::make_dna_scheme(5, -4, 10, 1)};
  for (const std::string& name : scoring::builtin_matrix_names()) out.push_back(scoring::make_protein_scheme(name, 11, 1));
  out.push_back(scoring::make_protein_scheme("BLOSUM45", 10, 2));
  out.push_back(scoring::make_protein_scheme("PAM30", 9, 1));
  return out;
}

// The warps per block of db_policy.cuh assume each kernel's registers: 12 warps of the 16- and
// 32-lane, 32-row kernels fit the register file only at ≤ 168 registers (3 warps per scheduler
// of 16,384 registers). Past that ptxas would spill quietly to keep __launch_bounds__; this
// catches it.
TEST(DbScan, KernelsFitTheirWarpsWithoutSpilling) {
  SWAT_REQUIRE_DEVICE();
  const cuda::device_context& dev = test::test_device();
  std::vector<shape_info> kernels;
  for (int g : {8, 16, 32})
    for (int r : {16, 32}) kernels.push_back(with_shape(g, r, [&]<int G, int R>() { return shape_on<G, R>(dev, 0); }));
  kernels.push_back(shape_on<32, 32, false, wide_block_warps>(dev, 0));
  for (const shape_info& s : kernels) {
    const int warps = s.warps_per_block;
    std::printf("  scan kernel %2d lanes x %2d rows: %2d warps, %3d registers, %3d bytes spilled, %d blocks\n",
                s.group_lanes, s.rows_per_lane, warps, s.registers, s.spill_bytes, s.blocks);
    EXPECT_EQ(s.groups_per_block, warps * s.groups_per_warp);
    EXPECT_GE(s.blocks, s.sms) << s.group_lanes << " x " << s.rows_per_lane << ": one block per SM at least";
    // (__launch_bounds__ caps the registers; only a spill shows that the cap was reached.)
    if (warps == 12) {
      EXPECT_EQ(s.spill_bytes, 0) << s.group_lanes << " x 32: a 12-warp kernel must not spill";
    }
  }
  const shape_info reach = shape_on<32, 16, true>(dev, 0);
  EXPECT_GE(reach.blocks, reach.sms);
}

TEST(DbScan, RandomDatabasesEverySchemeAndGroupWidth) {
  SWAT_REQUIRE_DEVICE();
  std::mt19937 rng(20261124);
  const std::vector<std::int64_t> qlens = {1, 17, 127, 128, 129, 255, 256, 257, 511, 512, 513, 700};
  const auto schemes = every_scheme();
  for (std::size_t k = 0; k < schemes.size(); ++k) {
    const scoring_scheme& s = schemes[k];
    seqs_t queries, targets;
    random_db(rng, s, qlens, test::short_run() ? 20 : 120, 1500, queries, targets);
    const auto qs = spans_of(queries), ts = spans_of(targets);
    const std::vector<best_cell> want = cpu_cells(qs, ts, s);
    for (int g : {0, 8, 16, 32}) {
      for (int rows : {0, 16, 32}) {
        for (bool queue : {true, false}) {
          if ((g == 0) != (rows == 0)) continue;  // 0, 0: the shape chosen per query
          if (!queue && (g != 16 || rows != 16)) continue;
          // 32 x 32 runs 8 warps per block or 12 (the planner's choice, then each forced); the
          // planner's shapes run in the planner's order, then query-major and pair-major forced.
          for (int warps : {0, 8, 12}) {
            if (warps != 0 && (g != 32 || rows != 32 || !queue)) continue;
            for (int order : {0, 1, 2}) {
              if (order != 0 && (g != 0 || !queue)) continue;
              scan_options o;
              o.group_lanes = g;
              o.rows_per_lane = rows;
              o.warps_per_block = warps;
              o.task_queue = queue;
              o.order = order;
              scan_timing timing;
              check_scan(qs, ts, s, o,
                         s.matrix_name + " g" + std::to_string(g) + " r" + std::to_string(rows) + " w" +
                             std::to_string(warps) + (queue ? " queue" : " static") + " order " + std::to_string(order),
                         &want, nullptr, &timing);
              // The orders differ only in launches of several queries: there are some.
              if (order != 0) {
                EXPECT_GT(timing.shared_batches, 0u) << s.matrix_name;
              }
            }
          }
        }
      }
    }
  }
}

TEST(DbScan, LongTargetsStreamedProfilesAndTooLongTargets) {
  SWAT_REQUIRE_DEVICE();
  std::mt19937 rng(4242);
  for (const scoring_scheme& s : {scoring::make_protein_scheme("BLOSUM62", 11, 1), scoring::make_dna_scheme(2, -3, 5, 2)}) {
    // Protein profiles beyond ~7,300 rows and DNA beyond ~34,000 do not stay resident.
    const bool dna = s.alphabet == alphabet_kind::dna;
    const std::vector<std::int64_t> qlens = dna ? std::vector<std::int64_t>{300, 36000} : std::vector<std::int64_t>{300, 9000};
    seqs_t queries, targets;
    random_db(rng, s, qlens, 10, 3000, queries, targets);
    for (std::int64_t n : {65535, 65536, 65537, 69999, 70000})
      targets.push_back(fast::test::related_or_random(rng, queries[1], n, s));
    const auto qs = spans_of(queries), ts = spans_of(targets);
    // max_target_length 65,536: the last three go back to the caller (check_scan checks that
    // exactly those and the DNA pairs that saturate 16 bits are handed back).
    // Each in the plan's order, then query-major and pair-major forced (streamed profiles).
    const std::vector<best_cell> want = cpu_cells(qs, ts, s);
    for (int order : {0, 1, 2}) {
      scan_options o;
      o.order = order;
      o.max_target_length = 1 << 16;
      const std::string label = s.matrix_name + " long, order " + std::to_string(order);
      EXPECT_GE(check_scan(qs, ts, s, o, label, &want), 2u * 3u);
      o.max_target_length = 70000;
      o.group_lanes = 32;
      check_scan(qs, ts, s, o, label + " g32", &want);
    }
  }
}

TEST(DbScan, PipelinedStripsEqualTheCpu) {
  SWAT_REQUIRE_DEVICE();
  // The warps of a block share each pair (profile_mode::pipelined, forced): queries of 2 to 34
  // strips, so that the ring of border rows (16 warps at 16 rows per lane, 8 at 32) wraps,
  // against targets at the group borders, long and short, related and random; task queue and
  // static partition; a lowered score limit hands back exactly the pairs above it.
  std::mt19937 rng(20261125);
  for (const scoring_scheme& s : {scoring::make_protein_scheme("BLOSUM62", 11, 1), scoring::make_dna_scheme(2, -3, 5, 2)}) {
    seqs_t queries, targets;
    // Short (sanitizers): 9,000 rows are still 18 strips of 512, more than the 16 ring rows.
    const std::vector<std::int64_t> lengths =
        test::short_run() ? std::vector<std::int64_t>{1025, 9000} : std::vector<std::int64_t>{513, 1025, 3000, 9000, 17500};
    random_db(rng, s, lengths, test::short_run() ? 2 : 12, 3000, queries, targets);
    const auto qs = spans_of(queries), ts = spans_of(targets);
    const std::vector<best_cell> want = cpu_cells(qs, ts, s);
    for (int rows : test::short_run() ? std::vector<int>{16} : std::vector<int>{16, 32}) {
      for (bool queue : {true, false}) {
        for (bool shared : {true, false}) {  // each warp's strip of profile in shared memory, or read through L1
          // With the queue, each order of the tasks (query-major, pair-major) besides the plan's.
          for (int order : {0, 1, 2}) {
            if (order != 0 && (!queue || !shared)) continue;
            scan_options o;
            o.group_lanes = 32;
            o.rows_per_lane = rows;
            o.pipeline = 1;
            o.task_queue = queue;
            o.pipe_shared_slices = shared;
            o.order = order;
            scan_timing timing;
            check_scan(qs, ts, s, o,
                       s.matrix_name + " pipelined r" + std::to_string(rows) + (queue ? " queue" : " static") +
                           (shared ? " shared" : " L1") + " order " + std::to_string(order),
                       &want, nullptr, &timing);
            // Every batch pipelined; DNA's strips of profile fit in shared memory, protein's
            // (28 ranks × 16 warps × 512 rows) do not (the path is chosen per launch, in a fresh
            // process as after earlier launches).
            EXPECT_GT(timing.pipelined_batches, 0u) << s.matrix_name;
            const bool fits = s.alphabet == alphabet_kind::dna;
            EXPECT_EQ(timing.shared_slice_batches, shared && fits ? timing.pipelined_batches : 0u)
                << s.matrix_name << " r" << rows;
          }
        }
      }
    }
    scan_options low;
    low.group_lanes = 32;
    low.pipeline = 1;
    std::vector<std::int32_t> scores;
    for (const best_cell& c : want) scores.push_back(c.score);
    std::sort(scores.begin(), scores.end());
    low.score_limit = std::max(1, scores[scores.size() / 2]);
    EXPECT_GE(check_scan(qs, ts, s, low, s.matrix_name + " pipelined, lowered limit", &want), scores.size() / 4);
  }
}

//! Residues repeating `period` random ones (many cells of equal score: ties).
std::vector<std::uint8_t> periodic(std::mt19937& rng, std::size_t n, std::size_t period, const scoring_scheme& s) {
  const std::vector<std::uint8_t> unit = test::random_residues(rng, period, s);
  std::vector<std::uint8_t> out(n);
  for (std::size_t k = 0; k < n; ++k) out[k] = unit[k % period];
  return out;
}

TEST(DbScan, RowsFirstTiesScanTheOtherWayRound) {
  SWAT_REQUIRE_DEVICE();
  // Many short queries against a few long targets scanned the other way round (the queries as
  // the database, db_engine's transposed search): with rows_first the best cells of every pair,
  // swapped back, equal the CPU's under its own tie rule (smallest target position, then query
  // position). Periodic sequences and a ties-heavy scheme make many equal-score cells, so the
  // columns-first rule would pick other cells (counted: the test would notice a lost flag).
  std::mt19937 rng(20261126);
  for (const scoring_scheme& s : {scoring::make_dna_scheme(1, -1, 0, 1), scoring::make_dna_scheme(2, -3, 5, 2),
                                  scoring::make_protein_scheme("BLOSUM62", 11, 1)}) {
    seqs_t queries, targets;
    const std::vector<std::int64_t> lengths = {1, 2, 31, 32, 33, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 3000};
    for (std::size_t k = 0; k < (test::short_run() ? 12u : 60u); ++k) {
      const std::int64_t m = k < lengths.size() ? lengths[k] : std::uniform_int_distribution<std::int64_t>(1, 2000)(rng);
      queries.push_back(k % 2 ? periodic(rng, std::size_t(m), 2 + k % 5, s) : test::random_residues(rng, m, s));
    }
    targets.push_back(periodic(rng, 4000, 3, s));
    targets.push_back(fast::test::related_or_random(rng, queries[std::min<std::size_t>(14, queries.size() - 1)], 6000, s));
    targets.push_back(test::random_residues(rng, 9000, s));
    targets.push_back(periodic(rng, 700, 6, s));
    const auto qs = spans_of(queries), ts = spans_of(targets);
    const std::vector<best_cell> want = cpu_cells(qs, ts, s);  // q · nt + t
    std::size_t differ = 0;
    // One warp per pair at every group width (short queries as targets pick 8 or 16 lanes), and
    // the warps of a block sharing a pair (width 32).
    for (const auto& [pipeline, lanes] : std::vector<std::pair<int, int>>{{-1, 0}, {-1, 8}, {-1, 16}, {-1, 32}, {1, 32}}) {
      for (bool rows_first : {true, false}) {
        scan_options o;
        o.pipeline = pipeline;
        o.rows_first = rows_first;
        o.group_lanes = lanes;
        db_scanner scanner(qs, s, o);  // the queries as the database
        std::vector<best_cell> got(ts.size() * qs.size());
        std::vector<pair_index> rescan;
        scanner.search(ts, got, rescan, {});
        ASSERT_TRUE(rescan.empty()) << s.matrix_name;
        int wrong = 0;
        for (std::size_t q = 0; q < qs.size(); ++q)
          for (std::size_t t = 0; t < ts.size(); ++t) {
            const best_cell& g = got[t * qs.size() + q];
            const best_cell swapped{g.score, g.target_end, g.query_end};
            const best_cell& w = want[q * ts.size() + t];
            if (!rows_first) {
              differ += swapped != w;
              continue;
            }
            if (swapped != w && ++wrong <= 10)
              ADD_FAILURE() << s.matrix_name << " pipeline " << pipeline << " lanes " << lanes << ": query " << q << " (" << qs[q].size()
                            << ") target " << t << " got " << g.score << " @" << g.target_end << "," << g.query_end
                            << " want " << w.score << " @" << w.query_end << "," << w.target_end;
          }
        EXPECT_EQ(wrong, 0) << s.matrix_name << " pipeline " << pipeline << " lanes " << lanes;
      }
    }
    std::printf("  %s: %zu of %zu pairs have another best cell under the columns-first rule\n", s.matrix_name.c_str(),
                differ, 5 * want.size());
    if (s.alphabet == alphabet_kind::dna) {
      EXPECT_GT(differ, 10u) << s.matrix_name << ": the test needs ties";
    }
  }
}

TEST(DbScan, SaturatedPairsAreHandedBackExactly) {
  SWAT_REQUIRE_DEVICE();
  std::mt19937 rng(99);
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  seqs_t queries, targets;
  random_db(rng, s, {200, 600}, 40, 800, queries, targets);
  // Real 16-bit saturation on a query without N (N never matches): a copy of 16,383 residues
  // scores 32,766 > 32767 − 2 and is handed back; one of 16,382 scores 32,764 and stays exact.
  std::vector<std::uint8_t> acgt(20000);
  for (auto& r : acgt) r = std::uint8_t(std::uniform_int_distribution<int>(0, 3)(rng));
  queries.push_back(acgt);
  targets.push_back(std::vector<std::uint8_t>(acgt.begin(), acgt.begin() + 16383));
  targets.push_back(std::vector<std::uint8_t>(acgt.begin() + 100, acgt.begin() + 100 + 16382));
  const auto qs = spans_of(queries), ts = spans_of(targets);
  const std::vector<best_cell> want = cpu_cells(qs, ts, s);
  scan_options o;
  EXPECT_GE(check_scan(qs, ts, s, o, "saturation", &want), 1u);
  // A lowered limit hands back exactly the pairs above it (the limit is the 16-bit one's role).
  std::vector<std::int32_t> scores;
  for (const best_cell& c : want) scores.push_back(c.score);
  std::sort(scores.begin(), scores.end());
  o.score_limit = std::max(1, scores[scores.size() / 2]);
  EXPECT_GE(check_scan(qs, ts, s, o, "lowered limit", &want), scores.size() / 4);
}

TEST(DbScan, ChunkedDatabaseGivesTheSameCells) {
  SWAT_REQUIRE_DEVICE();
  std::mt19937 rng(5);
  const scoring_scheme s = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  seqs_t queries, targets;
  random_db(rng, s, {90, 400}, test::short_run() ? 2000 : 20000, 1000, queries, targets);
  const auto qs = spans_of(queries), ts = spans_of(targets);
  const std::vector<best_cell> want = cpu_cells(qs, ts, s);
  // Budgets from 1 GiB down in 8 MiB steps until the scan refuses (the border rows of every
  // group are the fixed part): every budget that cuts the database into 3+ chunks is checked.
  std::size_t tested = 0;
  for (std::int64_t mib = 1024; mib > 0 && tested < 3; mib -= 8) {
    scan_options o;
    o.max_gpu_bytes = mib << 20;
    std::size_t chunks = 0;
    try {
      db_scanner probe(ts, s, o);
      chunks = probe.timing().chunks;
    } catch (const runtime_failure&) {
      break;  // below the fixed part: the scan says so
    }
    if (chunks < 3) continue;
    check_scan(qs, ts, s, o, "budget " + std::to_string(mib) + " MiB", &want);
    ++tested;
  }
  EXPECT_GE(tested, 1u) << "no budget gave three or more chunks";
}

TEST(DbScan, DatabasePackedIntoTheGpuInSlicesGivesTheSameCells) {
  SWAT_REQUIRE_DEVICE();
  // A database of one chunk packed straight into the GPU in slices by several host threads
  // (db_upload.cuh), as a large one is: the same cells as the CPU, in two searches of the
  // same scanner (the chunk stays on the GPU); and pack_and_upload on 2 threads (fewer than its
  // slices) writes in device memory what pack_columns writes on the host.
  std::mt19937 rng(17);
  const scoring_scheme s = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  seqs_t queries, targets;
  random_db(rng, s, {90, 400}, test::short_run() ? 5000 : 12000, 1000, queries, targets);
  const auto qs = spans_of(queries), ts = spans_of(targets);
  const std::vector<best_cell> want = cpu_cells(qs, ts, s);
  scan_options o;
  o.streamed_upload_min_columns = 1;
  scan_timing t;
  check_scan(qs, ts, s, o, "packed into the GPU", &want, nullptr, &t);
  EXPECT_EQ(t.chunks, 1u);
  EXPECT_GT(t.upload_slices, 1u) << "the database was not packed in slices";
  db_scanner scanner(ts, s, o);
  for (int round = 0; round < 2; ++round) {
    std::vector<best_cell> got(qs.size() * ts.size());
    std::vector<pair_index> rescan;
    scanner.search(qs, got, rescan, nullptr);
    EXPECT_TRUE(rescan.empty());
    EXPECT_EQ(got, want) << "search " << round << " of one scanner";
  }
  // Slices on fewer threads than slices, straight into a device buffer.
  const db_layout l = plan_database(ts, 1 << 17, std::size_t(1) << 30);
  ASSERT_EQ(l.chunks.size(), 1u);
  std::vector<std::uint16_t> host(l.total_columns);
  pack_columns(l, ts, 7, host.data());
  const cuda::device_context dev(0);
  cuda::device_buffer memory;
  memory.reserve(l.total_columns * sizeof(std::uint16_t));
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  upload_report report;
  pack_and_upload(l, ts, 7, 0, memory.as<std::uint16_t>(), dev, stream, 2, &report);
  std::vector<std::uint16_t> back(l.total_columns);
  ASSERT_EQ(cudaMemcpy(back.data(), memory.as<void>(), back.size() * sizeof(std::uint16_t), cudaMemcpyDeviceToHost),
            cudaSuccess);
  cudaStreamDestroy(stream);
  EXPECT_GE(report.slices, 2u);
  EXPECT_EQ(report.threads, 2u);
  EXPECT_TRUE(back == host) << "the columns packed into the GPU differ from pack_columns'";
  // A chunk past the first (its pairs' offsets count from the chunk's first column): what
  // pack_columns writes from that column.
  db_layout chunked;  // three chunks or more: the bytes of a chunk halved until there are
  for (std::size_t bytes = std::size_t(3) << 20; bytes >= 4096 && chunked.chunks.size() < 3; bytes /= 2)
    chunked = plan_database(ts, 1 << 17, bytes);
  ASSERT_GE(chunked.chunks.size(), 3u);
  std::vector<std::uint16_t> all(chunked.total_columns);
  pack_columns(chunked, ts, 7, all.data());
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  for (const std::size_t c : {std::size_t(1), chunked.chunks.size() - 1}) {
    const db_chunk& chunk = chunked.chunks[c];
    pack_and_upload(chunked, ts, 7, c, memory.as<std::uint16_t>(), dev, stream, 3, &report);
    std::vector<std::uint16_t> got(chunk.columns);
    ASSERT_EQ(cudaMemcpy(got.data(), memory.as<void>(), got.size() * sizeof(std::uint16_t), cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_TRUE(std::equal(got.begin(), got.end(), all.begin() + std::ptrdiff_t(chunk.first_column)))
        << "chunk " << c << " of " << chunked.chunks.size();
  }
  cudaStreamDestroy(stream);
}

TEST(DbScan, ManyQueriesAgainstFewLongTargets) {
  SWAT_REQUIRE_DEVICE();
  // Fragments against a handful of genomes: one batch of every query, profiles read through
  // L1 (few pairs per query); and many short protein queries sharing shared memory.
  std::mt19937 rng(31);
  const scoring_scheme dna = scoring::make_dna_scheme(2, -3, 5, 2);
  seqs_t genomes, fragments;
  for (std::int64_t n : {20000, 19999, 12000, 3})
    genomes.push_back(test::random_residues(rng, n, dna));
  for (int k = 0; k < (test::short_run() ? 20 : 120); ++k) {
    const auto& g = genomes[std::size_t(k) % 3];
    const std::size_t len = std::uniform_int_distribution<std::size_t>(1, 3000)(rng);
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, g.size() - len)(rng);
    fragments.push_back(fast::test::related_or_random(rng, std::vector<std::uint8_t>(g.begin() + std::ptrdiff_t(at), g.begin() + std::ptrdiff_t(at + len)), std::int64_t(len), dna));
  }
  const auto fs = spans_of(fragments), gs = spans_of(genomes);
  check_scan(fs, gs, dna, scan_options{}, "fragments x genomes");
  scan_options fixed;
  fixed.group_lanes = 32;
  fixed.rows_per_lane = 32;
  fixed.task_queue = false;
  check_scan(fs, gs, dna, fixed, "fragments x genomes g32 r32 static");

  const scoring_scheme protein = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  seqs_t queries, targets;
  std::vector<std::int64_t> qlens;
  for (int k = 0; k < 300; ++k) qlens.push_back(std::uniform_int_distribution<std::int64_t>(1, 120)(rng));
  random_db(rng, protein, qlens, 200, 600, queries, targets);
  check_scan(spans_of(queries), spans_of(targets), protein, scan_options{}, "300 short queries");
}

//! The box the reverse pass must find (db_align.hpp), by plain Gotoh on the CPU: the largest
//! row and the largest column of the reversed prefixes where the local H equals score.
box_extent expected_box(residue_span q, residue_span t, std::int32_t score, const scoring_scheme& s) {
  const std::size_t m = q.size(), n = t.size();
  constexpr std::int32_t minus_inf = INT32_MIN / 4;
  std::vector<std::int32_t> h(n + 1, 0), f(n + 1, minus_inf);  // row i − 1, then row i
  box_extent box;
  for (std::size_t i = 1; i <= m; ++i) {
    std::int32_t diag = 0, e = minus_inf;
    h[0] = 0;
    for (std::size_t j = 1; j <= n; ++j) {
      e = std::max(e - s.gap_extend, h[j - 1] - s.gap_open - s.gap_extend);
      f[j] = std::max(f[j] - s.gap_extend, h[j] - s.gap_open - s.gap_extend);
      const std::int32_t up = h[j];
      h[j] = std::max({0, diag + s.score(q[m - i], t[n - j]), e, f[j]});
      diag = up;
      if (h[j] == score) box = {std::max(box.rows, std::int64_t(i)), std::max(box.columns, std::int64_t(j))};
    }
  }
  return box;
}

TEST(DbAlign, BoxesFromTheReversePassGiveTheReferenceAlignment) {
  SWAT_REQUIRE_DEVICE();
  // Every hit of random databases (every scheme, related and unrelated targets, lengths at the
  // strip borders): the box of its best cell aligned alone equals the CPU engine's alignment
  // of the whole pair (score, both ends, every CIGAR op).
  std::mt19937 rng(777);
  cpu_engine cpu(0);
  int checked = 0;
  for (const scoring_scheme& s : every_scheme()) {
    seqs_t queries, targets;
    random_db(rng, s, {1, 60, 511, 513, 1500}, test::short_run() ? 5 : 30, 1200, queries, targets);
    std::vector<pair_job> jobs;
    for (std::size_t q = 0; q < queries.size(); ++q)
      for (std::size_t t = 0; t < targets.size(); ++t) jobs.push_back({q, t, queries[q], targets[t]});
    std::vector<best_cell> cells(jobs.size());
    cpu.score_many(jobs, s, cells, {});
    std::vector<residue_span> qs, ts;
    std::vector<std::int32_t> scores;
    std::vector<std::size_t> which;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      if (cells[k].score <= 0) continue;
      qs.push_back(jobs[k].query.first(std::size_t(cells[k].query_end)));
      ts.push_back(jobs[k].target.first(std::size_t(cells[k].target_end)));
      scores.push_back(cells[k].score);
      which.push_back(k);
    }
    const std::vector<box_extent> boxes = reverse_reach(qs, ts, scores, s, swat::test::test_device());
    ASSERT_EQ(boxes.size(), which.size());
    // In batches of a few hits each (bounded memory for any number of hits): the same boxes.
    const std::vector<box_extent> batched = reverse_reach(qs, ts, scores, s, swat::test::test_device(), nullptr, 20'000);
    for (std::size_t b = 0; b < which.size(); ++b)
      EXPECT_TRUE(batched[b].rows == boxes[b].rows && batched[b].columns == boxes[b].columns) << s.matrix_name << " hit " << b;
    std::vector<pair_job> whole, box;
    for (std::size_t b = 0; b < which.size(); ++b) {
      ASSERT_GT(boxes[b].rows, 0) << s.matrix_name << " hit " << b;
      // Exactly the unpruned pass's box (the pruned one skips only cells that cannot reach S).
      const box_extent want_box = expected_box(qs[b], ts[b], scores[b], s);
      ASSERT_EQ(boxes[b].rows, want_box.rows) << s.matrix_name << " hit " << b << " score " << scores[b];
      ASSERT_EQ(boxes[b].columns, want_box.columns) << s.matrix_name << " hit " << b << " score " << scores[b];
      ASSERT_LE(boxes[b].rows, std::int64_t(qs[b].size()));
      ASSERT_LE(boxes[b].columns, std::int64_t(ts[b].size()));
      whole.push_back(jobs[which[b]]);
      box.push_back({0, 0, qs[b].subspan(qs[b].size() - std::size_t(boxes[b].rows)),
                     ts[b].subspan(ts[b].size() - std::size_t(boxes[b].columns))});
    }
    std::vector<alignment> want(whole.size()), got(box.size());
    cpu.align_many(whole, s, want, {});
    cpu.align_many(box, s, got, {});
    int wrong = 0;
    for (std::size_t b = 0; b < box.size(); ++b) {
      alignment a = got[b];
      const std::int64_t qb = std::int64_t(qs[b].size()) - boxes[b].rows, tb = std::int64_t(ts[b].size()) - boxes[b].columns;
      a.query_begin += qb;
      a.query_end += qb;
      a.target_begin += tb;
      a.target_end += tb;
      if (a != want[b] && ++wrong <= 5)
        ADD_FAILURE() << s.matrix_name << " hit " << b << ": box " << boxes[b].rows << "x" << boxes[b].columns
                      << " gives " << a.score << " @" << a.query_begin << "-" << a.query_end << " want " << want[b].score
                      << " @" << want[b].query_begin << "-" << want[b].query_end;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(DbAlign, LongHitsAboveTheAnchoredLimitAndRepeats) {
  SWAT_REQUIRE_DEVICE();
  // Hits whose reversed pass spans several strips with a narrow alive band, scores above
  // reach_anchored_max (the pass runs as plain local H there), and repeats whose many tied
  // cells keep whole regions alive: every box equals the unpruned one.
  std::mt19937 rng(4242);
  const scoring_scheme blosum = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  const scoring_scheme dna = scoring::make_dna_scheme(1, -1, 0, 1);
  cpu_engine cpu(0);
  struct hit_case {
    std::vector<std::uint8_t> q, t;
    const scoring_scheme* s;
  };
  std::vector<hit_case> cases;
  for (std::int64_t len : {700, 2100, 3600, 4200}) {  // self-hits of 3600+ residues score > 16000
    const auto a = test::random_residues(rng, len, blosum);
    std::vector<std::uint8_t> t = test::random_residues(rng, 300, blosum);
    for (std::uint8_t r : a) {  // short ones mutated: 1 in 10 substituted, 1 in 40 inserted or dropped
      const int e = len > 3000 ? 99 : std::uniform_int_distribution<int>(0, 39)(rng);
      if (e == 0) continue;
      if (e == 1) t.push_back(std::uint8_t(std::uniform_int_distribution<int>(0, 19)(rng)));
      t.push_back(e < 5 ? std::uint8_t(std::uniform_int_distribution<int>(0, 19)(rng)) : r);
    }
    cases.push_back({a, t, &blosum});
  }
  for (std::size_t period : {1, 2, 3}) {
    std::vector<std::uint8_t> q(900), t(1300);
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = std::uint8_t(i % period);
    for (std::size_t j = 0; j < t.size(); ++j) t[j] = std::uint8_t((j + 1) % period);
    cases.push_back({q, t, &dna});
  }
  bool above_limit = false;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const hit_case& c = cases[k];
    const best_cell cell = cpu.score_only(c.q, c.t, *c.s);
    ASSERT_GT(cell.score, 0);
    ASSERT_LE(cell.score, 32767 - c.s->max_score());
    above_limit = above_limit || cell.score > reach_anchored_max;
    const residue_span qp = residue_span(c.q).first(std::size_t(cell.query_end));
    const residue_span tp = residue_span(c.t).first(std::size_t(cell.target_end));
    const std::int32_t score = cell.score;
    const auto boxes = reverse_reach(std::span(&qp, 1), std::span(&tp, 1), std::span(&score, 1), *c.s,
                                     swat::test::test_device());
    const box_extent want = expected_box(qp, tp, score, *c.s);
    EXPECT_EQ(boxes[0].rows, want.rows) << "case " << k << " score " << score;
    EXPECT_EQ(boxes[0].columns, want.columns) << "case " << k << " score " << score;
  }
  EXPECT_TRUE(above_limit);
}

TEST(DbScan, SeveralDeviceWorkersShareOneQueue) {
  SWAT_REQUIRE_DEVICE();
  // Workers pull chunks of the database from one queue: two or three workers on the one GPU
  // lent to the tests (each device of a multi-GPU machine is one worker) give the same cells.
  std::mt19937 rng(8);
  const scoring_scheme s = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  seqs_t queries, targets;
  random_db(rng, s, {40, 300, 700, 3000}, test::short_run() ? 300 : 3000, 1500, queries, targets);
  const auto qs = spans_of(queries), ts = spans_of(targets);
  const std::vector<best_cell> want = cpu_cells(qs, ts, s);
  for (const std::vector<int>& devices : {std::vector<int>{0, 0}, std::vector<int>{0, 0, 0}}) {
    scan_options o;
    o.devices = devices;
    std::size_t chunks = 0;
    scan_timing timing;
    check_scan(qs, ts, s, o, std::to_string(devices.size()) + " workers", &want, &chunks, &timing);
    EXPECT_GE(chunks, 4 * devices.size());  // guided: large chunks first, small ones last
    // The first worker scans at once; the others join when made (or find every chunk taken).
    ASSERT_EQ(timing.joined.size(), devices.size());
    EXPECT_EQ(timing.joined[0], 0.0);
    for (double j : timing.joined) EXPECT_TRUE(j == -1.0 || j >= 0.0) << j;
    ASSERT_EQ(timing.worker_cells.size(), devices.size());
    std::uint64_t sum = 0;
    for (std::size_t w = 0; w < devices.size(); ++w) {
      EXPECT_EQ(timing.worker_cells[w] > 0, timing.joined[w] >= 0) << "worker " << w;
      sum += timing.worker_cells[w];
    }
    EXPECT_EQ(sum, timing.cells);
    // With the first worker held back after its first launch, every later one scans too: the
    // same cells from chunks of every worker.
    o.later_workers_join_first = true;
    check_scan(qs, ts, s, o, std::to_string(devices.size()) + " workers, all joining", &want, &chunks, &timing);
    for (std::size_t w = 0; w < devices.size(); ++w) {
      EXPECT_GE(timing.joined[w], 0.0) << "worker " << w;
      EXPECT_GT(timing.worker_cells[w], 0u) << "worker " << w;
    }
  }
  // One scanner searched twice (a server's database): the workers made by the first search
  // scan the second too, and both give every cell.
  scan_options o;
  o.devices = {0, 0};
  db_scanner scanner(ts, s, o);
  for (int round = 0; round < 2; ++round) {
    std::vector<best_cell> got(qs.size() * ts.size());
    std::vector<pair_index> rescan;
    scanner.search(qs, got, rescan, {});
    std::set<pair_index> back(rescan.begin(), rescan.end());
    int wrong = 0;
    for (std::size_t k = 0; k < got.size(); ++k)
      if (!back.count({k / ts.size(), k % ts.size()}) && got[k].score != want[k].score && ++wrong <= 5)
        ADD_FAILURE() << "round " << round << " pair " << k << ": " << got[k].score << " want " << want[k].score;
    EXPECT_EQ(wrong, 0) << "round " << round;
  }
}

TEST(DbScan, EmptyQueriesAndEmptyDatabase) {
  SWAT_REQUIRE_DEVICE();
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  const seqs_t queries = {{}, {0, 1, 2, 3}}, targets = {{}, {0, 1, 2, 3}, {3}};
  EXPECT_EQ(check_scan(spans_of(queries), spans_of(targets), s, scan_options{}, "empty"), 0u);
  const seqs_t none;
  db_scanner scanner(spans_of(none), s, scan_options{});
  std::vector<pair_index> rescan;
  std::vector<best_cell> got;
  scanner.search(spans_of(queries), got, rescan, {});
  EXPECT_TRUE(rescan.empty());
}

TEST(DbScan, SwissProtSubsetEveryPair) {
  SWAT_REQUIRE_DEVICE();
  const std::filesystem::path data = SWAT_SHARED_DATA;
  const auto qpath = data / "protein" / "db_queries.fa", dpath = data / "protein" / "swissprot_subset_mmseqs2.fa";
  if (!std::filesystem::exists(qpath) || !std::filesystem::exists(dpath)) GTEST_SKIP() << "no " << dpath;
  const sequence_set q = io::read_fasta(qpath.string(), io::alphabet_request::protein, {});
  const sequence_set d = io::read_fasta(dpath.string(), io::alphabet_request::protein, {});
  std::vector<residue_span> qs, ts;
  for (const auto& r : q.records) qs.push_back(r.residues);
  for (const auto& r : d.records) ts.push_back(r.residues);
  ASSERT_EQ(qs.size() * ts.size(), 22281u);
  const scoring_scheme s = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  const std::vector<best_cell> want = cpu_cells(qs, ts, s);
  for (int g : {8, 16, 32}) {
    for (int rows : {16, 32}) {
      scan_options o;
      o.group_lanes = g;
      o.rows_per_lane = rows;
      EXPECT_EQ(check_scan(qs, ts, s, o, "swissprot g" + std::to_string(g) + " r" + std::to_string(rows), &want), 0u);
    }
  }
}

}  // namespace
}  // namespace swat::dbsearch

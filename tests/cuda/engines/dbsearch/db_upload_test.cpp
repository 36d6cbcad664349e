// The database packed into the GPU (cuda/engines/dbsearch/db_upload.cuh): the runs of adjacent
// targets that runs_of finds (a prepared database's volumes: its records end to end), and
// upload_runs_and_pack writing in device memory what pack_columns writes on the host — one chunk,
// chunks past the first, targets in several runs with empty and one-residue targets between and
// an odd count (a pair without B) — and the scanner that takes that path giving the CPU's cells.

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>

#include "common/error.hpp"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/device_context.hpp"
#include "cuda/engines/dbsearch/db_pack.hpp"
#include "cuda/engines/dbsearch/db_scan.hpp"
#include "cuda/engines/dbsearch/db_upload.cuh"
#include "engines/dbsearch/db_test_util.hpp"
#include "scoring/scoring.hpp"
#include "support/gpu_test.hpp"

namespace swat::dbsearch {
namespace {

//! Targets of random lengths in [0, max_length] cut end to end from `buffers` buffers (the
//! buffers hold them; the spans view them).
struct targets_in_runs {
  std::vector<std::vector<std::uint8_t>> buffers;
  std::vector<residue_span> spans;
};

targets_in_runs make_runs(std::mt19937& rng, const scoring_scheme& s, std::size_t buffers, std::size_t per_buffer,
                          std::size_t max_length) {
  targets_in_runs out;
  std::uniform_int_distribution<std::size_t> length(0, max_length);
  std::vector<std::vector<std::size_t>> lengths(buffers);
  for (auto& l : lengths) {
    for (std::size_t t = 0; t < per_buffer; ++t) l.push_back(t % 17 == 3 ? t % 2 : length(rng));  // 0 and 1 among them
    std::size_t total = 0;
    for (const std::size_t n : l) total += n;
    out.buffers.push_back(test::random_residues(rng, std::int64_t(total), s));
  }
  for (std::size_t b = 0; b < buffers; ++b) {
    std::size_t at = 0;
    for (const std::size_t n : lengths[b]) {
      out.spans.push_back(residue_span(out.buffers[b].data() + at, n));
      at += n;
    }
  }
  return out;
}

//! Two protein queries against targets in two runs, with the CPU engine's cells.
struct runs_search {
  scoring_scheme s = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  targets_in_runs db;
  std::vector<std::vector<std::uint8_t>> queries;
  std::vector<residue_span> qs;
  std::vector<best_cell> want;

  runs_search(unsigned seed, std::size_t per_buffer, std::size_t max_length, std::int64_t q0, std::int64_t q1) {
    std::mt19937 rng(seed);
    db = make_runs(rng, s, 2, per_buffer, max_length);
    queries = {test::random_residues(rng, q0, s), test::random_residues(rng, q1, s)};
    qs.assign(queries.begin(), queries.end());
    want = test_support::cpu_cells(qs, db.spans, s);
  }

  //! Two searches of scanner give the CPU's cells.
  void expect_cpu_cells(db_scanner& scanner, const std::string& what) const {
    for (int round = 0; round < 2; ++round) {
      std::vector<best_cell> got(qs.size() * db.spans.size());
      std::vector<pair_index> rescan;
      scanner.search(qs, got, rescan, nullptr);
      EXPECT_TRUE(rescan.empty()) << what;
      EXPECT_EQ(got, want) << what << ", search " << round;
    }
  }
};

TEST(DbUpload, RunsOfAdjacentTargets) {
  std::vector<std::uint8_t> a(100), b(50);
  const std::vector<residue_span> ts{{a.data(), 10}, {a.data() + 10, 0},  {a.data() + 10, 30}, {b.data(), 5},
                                     {a.data() + 40, 60}, {a.data() + 40, 10}};  // the last overlaps: a run of its own
  const auto runs = runs_of(ts, 8);
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->runs.size(), 4u);
  EXPECT_EQ(runs->runs[0].data(), a.data());
  EXPECT_EQ(runs->runs[0].size(), 40u);
  EXPECT_EQ(runs->runs[1].data(), b.data());
  EXPECT_EQ(runs->runs[2].size(), 60u);
  EXPECT_EQ(runs->runs[3].size(), 10u);
  EXPECT_EQ(runs->at, (std::vector<std::uint64_t>{0, 10, 10, 40, 45, 105}));
  EXPECT_EQ(runs->bytes, 115u);
  EXPECT_FALSE(runs_of(ts, 3).has_value());
  // Targets each in memory of their own (a FASTA file's records): as many runs as targets.
  std::vector<std::vector<std::uint8_t>> own{{1, 2}, {3}, {4, 5, 6}};
  const std::vector<residue_span> separate(own.begin(), own.end());
  EXPECT_FALSE(runs_of(separate, 2).has_value());
}

TEST(DbUpload, RunsPackedOnTheGpuAreWhatTheHostPacks) {
  SWAT_REQUIRE_DEVICE();
  std::mt19937 rng(23);
  const scoring_scheme s = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  targets_in_runs db = make_runs(rng, s, 3, 1001, 3000);  // 3003 targets: a pair without B
  const auto pad = std::uint8_t(s.size());  // the scanner's pad rank: every rank is below it
  const auto runs = runs_of(db.spans, 64);
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->runs.size(), 3u);
  const cuda::device_context dev(0);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  // One chunk, and chunks past the first (offsets count from the chunk's first column).
  db_layout chunked;
  for (std::size_t bytes = std::size_t(3) << 20; bytes >= 4096 && chunked.chunks.size() < 3; bytes /= 2)
    chunked = plan_database(db.spans, 1 << 17, bytes);
  ASSERT_GE(chunked.chunks.size(), 3u);
  for (const db_layout& l : {plan_database(db.spans, 1 << 17, std::size_t(1) << 30), chunked}) {
    std::vector<std::uint16_t> all(l.total_columns);
    pack_columns(l, db.spans, pad, all.data());
    for (const std::size_t c : {std::size_t(0), std::size_t(1), l.chunks.size() - 1}) {
      if (c >= l.chunks.size()) continue;
      const db_chunk& chunk = l.chunks[c];
      cuda::device_buffer columns, tasks, scratch;
      columns.reserve(chunk.columns * sizeof(std::uint16_t));
      tasks.reserve(chunk.tasks * sizeof(pair_task));
      scratch.reserve(runs_scratch_bytes(*runs, chunk));
      ASSERT_EQ(cudaMemcpy(tasks.data(), l.tasks.data() + chunk.first_task, chunk.tasks * sizeof(pair_task),
                           cudaMemcpyHostToDevice),
                cudaSuccess);
      upload_report report;
      upload_runs_and_pack(l, *runs, pad, c, columns.as<std::uint16_t>(), tasks.as<pair_task>(), scratch.data(), dev,
                           stream, 2, &report);
      EXPECT_EQ(report.runs, 3u);
      EXPECT_GE(report.slices, 3u);
      EXPECT_EQ(report.dropped_bytes, 0u) << "heap memory is never dropped";
      std::vector<std::uint16_t> got(chunk.columns);
      ASSERT_EQ(cudaMemcpy(got.data(), columns.data(), got.size() * sizeof(std::uint16_t), cudaMemcpyDeviceToHost),
                cudaSuccess);
      EXPECT_TRUE(std::equal(got.begin(), got.end(), all.begin() + std::ptrdiff_t(chunk.first_column)))
          << "chunk " << c << " of " << l.chunks.size();
    }
  }
  // A byte that is no rank (a mapped volume rewritten in place) is an error, never an index.
  db.buffers[1][5] = 200;
  const db_layout l = plan_database(db.spans, 1 << 17, std::size_t(1) << 30);
  const db_chunk& chunk = l.chunks[0];
  cuda::device_buffer columns, tasks, scratch;
  columns.reserve(chunk.columns * sizeof(std::uint16_t));
  tasks.reserve(chunk.tasks * sizeof(pair_task));
  scratch.reserve(runs_scratch_bytes(*runs, chunk));
  ASSERT_EQ(cudaMemcpy(tasks.data(), l.tasks.data(), chunk.tasks * sizeof(pair_task), cudaMemcpyHostToDevice),
            cudaSuccess);
  EXPECT_THROW(upload_runs_and_pack(l, *runs, pad, 0, columns.as<std::uint16_t>(), tasks.as<pair_task>(), scratch.data(),
                                    dev, stream, 2),
               runtime_failure);
  cudaStreamDestroy(stream);
}

TEST(DbUpload, AScanOfTargetsInRunsGivesTheCpuCells) {
  SWAT_REQUIRE_DEVICE();
  const runs_search r(29, test::short_run() ? 1500 : 4000, 900, 120, 333);
  scan_options o;
  o.streamed_upload_min_columns = 1;  // the path of a large database
  db_scanner scanner(r.db.spans, r.s, o);
  EXPECT_EQ(scanner.timing().chunks, 1u);
  EXPECT_EQ(scanner.timing().upload_runs, 2u) << "the targets were not uploaded as runs";
  r.expect_cpu_cells(scanner, "runs packed on the GPU");
  // Without room on the GPU for the runs beside the database (--max-gpu-mem), the host packs.
  scan_options tight = o;
  tight.max_gpu_bytes = std::int64_t(200) << 20;  // the runs fit, not with upload_streamed's margin of 256 MiB
  db_scanner packed_on_host(r.db.spans, r.s, tight);
  EXPECT_EQ(packed_on_host.timing().upload_runs, 0u);
  r.expect_cpu_cells(packed_on_host, "packed on the host");
}

TEST(DbUpload, ChunksArePackedAsTheyAreUploadedAndGiveTheCpuCells) {
  SWAT_REQUIRE_DEVICE();
  // A database of several chunks (a budget under --max-gpu-mem) is never packed whole on the
  // host: each chunk is packed as it is uploaded, in every search.
  const runs_search r(31, test::short_run() ? 3000 : 10000, 1000, 90, 400);
  std::size_t tested = 0;
  for (std::int64_t mib = 1024; mib > 0 && tested < 2; mib -= 8) {
    scan_options o;
    o.max_gpu_bytes = mib << 20;
    std::optional<db_scanner> scanner;
    try {
      scanner.emplace(r.db.spans, r.s, o);
    } catch (const runtime_failure&) {
      break;  // below the fixed part
    }
    if (scanner->timing().chunks < 3) continue;
    EXPECT_TRUE(scanner->timing().packed_on_upload);
    r.expect_cpu_cells(*scanner, std::to_string(mib) + " MiB");
    ++tested;
  }
  EXPECT_GE(tested, 1u) << "no budget gave three or more chunks";
}

}  // namespace
}  // namespace swat::dbsearch

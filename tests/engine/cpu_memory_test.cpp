// CPU engine memory bounds: long queries against short targets scored in bands of rows (exactly
// the reference's alignment), the plan for a 1 Gb query within 256 MiB, pairs that cannot fit
// refused before any work, and fewer threads (with a notice) when pairs need a large share.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "engine/cpu_engine.hpp"
#include "engine/cpu_kernels.hpp"
#include "engine/cpu_traceback.hpp"
#include "engine/test_schemes.hpp"
#include "reference/reference.hpp"

namespace swat {
namespace {

using residues = std::vector<std::uint8_t>;
using test::mutate;
using test::random_residues;

//! A long query holding a mutated copy of a short target (with a long gap) in its middle.
std::pair<residues, residues> long_query_pair(std::mt19937& rng, std::size_t m, std::size_t n, int alphabet) {
  residues q = random_residues(rng, m, alphabet);
  residues t = mutate(rng, residues(q.begin() + std::ptrdiff_t(m / 2), q.begin() + std::ptrdiff_t(m / 2 + n)),
                      alphabet, 0.1);
  t.insert(t.begin() + std::ptrdiff_t(t.size() / 2), 40, std::uint8_t(1));
  return {q, t};
}

TEST(cpu_memory, long_query_in_bands_is_exactly_the_reference) {
  std::mt19937 rng(5);
  const scoring_scheme schemes[] = {test::dna_scheme(), test::protein_scheme(4, 11, 1)};
  for (int k = 0; k < 4; ++k) {
    const int alphabet = k % 2 ? protein_size : dna_size;
    const auto [q, t] = long_query_pair(rng, 20000 + std::size_t(k) * 777, 500, alphabet);
    const scoring_scheme& scheme = schemes[k % 2];
    const alignment want = reference::align(q, t, scheme);
    ASSERT_GT(want.score, 0);
    for (const std::size_t budget : {std::size_t(64) << 10, std::size_t(256) << 10, std::size_t(8) << 20}) {
      const std::int64_t band = cpu::plan_score_pass(std::int64_t(q.size()), std::int64_t(t.size()), scheme.size(),
                                                     true, budget).band_rows;
      if (budget < (std::size_t(1) << 20)) {
        EXPECT_LT(band, std::int64_t(q.size())) << "no bands at " << budget;
      }
      EXPECT_EQ(cpu_engine(1, budget).align(q, t, scheme), want) << "pair " << k << " budget " << budget;
      EXPECT_EQ(cpu_engine(1, budget).score_only(q, t, scheme), (best_cell{want.score, want.query_end, want.target_end}));
    }
  }
}

TEST(cpu_memory, gigabase_query_plan_fits_256_mib) {
  const std::size_t budget = std::size_t(256) << 20;
  const cpu::pass_plan plan = cpu::plan_score_pass(1'000'000'000, 1000, dna_size, true, budget);
  EXPECT_LE(plan.bytes, budget);
  if (cpu::striped_available()) {  // cache-sized bands: a few MiB whatever the query length
    EXPECT_EQ(plan.band_rows, cpu::cache_band_rows);
    EXPECT_LT(plan.bytes, std::size_t(4) << 20);
  }
  // The traceback of such a pair (a rectangle at most ~2 kb wide) needs well under a MiB.
  EXPECT_LT(cpu_engine::pair_min_bytes(1'000'000'000, 1000, test::dna_scheme(), cpu_engine::job_kind::align), std::size_t(1) << 20);
}

TEST(cpu_memory, pair_that_cannot_fit_is_refused_before_any_work) {
  std::mt19937 rng(9);
  const residues q = random_residues(rng, 3'000'000, dna_size), t = random_residues(rng, 3'000'000, dna_size);
  const scoring_scheme scheme = test::dna_scheme();
  const auto start = std::chrono::steady_clock::now();
  cpu_engine eng(2, std::size_t(16) << 20);
  try {
    eng.align(q, t, scheme);
    ADD_FAILURE() << "a 3 Mb × 3 Mb pair was accepted with 16 MiB";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("--cpu-mem"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("3000000"), std::string::npos) << e.what();
  }
  const pair_job jobs[] = {{0, 0, q, t}};
  best_cell cells[1];
  EXPECT_THROW(eng.score_many(jobs, scheme, cells, {}), usage_error);
  // 9e12 cells would take hours: the refusal came before the first one.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

TEST(cpu_memory, fewer_threads_when_pairs_need_a_large_share) {
  std::mt19937 rng(13);
  const scoring_scheme scheme = test::dna_scheme();
  std::vector<std::pair<residues, residues>> pairs;
  for (int k = 0; k < 4; ++k) pairs.push_back({random_residues(rng, 8000, dna_size), random_residues(rng, 8000, dna_size)});
  const std::size_t need = cpu_engine::pair_min_bytes(8000, 8000, scheme, cpu_engine::job_kind::align);
  ASSERT_GT(need, cpu_engine::min_budget_bytes);
  std::vector<pair_job> jobs;
  for (std::size_t k = 0; k < pairs.size(); ++k) jobs.push_back({k, k, pairs[k].first, pairs[k].second});
  std::vector<std::string> notices;
  cpu_engine eng(4, 2 * need + need / 2, [&](const std::string& line) {
    if (line.find("hardware threads") == std::string::npos) notices.push_back(line);
  });
  std::vector<alignment> got(jobs.size());
  eng.align_many(jobs, scheme, got, {});
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("running 2 of 4 threads"), std::string::npos) << notices[0];
  for (std::size_t k = 0; k < jobs.size(); ++k)
    EXPECT_EQ(got[k], cpu_engine(1).align(jobs[k].query, jobs[k].target, scheme)) << "pair " << k;
}

TEST(cpu_memory, more_threads_than_the_hardware_get_a_notice) {
  std::vector<std::string> notices;
  const unsigned hardware = std::thread::hardware_concurrency();
  if (hardware == 0) GTEST_SKIP() << "hardware concurrency unknown";
  cpu_engine many(hardware * 4, cpu_engine::default_budget_bytes, [&](const std::string& l) { notices.push_back(l); });
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find(std::to_string(hardware * 4)), std::string::npos) << notices[0];
  cpu_engine fine(hardware, cpu_engine::default_budget_bytes, [&](const std::string& l) { notices.push_back(l); });
  EXPECT_EQ(notices.size(), 1u);
}

}  // namespace
}  // namespace swat

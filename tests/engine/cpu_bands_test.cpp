// One long pair in 8-bit lanes, a band of query rows per lane (cpu_bands.hpp), against the
// scalar reference: every lane width this CPU runs, queries whose last bands run past the query
// end (several lanes of padding), targets shorter and longer than the lanes, DNA schemes with
// extreme gap costs, periodic sequences (ties in many rows and columns), and pairs whose scores
// pass 8 and 16 bits (16- and 32-bit stretches).

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "engine/cpu_bands.hpp"
#include "engine/cpu_engine.hpp"
#include "engine/cpu_interseq.hpp"
#include "engine/cpu_kernels.hpp"
#include "engine/cpu_score_plan.hpp"
#include "engine/test_schemes.hpp"
#include "reference/reference.hpp"

namespace swat {
namespace {

using residues = std::vector<std::uint8_t>;

std::string text(const best_cell& c) {
  return std::to_string(c.score) + "@(" + std::to_string(c.query_end) + "," + std::to_string(c.target_end) + ")";
}

std::vector<int> lane_widths() {
  std::vector<int> w;
  for (const int lanes : {32, 64})
    if (lanes <= cpu::interseq_lanes()) w.push_back(lanes);
  return w;
}

//! The settings of set_bands_vbmi to check with `lanes` lanes: both where the CPU has AVX512_VBMI.
std::vector<bool> vbmi_settings(int lanes) {
  if (lanes == 64 && __builtin_cpu_supports("avx512vbmi")) return {true, false};
  return {true};
}

//! Checks one pair against the reference: in 8-bit lanes with 16- and 32-bit stretches, with
//! checkpoints every bands_check_steps and every 1 and 7 steps (so that it switches often), and
//! where the CPU has AVX512_VBMI with and without it. saturated / saturated16 count the pairs
//! whose best passes the 8- / 16-bit limit.
void check(const residues& q, const residues& t, const scoring_scheme& scheme, int lanes, const std::string& what,
           int* saturated = nullptr, int* saturated16 = nullptr) {
  const cpu::interseq_scheme s = cpu::make_interseq_scheme(scheme, scheme.size());
  ASSERT_TRUE(cpu::bands_fit(s, std::int64_t(q.size()), std::int64_t(t.size()), lanes)) << what;
  const best_cell want = reference::find_best(reference::fill(q, t, scheme));
  if (saturated && want.score >= s.limit) ++*saturated;
  if (saturated16 && want.score >= s.wide_limit) ++*saturated16;
  cpu::interseq_scratch scratch;
  struct vbmi_back_on {
    ~vbmi_back_on() { cpu::set_bands_vbmi(true); }
  } back_on;
  for (const bool vbmi : vbmi_settings(lanes))
    for (const std::int64_t every : {cpu::bands_check_steps, std::int64_t(1), std::int64_t(7)}) {
      cpu::set_bands_vbmi(vbmi);
      const best_cell got = cpu::score_bands(q, t, s, lanes, scratch, every);
      ASSERT_EQ(text(got), text(want)) << what << ", checks every " << every << (vbmi ? "" : ", without AVX512_VBMI")
                                       << ", lanes " << lanes << " m=" << q.size() << " n=" << t.size();
    }
}

TEST(cpu_bands, random_and_related_pairs) {
  if (lane_widths().empty()) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(37);
  const scoring_scheme schemes[] = {test::dna_scheme(), test::dna_scheme(1, -1, 0, 1), test::dna_scheme(2, -3, 4, 0),
                                    test::dna_scheme(5, -4, 200, 100), test::dna_scheme(1, -3, 2, 1)};
  const std::size_t widths[] = {1, 2, 31, 63, 64, 65, 130, 400};
  int k = 0;
  for (const int lanes : lane_widths()) {
    const std::size_t min_m = std::size_t(cpu::min_band_rows) * std::size_t(lanes);
    for (const std::size_t extra : {std::size_t(0), std::size_t(1), std::size_t(lanes - 1), std::size_t(5 * lanes + 7)})
      for (const std::size_t n : widths) {
        const scoring_scheme& s = schemes[std::size_t(k++) % std::size(schemes)];
        const residues q = test::random_residues(rng, min_m + extra, 5);
        residues t = test::random_residues(rng, n, 5);
        if (k % 3 == 0 && n > 20) {  // a short related stretch, away from the first band
          const std::size_t at = std::uniform_int_distribution<std::size_t>(0, q.size() - 20)(rng);
          for (std::size_t x = 0; x < 20 && x + 5 < n; ++x) t[x + 5] = q[at + x];
        }
        check(q, t, s, lanes, "pair " + std::to_string(k));
      }
  }
}

//! Periodic query and target: the best score is reached in many cells of many lanes.
TEST(cpu_bands, periodic_ties_across_lanes) {
  if (lane_widths().empty()) GTEST_SKIP() << "no AVX2";
  const std::vector<residues> units = {{0}, {0, 1}, {0, 1, 2}, {0, 0, 1}, {4}, {2, 4}};
  const scoring_scheme schemes[] = {test::dna_scheme(1, -1, 0, 1), test::dna_scheme(2, -2, 1, 1), test::dna_scheme(1, -3, 5, 2)};
  int k = 0;
  for (const int lanes : lane_widths())
    for (const residues& uq : units)
      for (const residues& ut : {units[1], units[3], units[5]}) {
        const std::size_t m = std::size_t(cpu::min_band_rows) * std::size_t(lanes) + std::size_t(k % 7) * 13;
        residues q(m), t(std::size_t(5 + k % 11));
        for (std::size_t x = 0; x < m; ++x) q[x] = uq[x % uq.size()];
        for (std::size_t x = 0; x < t.size(); ++x) t[x] = ut[x % ut.size()];
        if (k % 4 == 0) q[m / 3] = 3;  // a break in the period
        check(q, t, schemes[std::size_t(k) % 3], lanes, "periodic " + std::to_string(k));
        ++k;
      }
}

//! Identical stretches long enough to pass the 8-bit limit (scored in 16-bit stretches) and just
//! below it; then past the 16-bit limit (32-bit stretches).
TEST(cpu_bands, pairs_past_8_and_16_bits) {
  if (lane_widths().empty()) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(38);
  for (const int lanes : lane_widths()) {
    int seen = 0;
    const residues q = test::random_residues(rng, std::size_t(cpu::min_band_rows) * std::size_t(lanes) + 100, 4);
    for (const std::size_t len : {std::size_t(100), std::size_t(120), std::size_t(124), std::size_t(125), std::size_t(126),
                                  std::size_t(130), std::size_t(300)}) {
      const std::size_t at = q.size() / 2 - len / 2;  // across a band border
      const residues t(q.begin() + std::ptrdiff_t(at), q.begin() + std::ptrdiff_t(at + len));
      check(q, t, test::dna_scheme(), lanes, "identical " + std::to_string(len), &seen);
    }
    EXPECT_GT(seen, 0) << "no pair passed 8 bits: the test lost its point";
    // 16 bits: match 100 (the 8-bit table's widest spread, 127), identical stretches around 655.
    int seen16 = 0;
    const residues q16 = test::random_residues(rng, std::max<std::size_t>(q.size(), 800), 4);
    for (const std::size_t len : {std::size_t(600), std::size_t(653), std::size_t(655), std::size_t(700)}) {
      const residues t(q16.begin() + 30, q16.begin() + 30 + std::ptrdiff_t(len));
      check(q16, t, test::dna_scheme(100, -27, 5, 2), lanes, "identical, match 100, " + std::to_string(len), nullptr,
            &seen16);
    }
    EXPECT_GT(seen16, 0) << "no pair passed 16 bits: the test lost its point";
  }
}

//! Several hits past 8 bits in one pair, where the pass widens and narrows back: a later hit of
//! the same score (the tie rule keeps the earlier column), a later stronger one, a hit that ends
//! at the query's last row (its tail is pruned: no path from it can beat it), hits of middle
//! rows (their tails stay past 8 bits for long), hits across band borders, mutated copies and
//! gap-free schemes; checkpoints every 1, 7 and bands_check_steps steps (check()).
TEST(cpu_bands, hits_past_8_bits_in_16_bit_stretches) {
  if (lane_widths().empty()) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(41);
  const scoring_scheme schemes[] = {test::dna_scheme(), test::dna_scheme(1, -1, 0, 1), test::dna_scheme(2, -3, 4, 0),
                                    test::dna_scheme(1, -3, 2, 1), test::dna_scheme(5, -4, 10, 3)};
  const auto between = [&](std::size_t lo, std::size_t hi) { return std::uniform_int_distribution<std::size_t>(lo, hi)(rng); };
  int k = 0, widened = 0;
  for (const int lanes : lane_widths())
    for (int pair = 0; pair < 10; ++pair, ++k) {
      const scoring_scheme& scheme = schemes[std::size_t(k) % std::size(schemes)];
      const residues q = test::random_residues(rng, std::size_t(cpu::min_band_rows) * std::size_t(lanes) + between(0, 300), 4);
      residues t = test::random_residues(rng, between(1500, 2600), 4);
      // Copies of query stretches [from, from + length) into t at `at`, 3 % mutated when asked.
      const auto copy = [&](std::size_t from, std::size_t length, std::size_t at, bool mutate) {
        for (std::size_t x = 0; x < length && at + x < t.size() && from + x < q.size(); ++x)
          t[at + x] = mutate && between(0, 99) < 3 ? std::uint8_t((q[from + x] + 1) % 4) : q[from + x];
      };
      const std::size_t len = between(300, 420);
      switch (pair % 5) {
        case 0:  // the same stretch twice: equal scores, the earlier column wins
          copy(200, len, 100, false);
          copy(200, len, 1000, false);
          break;
        case 1:  // a later, stronger hit
          copy(150, len, 80, true);
          copy(500, len + 200, 900, false);
          break;
        case 2:  // a hit ending at the query's last row, then a weaker one
          copy(q.size() - len, len, 300, false);
          copy(q.size() / 2, len / 2, 1100, false);
          break;
        case 3:  // middle rows, mutated, across band borders
          copy(q.size() / 2 - len / 2, len, 50, true);
          copy(q.size() / 3, len, 800, true);
          break;
        default:  // several, some overlapping in the target
          for (int h = 0; h < 4; ++h) copy(between(0, q.size() - len), len, between(0, t.size() - 100), h % 2 == 1);
      }
      check(q, t, scheme, lanes, "hits " + std::to_string(k), &widened);
    }
  EXPECT_GT(widened, 10) << "few pairs passed 8 bits: the test lost its point";
}

//! Two hits of the same score: H2 a copy of the query's last rows ending at column c0, H1 ending
//! at row r1 of a lane 15-40 lanes above the last at column c0 + d. The tie rule wants H2 (the
//! smaller column), which the lagging last lanes reach after H1 is recorded: a narrowing between
//! the two must not prune H2's cells, whose value plus what the rows below can add equals the
//! best exactly (the pruning bound is strict).
TEST(cpu_bands, equal_hit_in_a_lagging_lane_keeps_the_earlier_column) {
  if (lane_widths().empty()) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(43);
  const scoring_scheme scheme = test::dna_scheme();
  const auto between = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int pairs = 0;
  for (const int lanes : lane_widths())
    for (int trial = 0; trial < 30; ++trial) {
      const std::int64_t m = std::int64_t(cpu::min_band_rows) * lanes + between(0, 200);
      const std::int64_t rows = (m + lanes - 1) / lanes, last_lane = (m - 1) / rows;
      const int len = between(126, 134), d = between(1, 8);
      const std::int64_t lane1 = last_lane - between(15, int(std::min<std::int64_t>(last_lane, 40)));
      const std::int64_t r1 = lane1 * rows + between(1, int(rows));  // H1's last row (1-based)
      if (r1 < len || r1 > m - len) continue;
      residues q = test::random_residues(rng, std::size_t(m), 4);
      const residues shared = test::random_residues(rng, std::size_t(len + d), 4);
      for (int k = 0; k < len; ++k) {
        q[std::size_t(m - len + k)] = shared[std::size_t(k)];       // H2: the query's last rows
        q[std::size_t(r1 - len + k)] = shared[std::size_t(d + k)];  // H1
      }
      residues t = test::random_residues(rng, 600, 4);
      const int c0 = between(len + 10, 400);  // H2's last column (1-based)
      for (int k = 0; k < len + d; ++k) t[std::size_t(c0 - len + k)] = shared[std::size_t(k)];
      check(q, t, scheme, lanes, "equal hits, trial " + std::to_string(trial));
      ++pairs;
    }
  EXPECT_GT(pairs, 20);
}

//! A pass narrows back after a hit: a 1,000-residue copy of the query's last rows in a 6 kb
//! target is scored in 16 bits from at most a checkpoint before it to at most two checks after
//! it (its cells past the hit can add nothing: pruned), and in 8 bits elsewhere; the same
//! stretch of the query's middle rows narrows back too, later (its cells decay to the 8-bit limit).
TEST(cpu_bands, passes_narrow_back_after_a_hit) {
  if (lane_widths().empty()) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(44);
  const scoring_scheme scheme = test::dna_scheme();
  for (const int lanes : lane_widths()) {
    const cpu::interseq_scheme s = cpu::make_interseq_scheme(scheme, scheme.size());
    const std::int64_t m = std::int64_t(cpu::min_band_rows) * lanes + 1100, n = 6000, len = 1000, at = 2000;
    const residues q = test::random_residues(rng, std::size_t(m), 4);
    for (const std::int64_t from : {m - len, std::int64_t(100)}) {
      residues t = test::random_residues(rng, std::size_t(n), 4);
      for (std::int64_t k = 0; k < len; ++k) t[std::size_t(at + k)] = q[std::size_t(from + k)];
      cpu::interseq_scratch scratch;
      cpu::bands_stats stats;
      const best_cell got = cpu::score_bands(q, t, s, lanes, scratch, cpu::bands_check_steps, &stats);
      const best_cell want = cpu::score_pass(q, t, scheme, false, nullptr, std::size_t(1) << 30).best;
      ASSERT_EQ(text(got), text(want)) << "lanes " << lanes << ", copy of rows from " << from;
      const std::string what = "lanes " + std::to_string(lanes) + ", copy of rows from " + std::to_string(from);
      // Every step once, and those after a checkpoint again where the pass widened.
      const std::int64_t steps = stats.steps8 + stats.steps16 + stats.steps32;
      EXPECT_GE(steps, n + lanes - 1) << what;
      EXPECT_LE(steps, n + lanes - 1 + stats.widened * cpu::bands_check_steps) << what;
      EXPECT_GE(stats.widened, 1) << what;
      EXPECT_GE(stats.narrowed, 1) << what;
      EXPECT_EQ(stats.steps32, 0) << what;
      if (from == m - len)  // pruned at once past the hit
        EXPECT_LE(stats.steps16, len + lanes + 3 * cpu::bands_check_steps) << what;
      else
        EXPECT_LE(stats.steps16, n / 2) << what;
      EXPECT_GE(stats.steps8, n - at - len - lanes - 3 * cpu::bands_check_steps - (from == m - len ? 0 : n / 2)) << what;
    }
  }
}

//! Hits past 16 bits (match 100): 32-bit stretches between 8- and 16-bit ones, a later hit of
//! the same score, a gap whose cost itself passes 16 bits (open 70,000: the 32-bit lanes take
//! the costs uncapped), a weaker hit after a stronger one.
TEST(cpu_bands, hits_past_16_bits_in_32_bit_stretches) {
  if (lane_widths().empty()) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(42);
  int past16 = 0;
  for (const int lanes : lane_widths())
    for (int pair = 0; pair < 6; ++pair) {
      const residues q = test::random_residues(rng, std::size_t(cpu::min_band_rows) * std::size_t(lanes) + 900, 4);
      residues t = test::random_residues(rng, 2600, 4);
      const auto copy = [&](std::size_t from, std::size_t length, std::size_t at) {
        for (std::size_t x = 0; x < length && at + x < t.size() && from + x < q.size(); ++x) t[at + x] = q[from + x];
      };
      scoring_scheme scheme = test::dna_scheme(100, -27, 5, 2);
      switch (pair % 3) {
        case 0:  // the same 700-residue stretch twice, a weaker one between
          copy(100, 700, 50);
          copy(900, 200, 900);
          copy(100, 700, 1500);
          break;
        case 1:  // two 700-residue stretches joined by a 10-residue gap of open 70,000 (worth it)
          scheme = test::dna_scheme(100, -27, 70000, 3);
          copy(0, 700, 100);
          copy(700, 700, 810);
          break;
        default:  // a strong hit ending at the query's last row, then a weaker one
          copy(q.size() - 800, 800, 200);
          copy(300, 500, 1600);
      }
      check(q, t, scheme, lanes, "past 16 bits " + std::to_string(pair), nullptr, &past16);
    }
  EXPECT_GT(past16, 4) << "few pairs passed 16 bits: the test lost its point";
}

//! A few long pairs through the engine's score_many: the plan runs them in bands (or as pairs
//! with the lanes off), saturated ones are rescored wider; all equal the reference.
TEST(cpu_bands, score_many_of_a_few_long_pairs) {
  std::mt19937 rng(39);
  const scoring_scheme s = test::dna_scheme();
  std::vector<residues> queries = {test::random_residues(rng, 1500, 5), test::random_residues(rng, 700, 4)};
  std::vector<residues> targets = {test::random_residues(rng, 900, 5), {}, residues(queries[0].begin() + 100, queries[0].begin() + 600)};
  std::vector<pair_job> jobs;
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (std::size_t t = 0; t < targets.size(); ++t) jobs.push_back({q, t, queries[q], targets[t]});
  if (cpu::interseq_lanes() > 0) {
    const cpu::score_plan plan = cpu::plan_scores(jobs, s, cpu::interseq_lanes(), 4, std::size_t(1) << 30);
    EXPECT_GT(std::count_if(plan.items.begin(), plan.items.end(),
                            [](const cpu::score_item& it) { return it.kind == cpu::item_kind::bands; }), 0);
  }
  std::vector<int> widths = lane_widths();
  widths.push_back(0);
  for (const int lanes : widths)
    for (const unsigned threads : {1u, 4u}) {
      cpu_engine eng(threads);
      eng.set_interseq_lanes(lanes);
      std::vector<best_cell> got(jobs.size());
      eng.score_many(jobs, s, got, {});
      for (std::size_t k = 0; k < jobs.size(); ++k)
        ASSERT_EQ(text(got[k]), text(reference::find_best(reference::fill(jobs[k].query, jobs[k].target, s))))
            << "lanes " << lanes << " threads " << threads << " job " << k;
    }
}

//! Many targets of a long query: batches, whose saturated lanes are rescored in the row bands
//! (of the batch's lane width; a 64-lane batch's query of 700 rows in 32 lanes).
TEST(cpu_bands, saturated_lanes_of_a_batch_are_rescored_in_bands) {
  std::mt19937 rng(40);
  const scoring_scheme s = test::dna_scheme();
  for (const std::size_t m : {std::size_t(1100), std::size_t(700)}) {
    const residues query = test::random_residues(rng, m, 4);
    std::vector<residues> targets;
    for (int t = 0; t < 40; ++t)
      targets.push_back(t % 4 == 0 ? residues(query.begin() + 10 * t, query.begin() + 10 * t + 200)  // saturates
                                   : test::random_residues(rng, 150 + std::size_t(t), 4));
    std::vector<pair_job> jobs;
    for (std::size_t t = 0; t < targets.size(); ++t) jobs.push_back({0, t, query, targets[t]});
    for (const int lanes : lane_widths()) {
      cpu_engine eng(2);
      eng.set_interseq_lanes(lanes);
      std::vector<best_cell> got(jobs.size());
      eng.score_many(jobs, s, got, {});
      for (std::size_t k = 0; k < jobs.size(); ++k)
        ASSERT_EQ(text(got[k]), text(reference::find_best(reference::fill(query, targets[k], s))))
            << "query " << m << ", lanes " << lanes << ", job " << k;
    }
  }
}

}  // namespace
}  // namespace swat

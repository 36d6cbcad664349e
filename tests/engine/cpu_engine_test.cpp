// CPU engine against the scalar reference: full alignment equality (score, coordinates, every
// CIGAR op) on seeded random pairs, low-complexity pairs full of ties, skewed shapes and budgets
// small enough to force the multi-level checkpoint traceback.

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "engine/cpu_engine.hpp"
#include "engine/cpu_kernels.hpp"
#include "engine/cpu_traceback.hpp"
#include "engine/test_schemes.hpp"
#include "reference/reference.hpp"
#include "scoring/scoring.hpp"

namespace swat {
namespace {

using residues = std::vector<std::uint8_t>;
using test::mutate;
using test::random_residues;

std::string describe(const alignment& a) {
  std::string s = std::to_string(a.score) + " q[" + std::to_string(a.query_begin) + "," +
                  std::to_string(a.query_end) + ") t[" + std::to_string(a.target_begin) + "," +
                  std::to_string(a.target_end) + ") ";
  for (const cigar_op& c : a.ops) s += std::to_string(c.length) + c.op;
  return s;
}

//! Checks the engine's alignment, its score pass (both kernels) and score_only against the reference.
void check_pair(const residues& q, const residues& t, const scoring_scheme& scheme, std::size_t budget,
                const std::string& what) {
  const alignment want = reference::align(q, t, scheme);
  cpu_engine eng(1, budget);
  const alignment got = eng.align(q, t, scheme);
  ASSERT_EQ(describe(got), describe(want)) << what << " m=" << q.size() << " n=" << t.size();
  ASSERT_EQ(got, want) << what;
  const best_cell want_best{want.score, want.query_end, want.target_end};
  for (int kernel = 0; kernel < 2; ++kernel) {
    if (kernel == 1 && !cpu::striped_available()) continue;
    for (bool origins : {true, false}) {
      // Striped: the whole query at once, then budgets that cut it into bands of 8 rows and up
      // (sizes as documented in cpu_kernels.hpp: per query row, plus two borders of n + 1).
      const int ranks = scheme.size();
      const std::size_t per_row = std::size_t(16 + 4 * ranks + (origins ? 24 : 0));
      const std::size_t border = 2 * (t.size() + 1) * (origins ? 24 : 8) +
                                 std::size_t((origins ? 10 : 4) + ranks) * 4096;  // + staggered starts
      for (const std::int64_t rows : {std::int64_t(0), std::int64_t(8), std::int64_t(16), std::int64_t(40), std::int64_t(64)}) {
        if (kernel == 0 && rows != 0) continue;
        const std::size_t pass_budget = rows ? per_row * std::size_t(rows) + border : SIZE_MAX;
        if (rows && kernel == 1 && !t.empty()) {  // that band height, or the whole query when it fits as well
          const std::int64_t band =
              cpu::plan_score_pass(std::int64_t(q.size()), std::int64_t(t.size()), ranks, origins, pass_budget).band_rows;
          ASSERT_TRUE(band == rows || band >= std::int64_t(q.size())) << band << " rows for " << rows;
        }
        const cpu::pass_result p = kernel ? cpu::score_pass_striped(q, t, scheme, origins, nullptr, pass_budget)
                                          : cpu::score_pass_scalar(q, t, scheme, origins, nullptr);
        const std::string where = what + " kernel " + std::to_string(kernel) + " origins " + std::to_string(origins) +
                                  " pass budget " + std::to_string(pass_budget);
        ASSERT_EQ(p.best, want_best) << where;
        if (origins) {
          ASSERT_EQ(p.query_begin, want.query_begin) << where;
          ASSERT_EQ(p.target_begin, want.target_begin) << where;
        }
      }
    }
  }
  ASSERT_EQ(eng.score_only(q, t, scheme), want_best) << what;
}

std::size_t pick_length(std::mt19937& rng) {
  static const std::size_t special[] = {0, 1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65};
  if (std::uniform_int_distribution<int>(0, 9)(rng) < 3)
    return special[std::uniform_int_distribution<std::size_t>(0, std::size(special) - 1)(rng)];
  return std::uniform_int_distribution<std::size_t>(0, 300)(rng);
}

//! A random pair: unrelated, or the target a mutated piece of the query (long gapped paths).
std::pair<residues, residues> random_pair(std::mt19937& rng, int alphabet) {
  residues q = random_residues(rng, pick_length(rng), alphabet);
  residues t;
  if (!q.empty() && std::uniform_int_distribution<int>(0, 1)(rng)) {
    const std::size_t a = std::uniform_int_distribution<std::size_t>(0, q.size() - 1)(rng);
    const std::size_t b = std::uniform_int_distribution<std::size_t>(a, q.size())(rng);
    residues piece(q.begin() + std::ptrdiff_t(a), q.begin() + std::ptrdiff_t(b));
    residues left = random_residues(rng, std::uniform_int_distribution<std::size_t>(0, 40)(rng), alphabet);
    t = left;
    const residues m = mutate(rng, piece, alphabet, 0.15);
    t.insert(t.end(), m.begin(), m.end());
  } else {
    t = random_residues(rng, pick_length(rng), alphabet);
  }
  if (std::uniform_int_distribution<int>(0, 1)(rng)) std::swap(q, t);
  return {q, t};
}

std::size_t pick_budget(std::mt19937& rng) {
  static const std::size_t budgets[] = {0, 1, 64, 1000, 20000, cpu_engine::default_budget_bytes};
  return budgets[std::uniform_int_distribution<std::size_t>(0, std::size(budgets) - 1)(rng)];
}

TEST(cpu_engine, random_dna_pairs) {
  std::mt19937 rng(20240601);
  const scoring_scheme schemes[] = {test::dna_scheme(), test::dna_scheme(1, -1, 0, 1), test::dna_scheme(2, -3, 4, 0)};
  for (int k = 0; k < 900; ++k) {
    auto [q, t] = random_pair(rng, dna_size);
    check_pair(q, t, schemes[k % 3], pick_budget(rng), "dna #" + std::to_string(k));
  }
}

TEST(cpu_engine, random_protein_pairs) {
  std::mt19937 rng(7);
  const scoring_scheme schemes[] = {test::protein_scheme(1, 11, 1), test::protein_scheme(2, 10, 2),
                                    test::protein_scheme(3, 0, 1)};
  for (int k = 0; k < 700; ++k) {
    auto [q, t] = random_pair(rng, protein_size);
    check_pair(q, t, schemes[k % 3], pick_budget(rng), "protein #" + std::to_string(k));
  }
}

//! Schemes users type that have no logarithmic regime (EMBOSS water's DNA matrix, cheap gaps):
//! they align like any other, and so do random valid schemes (match 1 … 12, mismatch −12 … 0,
//! gap open 0 … 20, extend 0 … 6, open + extend > 0), on related and unrelated pairs.
TEST(cpu_engine, schemes_without_a_logarithmic_regime_and_random_schemes) {
  std::mt19937 rng(20261126);
  const std::vector<scoring_scheme> named = {
      scoring::make_dna_scheme(5, -4, 10, 1), scoring::make_dna_scheme(3, -2, 5, 2),
      scoring::make_dna_scheme(2, -1, 2, 1), scoring::make_dna_scheme(1, -1, 0, 1),
      scoring::make_protein_scheme("PAM30", 3, 1), scoring::make_protein_scheme("BLOSUM62", 0, 1)};
  for (int k = 0; k < 240; ++k) {
    const scoring_scheme& s = named[std::size_t(k) % named.size()];
    auto [q, t] = random_pair(rng, s.alphabet == alphabet_kind::dna ? dna_size : protein_size);
    check_pair(q, t, s, pick_budget(rng), s.matrix_name + " " + std::to_string(s.gap_open) + "/" +
                                              std::to_string(s.gap_extend) + " #" + std::to_string(k));
  }
  for (int k = 0; k < 200; ++k) {
    const int match = std::uniform_int_distribution<int>(1, 12)(rng), mismatch = std::uniform_int_distribution<int>(-12, 0)(rng);
    const int open = std::uniform_int_distribution<int>(0, 20)(rng);
    const int extend = std::uniform_int_distribution<int>(open == 0 ? 1 : 0, 6)(rng);  // valid: open + extend > 0
    const scoring_scheme s = k % 2 ? scoring::make_dna_scheme(match, mismatch, open, extend)
                                   : test::protein_scheme(std::uint32_t(k), open, extend);
    auto [q, t] = random_pair(rng, s.alphabet == alphabet_kind::dna ? dna_size : protein_size);
    check_pair(q, t, s, pick_budget(rng), "random scheme #" + std::to_string(k));
  }
}

//! Periodic and single-letter sequences: many equal scores, equal paths, gap/diag ties.
TEST(cpu_engine, low_complexity_ties) {
  std::mt19937 rng(99);
  const scoring_scheme schemes[] = {test::dna_scheme(), test::dna_scheme(1, -1, 0, 1), test::dna_scheme(2, -2, 1, 1),
                                    test::dna_scheme(3, -3, 3, 3)};
  auto periodic = [](std::size_t n, const residues& unit) {
    residues r(n);
    for (std::size_t k = 0; k < n; ++k) r[k] = unit[k % unit.size()];
    return r;
  };
  const std::vector<residues> units = {{0}, {0, 1}, {0, 1, 2}, {0, 0, 1}, {4}, {2, 4}};
  for (int k = 0; k < 400; ++k) {
    const auto& uq = units[std::size_t(k) % units.size()];
    const auto& ut = units[std::size_t(k / 6) % units.size()];
    residues q = periodic(pick_length(rng) % 120, uq);
    residues t = periodic(pick_length(rng) % 120, ut);
    if (k % 5 == 0 && !t.empty()) t[t.size() / 2] = 3;  // a break in the period
    check_pair(q, t, schemes[k % 4], pick_budget(rng), "low complexity #" + std::to_string(k));
  }
}

TEST(cpu_engine, skewed_and_empty_shapes) {
  std::mt19937 rng(5);
  const scoring_scheme dna = test::dna_scheme();
  const scoring_scheme prot = test::protein_scheme(4, 11, 1);
  const std::pair<std::size_t, std::size_t> shapes[] = {{1, 500}, {500, 1}, {0, 0}, {0, 17}, {17, 0},
                                                        {2, 400}, {400, 2}, {1, 1}, {31, 33}, {33, 31}};
  int count = 0;
  for (int rep = 0; rep < 10; ++rep)
    for (auto [m, n] : shapes) {
      const bool protein = rep % 2;
      const int alphabet = protein ? protein_size : dna_size;
      residues q = random_residues(rng, m, alphabet), t = random_residues(rng, n, alphabet);
      check_pair(q, t, protein ? prot : dna, pick_budget(rng), "shape #" + std::to_string(count++));
    }
}

//! Budgets of 0..few bytes force one-row bands and ⌈log2 R⌉ checkpoint levels.
TEST(cpu_engine, tiny_budget_multi_level) {
  std::mt19937 rng(11);
  const scoring_scheme dna = test::dna_scheme();
  for (int k = 0; k < 60; ++k) {
    const residues q = random_residues(rng, 250 + std::size_t(k), dna_size);
    const residues t = mutate(rng, q, dna_size, 0.1);
    check_pair(q, t, dna, std::size_t(k % 3) * 700, "tiny budget #" + std::to_string(k));
  }
}

//! The rectangle traceback with its codes packed two to a byte: budgets at which only the packed
//! codes of the whole rectangle fit (one fill instead of checkpoints and a second), just above
//! and below that bound, and a third of the byte codes (checkpoint levels whose bands take the
//! packed codes where the byte codes do not fit); odd and even widths; the reference's path.
TEST(cpu_engine, traceback_codes_packed_two_to_a_byte) {
  std::mt19937 rng(20261127);
  const scoring_scheme schemes[] = {test::dna_scheme(), test::protein_scheme(6, 11, 1), test::dna_scheme(1, -1, 0, 1)};
  int packed_budgets = 0;
  for (int k = 0; k < 36; ++k) {
    const int alphabet = k % 3 == 1 ? protein_size : dna_size;
    const scoring_scheme& s = schemes[k % 3];
    const residues q = random_residues(rng, 150 + std::size_t(k) * 23, alphabet);
    residues t = mutate(rng, q, alphabet, 0.1);
    if (k % 4 == 0) t.insert(t.begin() + std::ptrdiff_t(t.size() / 2), 40 + std::size_t(k), std::uint8_t(1));
    const alignment want = reference::align(q, t, s);
    ASSERT_GT(want.score, 0);
    const std::int64_t rows = want.query_end - want.query_begin, cols = want.target_end - want.target_begin;
    const residue_span qs = residue_span(q).subspan(std::size_t(want.query_begin), std::size_t(rows));
    const residue_span ts = residue_span(t).subspan(std::size_t(want.target_begin), std::size_t(cols));
    alignment local = want;
    local.query_begin = local.target_begin = 0;
    local.query_end = rows;
    local.target_end = cols;
    const std::size_t packed = std::size_t(rows * ((cols + 1) / 2) + std::min<std::int64_t>(rows, 64) * cols);
    for (const std::size_t budget : {packed, packed + 1, packed - 1, std::size_t(rows * cols) - 1, std::size_t(rows * cols / 3)}) {
      if (budget < std::size_t(rows * cols) && budget >= packed) ++packed_budgets;
      EXPECT_EQ(cpu::trace_rectangle(qs, ts, s, want.score, budget), local)
          << "pair " << k << " rows " << rows << " cols " << cols << " budget " << budget;
    }
  }
  EXPECT_GT(packed_budgets, 36);  // the bound lies below the byte codes' for these shapes
}

//! Long related pairs: high scores, long vertical F runs that cross all striped lanes.
TEST(cpu_engine, long_related_pairs) {
  std::mt19937 rng(17);
  const scoring_scheme schemes[] = {test::dna_scheme(), test::protein_scheme(6, 11, 1)};
  for (int k = 0; k < 8; ++k) {
    const int alphabet = k % 2 ? protein_size : dna_size;
    const residues q = random_residues(rng, 1200 + std::size_t(k) * 150, alphabet);
    residues t = mutate(rng, q, alphabet, 0.08);
    t.insert(t.begin() + std::ptrdiff_t(t.size() / 3), 200, std::uint8_t(1));  // a long gap
    check_pair(q, t, schemes[k % 2], k < 4 ? cpu_engine::default_budget_bytes : 50000, "long #" + std::to_string(k));
  }
}

//! The 16-bit score pass: exact below its limit (32767 - max score), given up at it (the engine
//! then runs the 32-bit pass), for identical DNA on both sides of the limit.
TEST(cpu_engine, sixteen_bit_pass_is_exact_below_its_limit_and_gives_up_at_it) {
  if (!cpu::striped_available()) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(31);
  const scoring_scheme dna = test::dna_scheme();  // match 2: limit 32765
  for (const std::size_t length : {std::size_t(16382), std::size_t(16383)}) {
    const residues q = random_residues(rng, length, 4);  // A, C, G, T: N never matches
    cpu::pass_result r;
    const bool ran = cpu::score_pass_striped16(q, q, dna, nullptr, r);
    EXPECT_EQ(ran, length == 16382) << length;  // 2 · 16,383 = 32,766 reaches the limit
    if (ran) {
      EXPECT_EQ(r.best, (best_cell{std::int32_t(2 * length), std::int64_t(length), std::int64_t(length)}));
    }
    // The engine's answer is exact either way.
    EXPECT_EQ(cpu_engine(1).score_only(q, q, dna), (best_cell{std::int32_t(2 * length), std::int64_t(length), std::int64_t(length)}));
  }
  // Random pairs with ties against the 32-bit pass, query lengths around the 16 lanes.
  for (int k = 0; k < 300; ++k) {
    const residues q = random_residues(rng, 1 + rng() % 70, 2), t = random_residues(rng, rng() % 200, 2);
    const scoring_scheme s = k % 2 ? dna : test::dna_scheme(1, -1, 1, 1);
    cpu::pass_result r16;
    if (!cpu::score_pass_striped16(q, t, s, nullptr, r16)) continue;
    EXPECT_EQ(r16.best, reference::find_best(reference::fill(q, t, s))) << k;
  }
}

//! The 8-row AVX2 strip fill against the plain row fill: values and codes.
TEST(cpu_engine, strip_fill_matches_row_fill) {
  std::mt19937 rng(23);
  const scoring_scheme scheme = test::protein_scheme(8, 10, 2);
  for (std::int64_t w : {0, 1, 7, 8, 9, 100}) {
    for (std::int64_t rows : {0, 1, 8, 9, 17, 24}) {
      const residues q = random_residues(rng, std::size_t(rows), protein_size);
      const residues t = random_residues(rng, std::size_t(w), protein_size);
      std::vector<std::int32_t> h1(std::size_t(w + 1)), f1(std::size_t(w + 1));
      for (auto& v : h1) v = std::uniform_int_distribution<int>(0, 30)(rng);
      for (auto& v : f1) v = std::uniform_int_distribution<int>(-40, 20)(rng);
      h1[0] = 0;
      auto h2 = h1, f2 = f1;
      std::vector<std::uint8_t> c1(std::size_t(rows * w)), c2(c1.size());
      for (std::int64_t r = 0; r < rows; ++r)
        cpu::fill_row(q[std::size_t(r)], t.data(), w, scheme, h1.data(), f1.data(), c1.data() + r * w);
      cpu::fill_rows(q.data(), rows, t.data(), w, scheme, h2.data(), f2.data(), c2.data(), w);
      ASSERT_EQ(h1, h2) << "w=" << w << " rows=" << rows;
      ASSERT_EQ(f1, f2) << "w=" << w << " rows=" << rows;
      ASSERT_EQ(c1, c2) << "w=" << w << " rows=" << rows;
    }
  }
}

TEST(cpu_engine, align_many_matches_align_in_job_order) {
  std::mt19937 rng(3);
  const scoring_scheme scheme = test::protein_scheme(9, 11, 1);
  std::vector<std::pair<residues, residues>> pairs;
  for (int k = 0; k < 60; ++k) pairs.push_back(random_pair(rng, protein_size));
  std::vector<pair_job> jobs;
  std::uint64_t cells = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    jobs.push_back({k, k, pairs[k].first, pairs[k].second});
    cells += std::uint64_t(pairs[k].first.size()) * pairs[k].second.size();
  }
  for (unsigned threads : {1u, 2u, 5u}) {
    cpu_engine eng(threads, 1 << 16);
    std::vector<alignment> results(jobs.size());
    std::atomic<std::uint64_t> done{0};
    eng.align_many(jobs, scheme, results, [&](std::uint64_t c) { done += c; });
    EXPECT_EQ(done.load(), cells);
    for (std::size_t k = 0; k < jobs.size(); ++k)
      ASSERT_EQ(results[k], reference::align(jobs[k].query, jobs[k].target, scheme)) << "job " << k;
  }
}

TEST(cpu_engine, a_pair_far_larger_than_the_rest_runs_first_on_every_thread_with_the_same_results) {
  // One long related pair among small ones (a gene's hit among weak ones; 2^24 cells or more):
  // it goes first, on every thread with the whole budget, then the rest share the pool; results
  // in job order, those of one thread (the small ones the reference's), the progress counting
  // every cell once, with any number of threads.
  std::mt19937 rng(23);
  const scoring_scheme scheme = test::dna_scheme(2, -3, 5, 2);
  std::vector<std::pair<residues, residues>> pairs;
  for (int k = 0; k < 9; ++k) pairs.push_back(random_pair(rng, dna_size));
  const residues big_q = random_residues(rng, 4300, dna_size);
  pairs.insert(pairs.begin() + 4, {big_q, mutate(rng, big_q, dna_size, 0.1)});
  ASSERT_GE(double(pairs[4].first.size()) * double(pairs[4].second.size()), double(1 << 24));
  std::vector<pair_job> jobs;
  std::uint64_t cells = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    jobs.push_back({k, k, pairs[k].first, pairs[k].second});
    cells += std::uint64_t(pairs[k].first.size()) * pairs[k].second.size();
  }
  std::vector<alignment> one(jobs.size());
  cpu_engine(1, std::size_t(256) << 20).align_many(jobs, scheme, one, {});
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (k != 4) {
      ASSERT_EQ(one[k], reference::align(jobs[k].query, jobs[k].target, scheme)) << "job " << k;
    }
  }
  for (unsigned threads : {2u, 4u, 16u}) {
    cpu_engine eng(threads, std::size_t(256) << 20);
    std::vector<alignment> results(jobs.size());
    std::atomic<std::uint64_t> done{0};
    eng.align_many(jobs, scheme, results, [&](std::uint64_t c) { done += c; });
    EXPECT_EQ(done.load(), cells) << threads << " threads";
    for (std::size_t k = 0; k < jobs.size(); ++k)
      ASSERT_EQ(results[k], one[k]) << "job " << k << ", " << threads << " threads";
  }
}

//! Jobs of qs[k] × ts[k] that know their best cell (as a scan's hits do): the reference's
//! alignment of each goes to want, its end cell into the job.
std::vector<pair_job> jobs_with_known_cells(const std::vector<residues>& qs, const std::vector<residues>& ts,
                                            const scoring_scheme& scheme, std::vector<alignment>& want) {
  std::vector<pair_job> jobs;
  want.clear();
  for (std::size_t k = 0; k < qs.size(); ++k) {
    want.push_back(reference::align(qs[k], ts[k], scheme));
    jobs.push_back({k, k, qs[k], ts[k], best_cell{want.back().score, want.back().query_end, want.back().target_end}});
  }
  return jobs;
}

//! A pair with a known best cell (a scan's) is aligned in the box before that cell: the same
//! alignment as the reference's, where flanks before the related part leave the box far smaller
//! than the pair (on either side), with right flanks (the cell inside the pair), repeats of the
//! related part (equal-scoring alignments: the tie rule) and unrelated pairs.
TEST(cpu_engine, known_best_cells_are_aligned_in_the_box_before_them) {
  std::mt19937 rng(41);
  const std::vector<std::pair<scoring_scheme, int>> schemes = {
      {test::dna_scheme(2, -3, 5, 2), dna_size},
      {test::dna_scheme(1, -1, 2, 1), dna_size},
      {test::protein_scheme(7, 11, 1), protein_size},
      {test::protein_scheme(8, 3, 3), protein_size}};
  std::uniform_int_distribution<int> flank(0, 900), core(20, 300), coin(0, 3);
  for (const auto& [scheme, alphabet] : schemes) {
    std::vector<residues> qs, ts;
    for (int k = 0; k < 24; ++k) {
      const residues c = random_residues(rng, std::size_t(core(rng)), alphabet);
      residues q = c, t = random_residues(rng, std::size_t(flank(rng)), alphabet);
      const residues m = mutate(rng, c, alphabet, 0.1);
      t.insert(t.end(), m.begin(), m.end());
      if (coin(rng) == 0) t.insert(t.end(), m.begin(), m.end());  // a repeat: equal-scoring copies
      if (coin(rng) == 0) {  // a right flank: the best cell inside the pair
        const residues right = random_residues(rng, std::size_t(flank(rng)), alphabet);
        t.insert(t.end(), right.begin(), right.end());
      }
      if (coin(rng) == 0) t = random_residues(rng, t.size(), alphabet);  // unrelated
      if (k % 2) std::swap(q, t);  // the long flank on the query side
      qs.push_back(std::move(q));
      ts.push_back(std::move(t));
    }
    std::vector<alignment> want;
    const std::vector<pair_job> jobs = jobs_with_known_cells(qs, ts, scheme, want);
    for (unsigned threads : {1u, 3u}) {
      cpu_engine eng(threads);
      std::vector<alignment> got(jobs.size());
      eng.align_many(jobs, scheme, got, {});
      for (std::size_t k = 0; k < jobs.size(); ++k)
        ASSERT_EQ(describe(got[k]), describe(want[k])) << scheme.matrix_name << " job " << k << " threads " << threads;
    }
  }
}

//! Weak hits deep into long prefixes (a short match thousands of residues into both sides,
//! boxes of 2^22 cells and more) are narrowed by the pruned reverse pass first (the engine
//! counts them, and no hit falls back to its whole pair); strong long hits keep their box; either
//! way the reference's alignment: planted matches with substitutions and indels, an exact
//! repeat of one deep in the target (equal-scoring copies: the tie rule's), both orientations.
TEST(cpu_engine, weak_hits_deep_in_long_prefixes_are_aligned_in_the_box_of_their_begins) {
  std::mt19937 rng(43);
  const scoring_scheme scheme = test::dna_scheme(2, -3, 5, 2);
  std::vector<residues> qs, ts;
  int weak = 0;
  for (int k = 0; k < 14; ++k) {
    residues q = random_residues(rng, 3000 + 37 * std::size_t(k), dna_size);
    residues t = random_residues(rng, 3500 + 53 * std::size_t(k), dna_size);
    if (k < 12) {  // a weak match near the ends, mutated (substitutions, indels) in t
      const residues planted = random_residues(rng, 30 + 3 * std::size_t(k), dna_size);
      const residues copy = k % 3 == 0 ? planted : mutate(rng, planted, dna_size, 0.08);
      std::copy(planted.begin(), planted.end(), q.end() - 100 - std::ptrdiff_t(planted.size()));
      std::copy(copy.begin(), copy.end(), t.end() - 150 - std::ptrdiff_t(copy.size()));
      if (k % 3 == 0) std::copy(planted.begin(), planted.end(), t.end() - 1000 - std::ptrdiff_t(planted.size()));
      ++weak;
    } else {  // strong: t ends with a mutated copy of all of q
      const residues m = mutate(rng, q, dna_size, 0.05);
      t.insert(t.end(), m.begin(), m.end());
    }
    if (k % 2) std::swap(q, t);
    qs.push_back(std::move(q));
    ts.push_back(std::move(t));
  }
  std::vector<alignment> want;
  const std::vector<pair_job> jobs = jobs_with_known_cells(qs, ts, scheme, want);
  for (std::size_t k = 0; k < 12; ++k)
    ASSERT_GE(double(want[k].query_end) * double(want[k].target_end), double(1 << 22)) << "pair " << k;
  for (unsigned threads : {1u, 4u}) {
    cpu_engine eng(threads);
    std::vector<alignment> got(jobs.size());
    std::atomic<std::uint64_t> done{0};
    eng.align_many(jobs, scheme, got, [&](std::uint64_t c) { done += c; });
    std::uint64_t cells = 0;
    for (const pair_job& j : jobs) cells += std::uint64_t(j.query.size()) * j.target.size();
    EXPECT_EQ(done.load(), cells) << threads << " threads";
    for (std::size_t k = 0; k < jobs.size(); ++k)
      ASSERT_EQ(describe(got[k]), describe(want[k])) << "pair " << k << ", " << threads << " threads";
    EXPECT_EQ(eng.narrowed_boxes(), std::size_t(weak)) << threads << " threads: the weak hits' boxes were not narrowed";
    EXPECT_EQ(eng.whole_pair_fallbacks(), 0u) << threads << " threads";
  }
}

//! Strong hits (a gene's mutated copy in a longer target) are aligned in the band of diagonals
//! their known score allows within their box (cpu_hsps.hpp: the tiles outside it are not
//! filled), and weaker related pairs whose band is too wide are not: the reference's alignment
//! either way, on one thread and on four, the copy on either side. DNA without N (every match
//! scores the maximum, so a close copy's band is narrow); a protein's identities score far
//! below its matrix's maximum, so its bands are too wide and no box is banded.
TEST(cpu_engine, strong_hits_are_aligned_in_the_band_their_score_allows) {
  std::mt19937 rng(47);
  struct kind {
    scoring_scheme scheme;
    int letters;
    std::size_t banded;
  };
  for (const kind& x : {kind{test::dna_scheme(2, -3, 5, 2), dna_size - 1, 4}, kind{test::dna_scheme(1, -1, 2, 1), dna_size - 1, 4},
                        kind{test::protein_scheme(3, 11, 1), protein_size, 0}}) {
    std::vector<residues> qs, ts;
    for (int k = 0; k < 6; ++k) {
      residues q = random_residues(rng, 1200 + 211 * std::size_t(k), x.letters);
      residues t = random_residues(rng, 900 + 97 * std::size_t(k), x.letters);
      const residues m = mutate(rng, q, x.letters, k < 4 ? 0.02 : 0.3);
      t.insert(t.end(), m.begin(), m.end());
      const residues tail = random_residues(rng, 300, x.letters);
      t.insert(t.end(), tail.begin(), tail.end());
      if (k % 2) std::swap(q, t);
      qs.push_back(std::move(q));
      ts.push_back(std::move(t));
    }
    std::vector<alignment> want;
    const std::vector<pair_job> jobs = jobs_with_known_cells(qs, ts, x.scheme, want);
    for (unsigned threads : {1u, 4u}) {
      cpu_engine eng(threads);
      std::vector<alignment> got(jobs.size());
      eng.align_many(jobs, x.scheme, got, {});
      for (std::size_t k = 0; k < jobs.size(); ++k)
        ASSERT_EQ(describe(got[k]), describe(want[k])) << x.scheme.matrix_name << " pair " << k << ", " << threads << " threads";
      EXPECT_EQ(eng.banded_boxes(), x.banded) << x.scheme.matrix_name << ", " << threads << " threads";
      EXPECT_EQ(eng.whole_pair_fallbacks(), 0u);
    }
  }
}

TEST(cpu_engine, constructor_defaults) {
  cpu_engine eng;
  EXPECT_GE(eng.threads(), 1u);
  EXPECT_EQ(eng.budget_bytes(), cpu_engine::default_budget_bytes);
  EXPECT_EQ(eng.name(), "cpu");
}

}  // namespace
}  // namespace swat

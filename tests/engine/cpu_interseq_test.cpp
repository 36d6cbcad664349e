// The inter-sequence 8-bit pass (cpu_interseq.hpp) and the score_many plan that uses it
// (cpu_score_plan.hpp) against the scalar reference: every lane width this CPU runs (32 AVX2,
// 64 AVX-512BW), random and low-complexity targets of mixed lengths, DNA and protein, schemes
// with extreme gap costs, and saturating pairs (long identical sequences, high match scores):
// a lane is reported saturated exactly when its true best reaches the 8-bit limit, and every
// other lane's best cell (score, end cell, tie rule) is the reference's.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "engine/cpu_engine.hpp"
#include "engine/cpu_interseq.hpp"
#include "engine/cpu_score_plan.hpp"
#include "engine/test_schemes.hpp"
#include "reference/reference.hpp"
#include "scoring/scoring.hpp"

namespace swat {
namespace {

using residues = std::vector<std::uint8_t>;

std::string text(const best_cell& c) {
  return std::to_string(c.score) + "@(" + std::to_string(c.query_end) + "," + std::to_string(c.target_end) + ")";
}

best_cell reference_best(const residues& q, const residues& t, const scoring_scheme& scheme) {
  return reference::find_best(reference::fill(q, t, scheme));
}

//! Lane widths this CPU runs.
std::vector<int> lane_widths() {
  std::vector<int> w;
  for (const int lanes : {32, 64})
    if (lanes <= cpu::interseq_lanes()) w.push_back(lanes);
  return w;
}

//! Scores query against targets in calls of `per_call` targets (default: `lanes`; more pack
//! several targets into a lane one after the other) and checks every target against the
//! reference: exact where not saturated, saturated exactly where the true best reaches the limit.
void check_batches(const residues& query, const std::vector<residues>& targets, const scoring_scheme& scheme,
                   int lanes, const std::string& what, int* saturated_seen = nullptr, std::size_t per_call = 0) {
  const cpu::interseq_scheme s = cpu::make_interseq_scheme(scheme, scheme.size());
  ASSERT_TRUE(s.fits) << what;
  cpu::interseq_scratch scratch;
  if (per_call == 0) per_call = std::size_t(lanes);
  for (std::size_t first = 0; first < targets.size(); first += per_call) {
    const std::size_t count = std::min(targets.size() - first, per_call);
    std::vector<residue_span> spans;
    for (std::size_t k = 0; k < count; ++k) spans.push_back(targets[first + k]);
    std::vector<best_cell> out(count);
    std::vector<std::int64_t> first_saturated(count);
    const std::size_t saturated = cpu::score_interseq8(query, spans, s, lanes, scratch, out, first_saturated);
    EXPECT_EQ(saturated, std::size_t(std::count_if(first_saturated.begin(), first_saturated.end(),
                                                   [](std::int64_t c) { return c >= 0; })));
    for (std::size_t k = 0; k < count; ++k) {
      const best_cell want = reference_best(query, targets[first + k], scheme);
      const bool sat = first_saturated[k] >= 0;
      ASSERT_EQ(sat, want.score >= s.limit) << what << " lane " << k << " want " << text(want);
      if (sat && saturated_seen) ++*saturated_seen;
      if (!sat) {
        ASSERT_EQ(text(out[k]), text(want)) << what << " lanes " << lanes << " lane " << k << " m=" << query.size()
                                            << " n=" << targets[first + k].size();
      }
    }
  }
}

std::size_t pick_length(std::mt19937& rng) {
  static const std::size_t lengths[] = {1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 129, 300};
  return lengths[std::uniform_int_distribution<std::size_t>(0, std::size(lengths) - 1)(rng)];
}

TEST(cpu_interseq, random_targets_of_mixed_lengths) {
  if (lane_widths().empty()) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(33);
  const std::vector<scoring_scheme> schemes = {
      test::dna_scheme(), test::dna_scheme(1, -1, 0, 1), test::dna_scheme(2, -3, 4, 0),
      test::dna_scheme(5, -4, 200, 100),  // gap costs beyond 8 bits: capped, same scores
      // o + e = 127, the most the signed offset lanes take, and 128 and e = 128 (unsigned lanes)
      test::dna_scheme(20, -9, 120, 7), test::dna_scheme(20, -9, 121, 7), test::dna_scheme(20, -9, 0, 128),
      test::protein_scheme(1, 11, 1), test::protein_scheme(2, 0, 1), test::protein_scheme(3, 40, 3),
      scoring::make_protein_scheme("BLOSUM62", 11, 1), scoring::make_protein_scheme("PAM30", 9, 1)};
  for (const int lanes : lane_widths())
    for (std::size_t k = 0; k < schemes.size(); ++k) {
      const scoring_scheme& s = schemes[k];
      const int alphabet = s.size();
      for (int round = 0; round < 3; ++round) {
        const residues query = test::random_residues(rng, pick_length(rng) + std::size_t(round) * 70, alphabet);
        std::vector<residues> targets;
        const std::size_t count = std::uniform_int_distribution<std::size_t>(1, std::size_t(lanes) + 5)(rng);
        for (std::size_t t = 0; t < count; ++t) {
          residues target = test::random_residues(rng, pick_length(rng), alphabet);
          if (t % 4 == 1 && query.size() > 4)  // a related target: a long alignment
            target = test::mutate(rng, residues(query.begin() + 2, query.end()), alphabet, 0.15);
          if (target.empty()) target.push_back(0);
          targets.push_back(std::move(target));
        }
        check_batches(query, targets, s, lanes, s.matrix_name + " scheme " + std::to_string(k));
      }
    }
}

//! Several targets a lane (lane_run): calls of up to five lanes' worth of targets of mixed
//! lengths (1 to 300 residues, related and unrelated, periodic ones full of ties, saturating
//! ones), so that a lane's next target starts right where its last ended, on every pass column
//! offset; every target's best cell (or saturation) is the reference's.
TEST(cpu_interseq, packed_lanes_score_each_target_from_its_own_start) {
  if (lane_widths().empty()) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(38);
  const std::vector<scoring_scheme> schemes = {test::dna_scheme(), test::dna_scheme(2, -2, 1, 1),
                                               scoring::make_protein_scheme("BLOSUM62", 11, 1),
                                               test::protein_scheme(9, 11, 1)};
  for (const int lanes : lane_widths())
    for (std::size_t k = 0; k < schemes.size(); ++k) {
      const scoring_scheme& s = schemes[k];
      const int alphabet = s.size();
      const residues query = test::random_residues(rng, 40 + 50 * k, alphabet);
      std::vector<residues> targets;
      const std::size_t count = std::size_t(lanes) * 5 - 3;
      for (std::size_t t = 0; t < count; ++t) {
        residues target = test::random_residues(rng, pick_length(rng), alphabet);
        if (t % 7 == 1) target = test::mutate(rng, query, alphabet, 0.1);   // related (maybe saturating)
        if (t % 7 == 3) target = residues(query.begin() + 3, query.end());  // identical piece: saturates with 9/hit
        if (t % 7 == 5)                                                       // periodic: ties everywhere
          for (std::size_t x = 0; x < target.size(); ++x) target[x] = std::uint8_t(x % 2);
        if (target.empty()) target.push_back(0);
        targets.push_back(std::move(target));
      }
      int seen = 0;
      check_batches(query, targets, s, lanes, s.matrix_name + " packed " + std::to_string(k), &seen, count);
      check_batches(query, targets, s, lanes, s.matrix_name + " packed by 2 " + std::to_string(k), nullptr,
                    std::size_t(lanes) * 2 + 1);
      if (k == 3) {
        EXPECT_GT(seen, 0) << "no packed target saturated";
      }
    }
}

//! The packing: longest first into the lane that ends soonest, runs starting on the pass's
//! columns; many targets take about Σ lengths / lanes columns, a long one at least its length.
TEST(cpu_interseq, packed_columns) {
  EXPECT_EQ(cpu::packed_columns(std::vector<std::int64_t>(64, 100), 64), 100);
  EXPECT_EQ(cpu::packed_columns(std::vector<std::int64_t>(128, 100), 64), 200);   // 100 is a multiple of 4
  EXPECT_EQ(cpu::packed_columns(std::vector<std::int64_t>(128, 101), 64), 205);   // 101 padded to 104
  EXPECT_EQ(cpu::packed_columns(std::vector<std::int64_t>(64, 99), 32), 199);     // pairs of 99 → 100 + 99
  std::vector<std::int64_t> one_long(200, 50);
  one_long[7] = 5000;
  EXPECT_EQ(cpu::packed_columns(one_long, 64), 5000);
}

//! Periodic sequences: many cells reach the best score, in many columns and rows.
TEST(cpu_interseq, low_complexity_ties) {
  if (lane_widths().empty()) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(34);
  const scoring_scheme schemes[] = {test::dna_scheme(), test::dna_scheme(1, -1, 0, 1), test::dna_scheme(2, -2, 1, 1)};
  const std::vector<residues> units = {{0}, {0, 1}, {0, 1, 2}, {0, 0, 1}, {4}, {2, 4}};
  auto periodic = [](std::size_t n, const residues& unit) {
    residues r(n);
    for (std::size_t k = 0; k < n; ++k) r[k] = unit[k % unit.size()];
    return r;
  };
  for (const int lanes : lane_widths())
    for (int round = 0; round < 12; ++round) {
      const residues query = periodic(1 + pick_length(rng) % 90, units[std::size_t(round) % units.size()]);
      std::vector<residues> targets;
      for (int t = 0; t < lanes; ++t) {
        residues target = periodic(1 + pick_length(rng) % 90, units[std::size_t(t) % units.size()]);
        if (t % 5 == 0) target[target.size() / 2] = 3;  // a break in the period
        targets.push_back(std::move(target));
      }
      check_batches(query, targets, schemes[round % 3], lanes, "periodic round " + std::to_string(round));
    }
}

//! Long identical and near-identical pairs with high match scores saturate 8 bits: those lanes
//! are reported (and only those), beside lanes that stay just below the limit.
TEST(cpu_interseq, saturating_lanes_are_reported) {
  if (lane_widths().empty()) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(35);
  for (const int lanes : lane_widths()) {
    int seen = 0;
    for (const scoring_scheme& s : {test::dna_scheme(), test::dna_scheme(20, -30, 5, 2), test::protein_scheme(9, 11, 1)}) {
      const int alphabet = s.size();
      const residues query = test::random_residues(rng, 400, alphabet);
      std::vector<residues> targets;
      for (int t = 0; t < lanes; ++t) {
        // Identical stretches of every length around the limit (scores near 255), and some
        // unrelated targets.
        const std::size_t len = t % 3 == 2 ? 200 : std::size_t(1 + t * 7 % 160);
        residues target = t % 3 == 2 ? test::random_residues(rng, len, alphabet)
                                     : residues(query.begin() + 10, query.begin() + 10 + std::ptrdiff_t(len));
        targets.push_back(std::move(target));
      }
      check_batches(query, targets, s, lanes, s.matrix_name + " saturating", &seen);
    }
    EXPECT_GT(seen, 0) << "no lane saturated: the test lost its point";
  }
}

//! The engine's score_many (plan, batches, rescoring of saturated lanes, pairs) equals the
//! reference for every lane width and with the inter-sequence pass off, on jobs of several
//! queries, empty sides and saturating pairs, on one and several threads.
TEST(cpu_interseq, score_many_matches_reference) {
  std::mt19937 rng(36);
  const scoring_scheme s = test::dna_scheme();
  std::vector<residues> queries, targets;
  for (int q = 0; q < 4; ++q) queries.push_back(test::random_residues(rng, q == 3 ? 0 : 50 + 60 * std::size_t(q), 4));
  for (int t = 0; t < 90; ++t) {
    residues target = test::random_residues(rng, pick_length(rng), 5);
    if (t % 10 == 0) target = test::mutate(rng, queries[std::size_t(t / 10) % 3], 4, 0.02);  // saturates
    if (t == 7) target.clear();
    targets.push_back(std::move(target));
  }
  std::vector<pair_job> jobs;
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (std::size_t t = 0; t < targets.size(); ++t) jobs.push_back({q, t, queries[q], targets[t]});
  std::vector<best_cell> want(jobs.size());
  for (std::size_t k = 0; k < jobs.size(); ++k)
    want[k] = reference_best(queries[jobs[k].query_index], targets[jobs[k].target_index], s);
  std::vector<int> widths = lane_widths();
  widths.push_back(0);
  for (const int lanes : widths)
    for (const unsigned threads : {1u, 3u}) {
      cpu_engine eng(threads);
      eng.set_interseq_lanes(lanes);
      std::vector<best_cell> got(jobs.size());
      std::uint64_t cells = 0;
      eng.score_many(jobs, s, got, [&](std::uint64_t c) { cells += c; });
      for (std::size_t k = 0; k < jobs.size(); ++k)
        ASSERT_EQ(text(got[k]), text(want[k])) << "lanes " << lanes << " threads " << threads << " job " << k;
    }
}

//! Pairs past the 16-bit passes wait for the pool and share its threads for their 32-bit pass
//! (on 4 threads or more; with 2 they run at once in the pool): the tiles' pass where a pair gets
//! 4 or more threads, else the striped one. A scheme of six letters (36 score entries: the row
//! bands, which take 32, never run) whose scores fit the 8-bit lanes (100/−27) but whose copies
//! of a 1,000-residue query score past 65,408 (past the 16-bit passes too), among 80 targets of
//! 1.2-2.8 kb that batches take (on up to 8 threads: on 16 the pairs alone end sooner); a copy far
//! into its target (its window cut at the first saturated column: extend 200, a reach of 1,500
//! columns). Three copies on 8 threads get 2 threads each (the striped pass), one copy all 8
//! (the tiles). The best cells equal the reference's, and every cell is reported once.
TEST(cpu_interseq, pairs_past_sixteen_bits_get_the_spare_threads_for_their_32_bit_pass) {
  if (lane_widths().empty()) GTEST_SKIP() << "no inter-sequence lanes on this CPU";
  std::mt19937 rng(38);
  scoring_scheme s = test::protein_scheme(1, 100, 200);
  for (int a = 0; a < protein_size; ++a)
    for (int b = 0; b < protein_size; ++b) s.matrix[a * matrix_stride + b] = a == b ? 100 : -27;
  const residues query = test::random_residues(rng, 1000, 6);
  std::vector<residues> others, copies;
  for (int k = 0; k < 80; ++k) others.push_back(test::random_residues(rng, 1200 + 20 * std::size_t(k), 6));
  for (const std::size_t flank : {std::size_t(2000), std::size_t(0), std::size_t(700)}) {
    residues t = test::random_residues(rng, flank, 6);
    const residues copy = test::mutate(rng, query, 6, 0.01);
    t.insert(t.end(), copy.begin(), copy.end());
    copies.push_back(std::move(t));
  }
  std::vector<best_cell> want_others, want_copies;
  for (const residues& t : others) want_others.push_back(reference_best(query, t, s));
  for (const residues& t : copies) {
    want_copies.push_back(reference_best(query, t, s));
    ASSERT_GT(want_copies.back().score, 65408) << "the copies must pass the 16-bit passes";
  }
  for (const std::size_t with : {std::size_t(3), std::size_t(1)}) {  // copies among the others
    std::vector<pair_job> jobs;
    std::vector<best_cell> want;
    std::uint64_t cells = 0;
    for (std::size_t t = 0; t < others.size() + with; ++t) {
      const residues& target = t < others.size() ? others[t] : copies[t - others.size()];
      jobs.push_back({0, t, query, target});
      want.push_back(t < others.size() ? want_others[t] : want_copies[t - others.size()]);
      cells += std::uint64_t(query.size()) * target.size();
    }
    const cpu::score_plan plan = cpu::plan_scores(jobs, s, lane_widths().front(), 8, std::size_t(1) << 30);
    ASSERT_TRUE(std::all_of(plan.items.begin(), plan.items.end(),
                            [](const cpu::score_item& it) { return it.kind == cpu::item_kind::batch; }))
        << "the copies must reach the 8-bit lanes";
    for (const unsigned threads : {2u, 4u, 8u}) {
      cpu_engine eng(threads);
      std::vector<best_cell> got(jobs.size());
      std::atomic<std::uint64_t> done{0};
      eng.score_many(jobs, s, got, [&](std::uint64_t c) { done += c; });
      const std::string what = std::to_string(with) + " copies, " + std::to_string(threads) + " threads";
      EXPECT_EQ(done.load(), cells) << what;
      for (std::size_t t = 0; t < jobs.size(); ++t) ASSERT_EQ(text(got[t]), text(want[t])) << what << ", target " << t;
      EXPECT_EQ(eng.wide_passes(), threads >= 4 ? with : 0u) << what;
      EXPECT_EQ(eng.wide_tiled_passes(), threads / with >= 4 ? with : 0u) << what;
    }
  }
}

//! A few long pairs run in row bands (cpu_bands.hpp), which go on in 16 and 32 bits across their
//! hits: copies of a 1,200-residue query far into 12-25 kb targets (one at the start, one at the
//! end, two equal copies: the tie rule's first), in a scheme whose copies pass 16 bits too, on 1
//! and 16 threads: the reference's best cells.
TEST(cpu_interseq, row_bands_score_hits_past_8_and_16_bits) {
  if (lane_widths().empty()) GTEST_SKIP() << "no inter-sequence lanes on this CPU";
  std::mt19937 rng(39);
  for (const scoring_scheme& s : {test::dna_scheme(), test::dna_scheme(60, -60, 100, 60)}) {
    const residues query = test::random_residues(rng, 1200, 4);
    std::vector<residues> targets;
    const auto with_copies = [&](std::size_t n, std::initializer_list<std::size_t> at) {
      residues t = test::random_residues(rng, n, 4);
      const residues c = test::mutate(rng, query, 4, 0.01);  // one copy: two places tie exactly
      for (const std::size_t a : at)
        for (std::size_t k = 0; k < c.size() && a + k < t.size(); ++k) t[a + k] = c[k];
      return t;
    };
    targets.push_back(with_copies(18000, {13000}));
    targets.push_back(with_copies(25000, {0}));
    targets.push_back(with_copies(12000, {12000 - 1200}));
    targets.push_back(with_copies(24000, {5000, 18000}));
    std::vector<pair_job> jobs;
    for (std::size_t t = 0; t < targets.size(); ++t) jobs.push_back({0, t, query, targets[t]});
    const cpu::score_plan plan = cpu::plan_scores(jobs, s, lane_widths().front(), 4, std::size_t(1) << 30);
    ASSERT_TRUE(std::all_of(plan.items.begin(), plan.items.end(),
                            [](const cpu::score_item& it) { return it.kind == cpu::item_kind::bands; }))
        << "the long pairs must run in row bands";
    std::vector<best_cell> want;
    for (const residues& t : targets) want.push_back(reference_best(query, t, s));
    for (const unsigned threads : {1u, 16u}) {
      cpu_engine eng(threads);
      std::vector<best_cell> got(jobs.size());
      eng.score_many(jobs, s, got, {});
      for (std::size_t t = 0; t < targets.size(); ++t)
        EXPECT_EQ(text(got[t]), text(want[t])) << "match " << s.max_score() << ", " << threads << " threads, target " << t;
    }
  }
}

//! Saturated lanes are rescored from a little before the column where their 8-bit best first
//! reached the limit (less the query's reach bound): copies of the query far into long targets,
//! two equal copies (the tie rule's first), a better copy after a saturating one, a copy at the
//! target's end, one at its start (nothing cut), equal to the reference's best cells.
TEST(cpu_interseq, saturated_lanes_rescored_from_their_first_saturated_column) {
  if (lane_widths().empty()) GTEST_SKIP() << "no inter-sequence lanes on this CPU";
  std::mt19937 rng(37);
  const scoring_scheme s = test::dna_scheme();  // reach of a 300-residue query: 601 columns
  const residues query = test::random_residues(rng, 300, 4);
  std::vector<residues> targets;
  const auto with_copies = [&](std::size_t n, const std::vector<std::pair<std::size_t, double>>& copies) {
    residues t = test::random_residues(rng, n, 4);
    for (const auto& [at, rate] : copies) {
      const residues c = rate > 0 ? test::mutate(rng, query, 4, rate) : query;
      for (std::size_t k = 0; k < c.size() && at + k < t.size(); ++k) t[at + k] = c[k];
    }
    return t;
  };
  targets.push_back(with_copies(3000, {{1800, 0.0}}));
  targets.push_back(with_copies(4000, {{1500, 0.0}, {3000, 0.0}}));     // equal copies: the first
  targets.push_back(with_copies(4000, {{1200, 0.05}, {3200, 0.0}}));    // a better copy later
  targets.push_back(with_copies(2500, {{2200, 0.0}}));                  // at the end
  targets.push_back(with_copies(2500, {{0, 0.0}}));                     // at the start
  targets.push_back(with_copies(5000, {{900, 0.02}, {2600, 0.02}, {4400, 0.01}}));
  // Enough targets that the plan scores them in batches of lanes (cpu_interseq.plan_choices).
  for (int k = 0; k < 120; ++k) targets.push_back(test::random_residues(rng, 1000 + 30 * std::size_t(k), 4));
  std::vector<pair_job> jobs;
  for (std::size_t t = 0; t < targets.size(); ++t) jobs.push_back({0, t, query, targets[t]});
  for (const int lanes : lane_widths()) {
    const cpu::score_plan plan = cpu::plan_scores(jobs, s, lanes, 1, std::size_t(1) << 30);
    ASSERT_TRUE(std::all_of(plan.items.begin(), plan.items.end(),
                            [](const cpu::score_item& it) { return it.kind == cpu::item_kind::batch; }))
        << "lanes " << lanes << ": the copies must be scored in batches";
    cpu_engine eng(1);
    eng.set_interseq_lanes(lanes);
    std::vector<best_cell> got(jobs.size());
    eng.score_many(jobs, s, got, {});
    int saturated = 0;
    for (std::size_t t = 0; t < targets.size(); ++t) {
      const best_cell want = reference_best(query, targets[t], s);
      saturated += want.score >= 250;
      EXPECT_EQ(text(got[t]), text(want)) << "lanes " << lanes << " target " << t;
    }
    EXPECT_GE(saturated, 6) << "the copies must saturate 8 bits";
  }
}

TEST(cpu_interseq, plan_order_groups_each_query_and_sorts_its_targets_longest_first) {
  // Jobs of two queries in three runs (a, b, a again), targets of repeated lengths: the plan's
  // order is by query, then target length (longest first), then job, whatever the runs.
  const scoring_scheme s = test::dna_scheme();
  const residues a(150, 1), b(90, 2);
  std::vector<residues> targets;
  for (const std::size_t length : {40, 300, 40, 120, 300, 7}) targets.emplace_back(length, 3);
  std::vector<pair_job> jobs;
  for (const residues* q : {&a, &b, &a})
    for (std::size_t t = 0; t < targets.size(); ++t) jobs.push_back({q == &b ? 1u : 0u, t, *q, targets[t]});
  const cpu::score_plan plan = cpu::plan_scores(jobs, s, 32, 1, std::size_t(1) << 30);
  std::vector<std::size_t> expected(jobs.size());
  for (std::size_t k = 0; k < expected.size(); ++k) expected[k] = k;
  std::sort(expected.begin(), expected.end(), [&](std::size_t x, std::size_t y) {
    const residue_span qx = jobs[x].query, qy = jobs[y].query;
    if (qx.data() != qy.data()) return std::less<const std::uint8_t*>()(qx.data(), qy.data());
    if (jobs[x].target.size() != jobs[y].target.size()) return jobs[x].target.size() > jobs[y].target.size();
    return x < y;
  });
  EXPECT_EQ(plan.order, expected);
  std::vector<std::size_t> covered;
  for (const cpu::score_item& it : plan.items)
    for (std::size_t k = it.first; k < it.first + it.count; ++k) covered.push_back(k);
  std::sort(covered.begin(), covered.end());
  for (std::size_t k = 0; k < covered.size(); ++k) ASSERT_EQ(covered[k], k) << "each job in one item";
  // A rank beyond the scheme's in a target that recurs with every query, or in the last run's
  // query alone, still widens the 8-bit table.
  targets[5][3] = std::uint8_t(s.size() + 2);
  jobs.clear();
  for (const residues* q : {&a, &b})
    for (std::size_t t = 0; t < targets.size(); ++t) jobs.push_back({0, t, *q, targets[t]});
  EXPECT_EQ(cpu::plan_scores(jobs, s, 32, 1, std::size_t(1) << 30).scheme8.target_ranks, s.size() + 3);
  targets[5][3] = 3;
  const residues c = [&] {
    residues r = b;
    r[10] = std::uint8_t(s.size() + 4);
    return r;
  }();
  jobs.clear();
  for (const residues* q : {&a, &c})
    for (std::size_t t = 0; t < targets.size(); ++t) jobs.push_back({0, t, *q, targets[t]});
  EXPECT_EQ(cpu::plan_scores(jobs, s, 32, 1, std::size_t(1) << 30).scheme8.query_ranks, s.size() + 5);
}

//! The plan: many targets of one query go in batches; a few long pairs on many threads stay
//! pairs (batches would leave threads idle); schemes beyond 8 bits never batch.
TEST(cpu_interseq, plan_choices) {
  const scoring_scheme s = test::dna_scheme();
  std::vector<residues> targets(256, residues(300, 1));
  const residues query(200, 2);
  std::vector<pair_job> jobs;
  for (std::size_t t = 0; t < targets.size(); ++t) jobs.push_back({0, t, query, targets[t]});
  const cpu::score_plan many = cpu::plan_scores(jobs, s, 32, 2, std::size_t(1) << 30);
  EXPECT_EQ(many.lanes, 32);
  EXPECT_EQ(many.items.size(), 8u);  // 256 / 32 batches
  // 40 pairs: two batches (32 + 8 lanes) cost less than the pairs, and finish first on 2
  // threads; on 16 threads the pairs spread where the two batches cannot.
  const std::vector<pair_job> few(jobs.begin(), jobs.begin() + 40);
  EXPECT_EQ(cpu::plan_scores(few, s, 32, 2, std::size_t(1) << 30).lanes, 32);
  EXPECT_EQ(cpu::plan_scores(few, s, 32, 16, std::size_t(1) << 30).lanes, 0);
  EXPECT_EQ(cpu::plan_scores(few, s, 32, 16, std::size_t(1) << 30).items.size(), 40u);
  // 27 targets: one batch of 32 lanes costs about half one of 64 (where both run).
  if (cpu::interseq_lanes() == 64) {
    const std::vector<pair_job> some(jobs.begin(), jobs.begin() + 27);
    const cpu::score_plan p = cpu::plan_scores(some, s, 64, 1, std::size_t(1) << 30);
    ASSERT_EQ(p.items.size(), 1u);
    EXPECT_EQ(p.items[0].lanes, 32);
    EXPECT_EQ(cpu::plan_scores(jobs, s, 64, 1, std::size_t(1) << 30).items[0].lanes, 64);
  }
  // One long target among many short ones, on 16 threads: its lane alone would set the makespan,
  // so it runs alone (the striped passes: the query is too short for row bands); the short ones
  // in batches (a lane width each: the cost cap).
  std::vector<pair_job> with_long;
  const residues longest(20000, 1);
  with_long.push_back({0, 0, query, longest});
  for (std::size_t t = 0; t < 999; ++t) with_long.push_back({0, t + 1, query, targets[t % targets.size()]});
  const cpu::score_plan lp = cpu::plan_scores(with_long, s, 32, 16, std::size_t(1) << 30);
  std::size_t alone = 0, batched = 0;
  for (const cpu::score_item& it : lp.items) {
    if (it.kind != cpu::item_kind::batch) {
      ++alone;
      EXPECT_EQ(lp.order[it.first], 0u) << "the long target runs alone";
    } else {
      EXPECT_LE(it.count, 32u);
      batched += it.count;
    }
  }
  EXPECT_EQ(alone, 1u);
  EXPECT_EQ(batched, 999u);
  // Too little memory for a batch: pairs.
  EXPECT_EQ(cpu::plan_scores(jobs, s, 32, 2, 1000).lanes, 0);
  EXPECT_EQ(cpu::plan_scores(jobs, s, 0, 2, std::size_t(1) << 30).lanes, 0);
  EXPECT_FALSE(cpu::make_interseq_scheme(test::dna_scheme(100, -100, 5, 2), 5).fits);
  EXPECT_EQ(cpu::plan_scores(jobs, test::dna_scheme(100, -100, 5, 2), 32, 2, std::size_t(1) << 30).lanes, 0);
}

}  // namespace
}  // namespace swat

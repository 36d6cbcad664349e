// The statistics of one search (pipeline/search_stats.hpp): which method --stats auto chooses
// per scheme and database size, the notices, the fits settled from scanned best cells (the better
// strand's score), and the report rule (--min-score, --evalue) of each method.

#include "pipeline/search_stats.hpp"
#include "pipeline/align_pipeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "scoring/karlin.hpp"
#include "scoring/scoring.hpp"

namespace swat::pipeline {
namespace {

using scoring::evalue_method;
using scoring::stats_choice;

//! Uniform in [0, 1) from 53 bits (the same numbers with every standard library).
double uniform(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

//! Protein records of these lengths, residues drawn from the 20 standard amino acids.
sequence_set protein_set(std::mt19937_64& rng, const std::vector<std::uint64_t>& lengths) {
  static constexpr std::string_view amino = "ACDEFGHIKLMNPQRSTVWY";
  sequence_set set;
  set.alphabet = alphabet_kind::protein;
  for (std::uint64_t n : lengths) {
    sequence_record r;
    r.name = "seq" + std::to_string(set.records.size());
    for (std::uint64_t i = 0; i < n; ++i) r.residues.push_back(std::uint8_t(amino[rng() % amino.size()] - 'A'));
    set.records.push_back(std::move(r));
  }
  return set;
}

//! 600 targets of 50 … 3,000 residues (log-uniform) and queries of 90, 300 and 1,200.
struct search {
  sequence_set queries, targets;
  explicit search(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> lengths(600);
    for (std::uint64_t& n : lengths) n = std::uint64_t(std::lround(50 * std::exp(uniform(rng) * std::log(60.0))));
    targets = protein_set(rng, lengths);
    queries = protein_set(rng, {90, 300, 1200});
  }
  //! Best cells of an unrelated scan, cells[q · targets + t]: rounded Gumbel scores with
  //! λ = 0.27, K = 0.04 (the null of a logarithmic-regime scheme), floored at 0.
  std::vector<best_cell> null_cells(std::mt19937_64& rng) const {
    const std::size_t nt = targets.records.size();
    std::vector<best_cell> cells(queries.records.size() * nt);
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const double m = double(queries.records[i / nt].residues.size());
      const double n = double(targets.records[i % nt].residues.size());
      const double x = (std::log(0.04 * m * n) - std::log(-std::log(1 - uniform(rng)))) / 0.27;
      cells[i].score = std::max<std::int32_t>(0, std::int32_t(std::lround(x)));
      cells[i].query_end = cells[i].target_end = cells[i].score > 0;
    }
    return cells;
  }
  std::uint64_t residues() const {
    std::uint64_t n = 0;
    for (const sequence_record& r : targets.records) n += r.residues.size();
    return n;
  }
};

scoring_scheme blosum62(int open, int extend) { return scoring::make_protein_scheme("BLOSUM62", open, extend); }

//! BLOSUM62's scores under another name, as from --matrix-file: NCBI's lambda and K with the
//! classic formula (the built-in matrix gets Spouge's correction, as blastp).
scoring_scheme blosum62_file(int open, int extend) {
  scoring_scheme s = blosum62(open, extend);
  s.matrix_name = "blosum62.txt";
  return s;
}

//! A scheme without a logarithmic regime (gaps cost as little as a mismatch, nothing to open).
scoring_scheme cheap_dna() { return scoring::make_dna_scheme(1, -1, 0, 1); }

stats_request asking(stats_choice choice, bool evalue_given = false) {
  stats_request r;
  r.choice = choice;
  r.evalue_given = evalue_given;
  return r;
}

void expect_same_fits(const scoring::search_statistics& a, const scoring::search_statistics& b, std::size_t queries) {
  for (std::size_t q = 0; q < queries; ++q) {
    ASSERT_TRUE(a.fit_of(q) && b.fit_of(q));
    EXPECT_EQ(a.fit_of(q)->location, b.fit_of(q)->location) << q;
    EXPECT_EQ(a.fit_of(q)->scale, b.fit_of(q)->scale) << q;
    EXPECT_EQ(a.fit_of(q)->threshold, b.fit_of(q)->threshold) << q;
    EXPECT_EQ(a.fit_of(q)->tail_fraction, b.fit_of(q)->tail_fraction) << q;
    EXPECT_EQ(a.fit_of(q)->beta, b.fit_of(q)->beta) << q;
    EXPECT_EQ(a.fit_of(q)->shape, b.fit_of(q)->shape) << q;
  }
}

//! rank_targets' specification: every candidate at or above the floor, sorted by score then
//! target (a stable sort), tested in that order until max_hits pass.
std::vector<std::size_t> ranked_by_full_sort(std::span<const best_cell> cells, const report_rule& rule, std::size_t q,
                                             std::size_t max_hits) {
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < cells.size(); ++t)
    if (cells[t].score >= std::max(rule.lower[q], 1)) order.push_back(t);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cells[a].score > cells[b].score; });
  std::vector<std::size_t> kept;
  for (std::size_t t : order)
    if (kept.size() < max_hits && (!rule.passes || rule.passes(q, t, cells[t].score))) kept.push_back(t);
  return kept;
}

TEST(rank_targets, the_head_sorted_on_demand_equals_a_full_sort_then_the_test) {
  std::mt19937_64 rng(20261127);
  for (int round = 0; round < 200; ++round) {
    const std::size_t nt = std::uniform_int_distribution<std::size_t>(0, 3000)(rng);
    const int top = std::uniform_int_distribution<int>(1, 60)(rng);  // few distinct scores: many ties
    std::vector<best_cell> cells(nt);
    for (best_cell& c : cells) c.score = std::uniform_int_distribution<int>(0, top)(rng);
    report_rule rule;
    rule.lower = {std::uniform_int_distribution<int>(0, top)(rng)};
    const int kind = round % 3;  // no test; a test rejecting most; a test rejecting a few
    if (kind == 1) rule.passes = [](std::size_t, std::size_t t, std::int32_t) { return t % 7 == 3; };
    if (kind == 2) rule.passes = [](std::size_t, std::size_t t, std::int32_t s) { return (t + std::size_t(s)) % 5 != 0; };
    for (const std::size_t max_hits : {std::size_t(1), std::size_t(10), std::size_t(17), std::size_t(500), nt + 5}) {
      EXPECT_EQ(rank_targets(cells, rule, 0, max_hits), ranked_by_full_sort(cells, rule, 0, max_hits))
          << "round " << round << ", " << nt << " targets, max_hits " << max_hits;
    }
  }
}

TEST(plan_statistics, auto_prefers_ncbi_tables_then_a_fit_then_the_island_estimate) {
  for (std::size_t targets : {std::size_t(10), std::size_t(3000)}) {
    const stats_plan p = plan_statistics(asking(stats_choice::automatic), blosum62(11, 1), targets);
    ASSERT_EQ(p.method, evalue_method::analytic) << targets;
    EXPECT_EQ(p.analytic->source, scoring::karlin_source::ncbi_table);
    EXPECT_TRUE(p.no_statistics.empty());
  }
  EXPECT_EQ(plan_statistics(asking(stats_choice::automatic), blosum62(4, 2), 3000).method, evalue_method::empirical);
  EXPECT_EQ(plan_statistics(asking(stats_choice::automatic), blosum62(4, 2), scoring::min_fit_targets).method,
            evalue_method::empirical);
  const stats_plan few = plan_statistics(asking(stats_choice::automatic), blosum62(4, 2), 10);
  ASSERT_EQ(few.method, evalue_method::analytic);
  EXPECT_EQ(few.analytic->source, scoring::karlin_source::estimated);
}

TEST(plan_statistics, a_scheme_without_regime_or_fit_has_no_evalues) {
  const stats_plan p = plan_statistics(asking(stats_choice::automatic), cheap_dna(), 10);
  EXPECT_EQ(p.method, evalue_method::none);
  EXPECT_FALSE(p.no_statistics.empty());
  EXPECT_FALSE(p.no_analytic.empty());
  try {
    plan_statistics(asking(stats_choice::automatic, true), cheap_dna(), 10);
    ADD_FAILURE() << "an explicit --evalue without E-values was accepted";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("--evalue cannot be honoured"), std::string::npos) << e.what();
  }
  EXPECT_THROW(plan_statistics(asking(stats_choice::analytic), cheap_dna(), 3000), usage_error);
  EXPECT_NO_THROW(plan_statistics(asking(stats_choice::analytic), blosum62(11, 1), 10));
}

TEST(plan_statistics, explicit_choices) {
  for (const scoring_scheme& scheme : {blosum62(11, 1), blosum62(4, 2), cheap_dna()})
    for (std::size_t targets : {std::size_t(10), std::size_t(3000)}) {
      const stats_plan p = plan_statistics(asking(stats_choice::none), scheme, targets);
      EXPECT_EQ(p.method, evalue_method::none) << scheme.matrix_name << " " << targets;
      EXPECT_FALSE(p.no_statistics.empty());
    }
  const stats_plan few = plan_statistics(asking(stats_choice::empirical), blosum62(11, 1), 10);
  EXPECT_EQ(few.method, evalue_method::none);
  EXPECT_NE(few.no_statistics.find("500"), std::string::npos) << few.no_statistics;
  EXPECT_EQ(plan_statistics(asking(stats_choice::empirical), blosum62(11, 1), 3000).method, evalue_method::empirical);
  EXPECT_EQ(plan_statistics(asking(stats_choice::empirical), cheap_dna(), 3000).method, evalue_method::empirical);
}

TEST(stats_notice, says_how_evalues_are_computed) {
  EXPECT_EQ(stats_notice(plan_statistics(asking(stats_choice::automatic), blosum62(11, 1), 10)), "");
  EXPECT_NE(stats_notice(plan_statistics(asking(stats_choice::automatic), blosum62(4, 2), 10)), "");
  EXPECT_NE(stats_notice(plan_statistics(asking(stats_choice::automatic), blosum62(4, 2), 3000)).find("fitted"),
            std::string::npos);
  EXPECT_NE(stats_notice(plan_statistics(asking(stats_choice::none), blosum62(11, 1), 3000)).find("none"),
            std::string::npos);
}

TEST(rule_of, analytic_floor_is_blasts_per_query) {
  const search s(11);
  const stats_plan plan = plan_statistics(asking(stats_choice::automatic), blosum62_file(11, 1), s.targets.records.size());
  const scoring::search_statistics stats = settle_statistics(plan, s.queries, s.targets, {}, 1);
  ASSERT_EQ(stats.method(), evalue_method::analytic);
  const scoring::karlin_params& p = *stats.analytic_params();
  ASSERT_FALSE(p.gumbel);
  const std::uint64_t n = s.residues(), d = s.targets.records.size();
  for (std::int32_t min_score : {1, 40, 500})
    for (double evalue : {10.0, 1e-3}) {
      stats_request r;
      r.max_evalue = evalue;
      r.min_score = min_score;
      const report_rule rule = rule_of(stats, r, s.queries, s.targets, size_of_database(s.targets, {}, {}));
      EXPECT_FALSE(rule.exact);
      ASSERT_EQ(rule.lower.size(), 3u);
      for (std::size_t q = 0; q < 3; ++q) {
        const std::uint64_t m = s.queries.records[q].residues.size();
        const double space = scoring::effective_search_space(p, m, n, d);
        const std::int64_t blast = scoring::min_score_for_evalue(p, evalue, space);
        EXPECT_EQ(rule.lower[q], std::max<std::int64_t>(min_score, blast)) << "q " << q << " E " << evalue;
        EXPECT_LE(stats.ln_evalue(q, rule.lower[q], m, 100, n, d), std::log(evalue));
        if (rule.lower[q] > min_score) {
          EXPECT_GT(stats.ln_evalue(q, rule.lower[q] - 1, m, 100, n, d), std::log(evalue));
        }
      }
      if (min_score == 1 && evalue == 10.0) {
        EXPECT_LT(rule.lower[0], rule.lower[2]) << "a longer query needs a higher score for the same E";
      }
    }
  stats_request unlimited;
  unlimited.max_evalue = std::numeric_limits<double>::infinity();
  unlimited.min_score = 7;
  const report_rule rule = rule_of(stats, unlimited, s.queries, s.targets, size_of_database(s.targets, {}, {}));
  EXPECT_EQ(rule.lower, std::vector<std::int32_t>(3, 7));
  EXPECT_FALSE(rule.exact);
}

// The built-in BLOSUM62 takes Spouge's correction, whose E-value depends on the target's
// length: a floor per query below every target's, and each target's own floor exact.
TEST(rule_of, spouge_floor_covers_every_target_length) {
  const search s(12);
  const stats_plan plan = plan_statistics(asking(stats_choice::automatic), blosum62(11, 1), s.targets.records.size());
  const scoring::search_statistics stats = settle_statistics(plan, s.queries, s.targets, {}, 1);
  ASSERT_EQ(stats.method(), evalue_method::analytic);
  ASSERT_TRUE(stats.analytic_params()->gumbel);
  const std::uint64_t n = s.residues(), d = s.targets.records.size();
  for (std::int32_t min_score : {1, 60})
    for (double evalue : {10.0, 1e-3}) {
      SCOPED_TRACE("min score " + std::to_string(min_score) + ", E " + std::to_string(evalue));
      stats_request r;
      r.max_evalue = evalue;
      r.min_score = min_score;
      const report_rule rule = rule_of(stats, r, s.queries, s.targets, size_of_database(s.targets, {}, {}));
      ASSERT_TRUE(rule.exact);
      std::size_t wrong = 0;
      for (std::size_t q = 0; q < 3; ++q) {
        const std::uint64_t m = s.queries.records[q].residues.size();
        std::int32_t lowest_floor = INT32_MAX;
        for (std::size_t t = 0; t < d; ++t) {
          const std::int32_t floor = rule.floor(q, t);
          lowest_floor = std::min(lowest_floor, floor);
          const std::uint64_t len = s.targets.records[t].residues.size();
          for (std::int32_t score = std::max(0, floor - 5); score <= floor + 5; ++score) {
            const bool wanted = score >= min_score && stats.ln_evalue(q, score, m, len, n, d) <= std::log(evalue);
            if (rule.reports(q, t, score) != wanted && ++wrong <= 3)
              ADD_FAILURE() << "q " << q << " t " << t << " (length " << len << ") score " << score << ": floor " << floor
                            << ", lower " << rule.lower[q];
          }
        }
        EXPECT_LE(rule.lower[q], lowest_floor);
        EXPECT_GE(rule.lower[q], std::max(min_score, lowest_floor - 2));
      }
      EXPECT_EQ(wrong, 0u);
    }
}

//! Settles empirical statistics on null cells of search `seed` and checks rule_of against the
//! E-values, for a range of scores around every (query, target) floor: a score is never reported
//! beyond --evalue or below --min-score, the floor is at least lower[q], and a score the E-value
//! lets through is reported unless it is below lower[q] (none is, with every_hit).
void expect_empirical_rule(std::uint64_t seed, bool every_hit) {
  const search s(seed);
  std::mt19937_64 rng(seed + 100);
  const std::vector<std::vector<best_cell>> cells{s.null_cells(rng)};
  const stats_plan plan = plan_statistics(asking(stats_choice::automatic), blosum62(4, 2), s.targets.records.size());
  ASSERT_EQ(plan.method, evalue_method::empirical);
  const scoring::search_statistics stats = settle_statistics(plan, s.queries, s.targets, cells, 2);
  ASSERT_EQ(stats.method(), evalue_method::empirical);
  expect_same_fits(stats, settle_statistics(plan, s.queries, s.targets, cells, 1), 3);
  EXPECT_FALSE(stats.fit_of(3));
  const std::uint64_t n = s.residues(), d = s.targets.records.size();
  for (std::int32_t min_score : {1, 45})
    for (double evalue : {10.0, 0.01}) {
      SCOPED_TRACE("min score " + std::to_string(min_score) + ", E " + std::to_string(evalue));
      stats_request r;
      r.max_evalue = evalue;
      r.min_score = min_score;
      const report_rule rule = rule_of(stats, r, s.queries, s.targets, size_of_database(s.targets, {}, {}));
      ASSERT_TRUE(rule.exact);
      std::size_t wrong = 0, missed = 0, missed_pairs = 0;
      for (std::size_t q = 0; q < 3; ++q) {
        const std::uint64_t m = s.queries.records[q].residues.size();
        EXPECT_GE(rule.lower[q], min_score);
        for (std::size_t t = 0; t < d; ++t) {
          const std::int32_t floor = rule.floor(q, t);
          EXPECT_GE(floor, rule.lower[q]);
          const std::uint64_t len = s.targets.records[t].residues.size();
          const std::size_t missed_before = missed;
          for (std::int32_t score = std::max(0, floor - 20); score <= floor + 20; ++score) {
            const double ln_e = stats.ln_evalue(q, score, m, len, n, d);
            const bool wanted = score >= 1 && score >= min_score && ln_e <= std::log(evalue);
            const bool reported = rule.reports(q, t, score);
            missed += wanted && !reported;
            if (reported != wanted && (every_hit || reported || score >= rule.lower[q]) && ++wrong <= 3)
              ADD_FAILURE() << "q " << q << " t " << t << " (length " << len << ") score " << score << ": floor "
                            << floor << ", lower " << rule.lower[q] << ", ln E " << ln_e;
          }
          missed_pairs += missed > missed_before;
        }
      }
      EXPECT_EQ(wrong, 0u) << missed << " scores with E <= " << evalue << " not reported, in " << missed_pairs
                           << " of " << 3 * d << " pairs";
    }
}

TEST(settle_statistics, empirical_rule_never_reports_beyond_the_evalue) {
  for (std::uint64_t seed : {12, 20, 21}) {
    SCOPED_TRACE("search " + std::to_string(seed));
    expect_empirical_rule(seed, false);
  }
}

// Every hit within the E-value is reported, and the floors agree with it: these three searches
// have bins whose interquartile range falls with length, where a longer target's floor is below
// a shorter one's (a lower bound taken from the shortest target alone dropped 148 to 490 of
// their 1,800 pairs' hits; rule_of takes the smallest over the fit's breakpoints).
TEST(settle_statistics, empirical_rule_reports_every_hit_within_the_evalue) {
  for (std::uint64_t seed : {12, 20, 21}) {
    SCOPED_TRACE("search " + std::to_string(seed));
    expect_empirical_rule(seed, true);
  }
}

TEST(settle_statistics, two_strands_fit_the_better_score) {
  const search s(14);
  std::mt19937_64 rng(15);
  const std::vector<best_cell> a = s.null_cells(rng), b = s.null_cells(rng);
  std::vector<best_cell> better = a;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (b[i].score > a[i].score) better[i] = b[i];
  const stats_plan plan = plan_statistics(asking(stats_choice::empirical), blosum62(4, 2), s.targets.records.size());
  const auto settle = [&](const std::vector<std::vector<best_cell>>& cells) {
    return settle_statistics(plan, s.queries, s.targets, cells, 2);
  };
  expect_same_fits(settle({a, b}), settle({better}), 3);
  expect_same_fits(settle({b, a}), settle({better}), 3);
  EXPECT_NE(settle({a}).fit_of(1)->location, settle({better}).fit_of(1)->location) << "strand b changes nothing";
  EXPECT_THROW(settle({}), std::logic_error) << "empirical statistics without the scan's scores";
}

TEST(rule_of, none_reports_every_score_from_min_score) {
  const search s(16);
  const stats_plan plan = plan_statistics(asking(stats_choice::none), blosum62(11, 1), s.targets.records.size());
  const scoring::search_statistics stats = settle_statistics(plan, s.queries, s.targets, {}, 1);
  ASSERT_EQ(stats.method(), evalue_method::none);
  EXPECT_FALSE(stats.analytic_params());
  EXPECT_FALSE(stats.fit_of(0));
  EXPECT_TRUE(std::isnan(stats.ln_evalue(0, 100, 300, 300, s.residues(), 600)));
  EXPECT_TRUE(std::isnan(stats.bit_score(0, 100, 300, 300)));
  stats_request r;
  r.max_evalue = 1e-30;
  r.min_score = 12;
  const report_rule rule = rule_of(stats, r, s.queries, s.targets, size_of_database(s.targets, {}, {}));
  EXPECT_EQ(rule.lower, std::vector<std::int32_t>(3, 12));
  EXPECT_FALSE(rule.exact);
  EXPECT_FALSE(rule.reports(0, 0, 11));
  EXPECT_TRUE(rule.reports(0, 0, 12));
}

}  // namespace
}  // namespace swat::pipeline

// Empirical E-values (scoring/empirical.hpp) on synthetic searches whose null distribution is
// known: rounded Gumbel scores of the logarithmic regime (λ = 0.27, K = 0.04, a 300-residue
// query against 3,000 targets of 50 … 3,000 residues), the same with 0.5 % and 3 % relatives, the
// linear regime of cheap gaps (Normal scores around 0.6·min(m, n)), and degenerate inputs.

#include "scoring/empirical.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace swat::scoring {
namespace {

constexpr std::size_t database = 3000;                 //!< D, targets of the synthetic search
constexpr double lambda = 0.27, k_param = 0.04;        //!< the null's Karlin–Altschul parameters
constexpr double query_length = 300;                   //!< m, residues
constexpr std::array<double, 5> grid_lengths{60, 150, 400, 1000, 2500};

//! Uniform in [0, 1) from 53 bits (the same numbers with every standard library).
double uniform(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

//! Standard normal (Box–Muller; std::normal_distribution differs between libraries).
double normal(std::mt19937_64& rng) {
  const double u = 1 - uniform(rng), v = uniform(rng);
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::acos(-1.0) * v);
}

//! Target lengths (residues) log-uniform in 50 … 3,000.
std::vector<std::uint64_t> log_uniform_lengths(std::mt19937_64& rng) {
  std::vector<std::uint64_t> lengths(database);
  for (std::uint64_t& n : lengths)
    n = std::uint64_t(std::lround(std::exp(std::log(50.0) + uniform(rng) * std::log(3000.0 / 50.0))));
  return lengths;
}

//! Null best scores: Gumbel with location ln(K·m·n)/λ and scale 1/λ, rounded, floored at 0.
std::vector<std::int32_t> gumbel_scores(std::mt19937_64& rng, const std::vector<std::uint64_t>& lengths) {
  std::vector<std::int32_t> scores(lengths.size());
  for (std::size_t t = 0; t < lengths.size(); ++t) {
    const double x = std::log(k_param * query_length * double(lengths[t])) / lambda -
                     std::log(-std::log(1 - uniform(rng))) / lambda;
    scores[t] = std::max<std::int32_t>(0, std::int32_t(std::lround(x)));
  }
  return scores;
}

//! ln P(score ≥ s) of the rounded Gumbel against n residues: ln P(X ≥ s − 1/2).
double true_ln_pvalue(std::int64_t s, double n) {
  return std::log(-std::expm1(-k_param * query_length * n * std::exp(-lambda * (double(s) - 0.5))));
}

//! The smallest score whose true P-value against n residues is ≤ p.
std::int64_t score_at(double p, double n) {
  std::int64_t s = 0;
  while (true_ln_pvalue(s, n) > std::log(p)) ++s;
  return s;
}

//! Targets whose empirical E-value (D · p) is ≤ x.
std::size_t hits(const empirical_fit& fit, const std::vector<std::int32_t>& scores,
                 const std::vector<std::uint64_t>& lengths, double x) {
  std::size_t count = 0;
  for (std::size_t t = 0; t < scores.size(); ++t)
    count += std::log(double(scores.size())) + fit.ln_pvalue(scores[t], lengths[t]) <= std::log(x);
  return count;
}

//! Checks ln_pvalue over scores 0 … 400 and a few huge ones at these lengths: finite, ≤ 0, never
//! rising with the score, and (length_monotone) never falling as the length rises along them.
void expect_monotone(const empirical_fit& fit, const std::vector<std::uint64_t>& lengths, bool length_monotone) {
  std::vector<std::int64_t> scores;
  for (std::int64_t s = 0; s <= 400; ++s) scores.push_back(s);
  for (std::int64_t s : {1000, 100000, 2147483647}) scores.push_back(s);
  std::size_t failures = 0;
  for (std::size_t a = 0; a < lengths.size(); ++a)
    for (std::size_t b = 0; b < scores.size(); ++b) {
      const double p = fit.ln_pvalue(scores[b], lengths[a]);
      const bool ok = std::isfinite(p) && p <= 0 && (b == 0 || p <= fit.ln_pvalue(scores[b - 1], lengths[a])) &&
                      (!length_monotone || a == 0 || p >= fit.ln_pvalue(scores[b], lengths[a - 1]));
      if (!ok && ++failures <= 3)
        ADD_FAILURE() << "score " << scores[b] << " length " << lengths[a] << ": ln p " << p << " (shorter: "
                      << (a ? fit.ln_pvalue(scores[b], lengths[a - 1]) : 0.0) << ")";
    }
  EXPECT_EQ(failures, 0u);
}

TEST(length_bins, about_a_hundred_targets_a_bin) {
  for (auto [targets, bins] : std::vector<std::pair<std::size_t, std::size_t>>{
           {10, 2}, {500, 5}, {3000, 30}, {10000, 32}}) {
    const std::vector<std::uint64_t> lengths(targets, 100);
    EXPECT_EQ(length_bins(lengths).bins(), bins) << targets;
    EXPECT_EQ(length_bins(lengths).targets(), targets);
  }
}

// One fit of one query: per-target P-values against the truth. One fit is noisy far into the
// tail (each bin's median and interquartile range come from 100 targets, the tail's β from 150),
// so the check is on the median over 15 databases of the error at each grid point: within a
// factor 3, 6 and 15 at P = 1e-2, 1e-4, 1e-6 (the many-query test checks the bias to 2).
TEST(empirical_fit, log_regime_one_fit_follows_the_true_pvalue) {
  constexpr int seeds = 15;
  const std::array<double, 3> p{1e-2, 1e-4, 1e-6}, tolerance{std::log(3.0), std::log(6.0), std::log(15.0)};
  std::array<std::array<std::vector<double>, 3>, grid_lengths.size()> errors;
  for (int seed = 1; seed <= seeds; ++seed) {
    std::mt19937_64 rng{std::uint64_t(seed)};
    const std::vector<std::uint64_t> lengths = log_uniform_lengths(rng);
    const length_bins bins(lengths);
    empirical_fitter fitter(bins);
    const empirical_fit fit = fitter.fit(gumbel_scores(rng, lengths));
    for (std::size_t a = 0; a < grid_lengths.size(); ++a)
      for (std::size_t i = 0; i < p.size(); ++i) {
        const std::int64_t s = score_at(p[i], grid_lengths[a]);
        errors[a][i].push_back(std::abs(fit.ln_pvalue(s, std::uint64_t(grid_lengths[a])) - true_ln_pvalue(s, grid_lengths[a])));
      }
  }
  for (std::size_t a = 0; a < grid_lengths.size(); ++a)
    for (std::size_t i = 0; i < p.size(); ++i) {
      std::vector<double>& e = errors[a][i];
      std::nth_element(e.begin(), e.begin() + seeds / 2, e.end());
      EXPECT_LE(e[seeds / 2], tolerance[i]) << "n " << grid_lengths[a] << " true P " << p[i];
    }
}

// 200 queries, fresh scores each against one database: the hits with E ≤ x per query are x
// within a factor of 2 (measured 0.13, 1.2, 10.8 for x = 0.1, 1, 10), and averaged over the fits
// the per-target ln P is within ln 2 of the truth at every grid point, also beyond the longest
// target (measured |bias| ≤ 0.19 inside, 0.34 at twice and 0.50 at ten times the longest), so a
// factor-3 error anywhere fails.
TEST(empirical_fit, log_regime_is_calibrated_over_many_queries) {
  constexpr int queries = 200;
  std::mt19937_64 rng(1);
  const std::vector<std::uint64_t> lengths = log_uniform_lengths(rng);
  const length_bins bins(lengths);
  empirical_fitter fitter(bins);
  const std::array<double, 3> x{0.1, 1, 10}, p{1e-2, 1e-4, 1e-6};
  std::array<double, 3> count{};
  // The grid and beyond the longest target (2,999), where the location is extrapolated.
  const std::array<double, 7> probed{60, 150, 400, 1000, 2500, 6000, 30000};
  std::array<std::array<double, 3>, probed.size()> error{};
  for (int q = 0; q < queries; ++q) {
    const std::vector<std::int32_t> scores = gumbel_scores(rng, lengths);
    const empirical_fit fit = fitter.fit(scores);
    for (std::size_t i = 0; i < x.size(); ++i) count[i] += double(hits(fit, scores, lengths, x[i]));
    for (std::size_t a = 0; a < probed.size(); ++a)
      for (std::size_t i = 0; i < p.size(); ++i) {
        const std::int64_t s = score_at(p[i], probed[a]);
        error[a][i] += (fit.ln_pvalue(s, std::uint64_t(probed[a])) - true_ln_pvalue(s, probed[a])) / queries;
      }
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_GE(count[i] / queries, x[i] / 2) << "E <= " << x[i];
    EXPECT_LE(count[i] / queries, x[i] * 2) << "E <= " << x[i];
  }
  for (std::size_t a = 0; a < probed.size(); ++a)
    for (std::size_t i = 0; i < p.size(); ++i)
      EXPECT_LE(std::abs(error[a][i]), std::log(2.0))
          << "n " << probed[a] << " true P " << p[i] << " bias " << error[a][i];
}

// Relatives scoring 5–20 times the null median, added to a null: 0.5 % and 3 % of the targets.
// They lie beyond the outlier fence and are left out of the tail's fit, but they still move the
// bins' medians and interquartile ranges a little. Checked on the median over 9 databases: the
// fit's largest anti-conservative error against the truth is at most a factor 2 worse than the
// clean fit's, its P-values at most 4 (0.5 %) and 10 (3 %) times the clean fit's; and every
// relative is beyond E = 1e-3 by e^5 in every database.
TEST(empirical_fit, relatives_neither_hide_nor_fake_significance) {
  constexpr int seeds = 9;
  for (auto [every, bound] : {std::pair{std::size_t(200), 4.0}, std::pair{std::size_t(33), 10.0}}) {
    SCOPED_TRACE("a relative every " + std::to_string(every) + " targets");
    // Per seed: the largest shift from the clean fit, the smallest error against the truth of the
    // fit and of the clean fit, over the grid.
    std::vector<double> worst, best, clean_best;
    for (int seed = 1; seed <= seeds; ++seed) {
      std::mt19937_64 rng(std::uint64_t(seed) + 100);
      const std::vector<std::uint64_t> lengths = log_uniform_lengths(rng);
      const length_bins bins(lengths);
      empirical_fitter fitter(bins);
      const std::vector<std::int32_t> null = gumbel_scores(rng, lengths);
      const empirical_fit clean = fitter.fit(null);
      std::vector<std::int32_t> scores = null;
      std::vector<std::size_t> relatives;
      for (std::size_t t = 0; t < database; t += every) {
        const double median = (std::log(k_param * query_length * double(lengths[t])) - std::log(std::log(2.0))) / lambda;
        scores[t] = std::int32_t(std::lround((5 + 15 * uniform(rng)) * median));
        relatives.push_back(t);
      }
      const empirical_fit fit = fitter.fit(scores);
      double high = -1e300, low = 1e300, clean_low = 1e300;
      for (double n : grid_lengths)
        for (double p : {1e-2, 1e-3, 1e-4}) {
          const std::int64_t s = score_at(p, n);
          const double got = fit.ln_pvalue(s, std::uint64_t(n)), was = clean.ln_pvalue(s, std::uint64_t(n));
          high = std::max(high, got - was);
          low = std::min(low, got - true_ln_pvalue(s, n));
          clean_low = std::min(clean_low, was - true_ln_pvalue(s, n));
        }
      worst.push_back(high);
      best.push_back(low);
      clean_best.push_back(clean_low);
      for (std::size_t t : relatives)
        EXPECT_LT(std::log(double(database)) + fit.ln_pvalue(scores[t], lengths[t]), std::log(1e-3) - 5)
            << "seed " << seed << " relative " << t << " length " << lengths[t] << " score " << scores[t];
    }
    for (auto* v : {&worst, &best, &clean_best}) std::sort(v->begin(), v->end());
    EXPECT_LE(worst[seeds / 2], std::log(bound)) << "median over databases of the most conservative shift";
    EXPECT_GE(best[seeds / 2], clean_best[seeds / 2] - std::log(2.0))
        << "median over databases of the most anti-conservative error (clean: " << clean_best[seeds / 2] << ")";
  }
}

//! Probe lengths: (below) 0 … the shortest target, (beyond) the longest target … 2^40, or
//! (across) both and log-spaced lengths between them.
enum class probe { below, beyond, across };
std::vector<std::uint64_t> probe_lengths(const std::vector<std::uint64_t>& lengths, probe where) {
  const auto [shortest, longest] = std::minmax_element(lengths.begin(), lengths.end());
  std::vector<std::uint64_t> out;
  if (where != probe::beyond) out = {0, 1, 2, 5, 10, 20, *shortest};
  for (std::uint64_t n = *shortest + 1; where == probe::across && n < *longest; n = n * 21 / 20 + 1) out.push_back(n);
  if (where != probe::below)
    for (std::uint64_t n : {*longest, 2 * *longest, 10 * *longest, std::uint64_t(1) << 20, std::uint64_t(1) << 40})
      out.push_back(n);
  return out;
}

// ln p falls with the score at every length, is finite and ≤ 0 everywhere, and does not fall as
// the length rises outside the targets' range (flat below the shortest, location rising beyond
// the longest).
TEST(empirical_fit, ln_pvalue_falls_with_score_and_is_finite_at_any_length) {
  std::mt19937_64 rng(4);
  const std::vector<std::uint64_t> lengths = log_uniform_lengths(rng);
  const length_bins bins(lengths);
  empirical_fitter fitter(bins);
  const empirical_fit fit = fitter.fit(gumbel_scores(rng, lengths));
  EXPECT_TRUE(std::is_sorted(fit.location.begin(), fit.location.end()));
  expect_monotone(fit, probe_lengths(lengths, probe::across), false);
  expect_monotone(fit, probe_lengths(lengths, probe::below), true);
  expect_monotone(fit, probe_lengths(lengths, probe::beyond), true);
}

TEST(empirical_fit, linear_regime_is_finite_monotone_and_roughly_calibrated) {
  constexpr int queries = 200;
  std::mt19937_64 rng(5);
  const std::vector<std::uint64_t> lengths = log_uniform_lengths(rng);
  const length_bins bins(lengths);
  empirical_fitter fitter(bins);
  std::vector<std::int32_t> scores(database);
  std::array<double, 2> count{};
  for (int q = 0; q < queries; ++q) {
    for (std::size_t t = 0; t < database; ++t) {
      const double shorter = std::min(query_length, double(lengths[t]));
      scores[t] = std::max(0, int(std::lround(0.6 * shorter + 1.5 * std::cbrt(shorter) * normal(rng))));
    }
    const empirical_fit fit = fitter.fit(scores);
    if (q == 0) {
      expect_monotone(fit, probe_lengths(lengths, probe::across), false);
      expect_monotone(fit, probe_lengths(lengths, probe::below), true);
      expect_monotone(fit, probe_lengths(lengths, probe::beyond), true);
    }
    count[0] += double(hits(fit, scores, lengths, 1)) / queries;
    count[1] += double(hits(fit, scores, lengths, 10)) / queries;
  }
  EXPECT_GE(count[0], 1 / 5.0);
  EXPECT_LE(count[0], 2.5);
  EXPECT_GE(count[1], 10 / 2.5);
  EXPECT_LE(count[1], 10 * 2.5);
}

// All scores 0, all equal, or just min_fit_targets targets: p-values stay finite and ≤ 0, and a
// score far above a constant null is significant.
TEST(empirical_fit, degenerate_scores_give_finite_pvalues) {
  std::mt19937_64 rng(6);
  const std::vector<std::uint64_t> lengths = log_uniform_lengths(rng);
  const length_bins bins(lengths);
  empirical_fitter fitter(bins);
  for (std::int32_t value : {0, 1, 42}) {
    SCOPED_TRACE("all scores " + std::to_string(value));
    const empirical_fit fit = fitter.fit(std::vector<std::int32_t>(database, value));
    EXPECT_TRUE(std::isfinite(fit.beta) && fit.beta > 0);
    expect_monotone(fit, probe_lengths(lengths, probe::across), false);
    EXPECT_LT(fit.ln_pvalue(value + 1000, 100), std::log(1e-6));
  }
  const std::vector<std::uint64_t> few(lengths.begin(), lengths.begin() + min_fit_targets);
  const length_bins few_bins(few);
  empirical_fitter few_fitter(few_bins);
  SCOPED_TRACE("min_fit_targets targets");
  const empirical_fit fit = few_fitter.fit(gumbel_scores(rng, few));
  expect_monotone(fit, probe_lengths(few, probe::across), false);
  expect_monotone(fit, probe_lengths(few, probe::below), true);
  expect_monotone(fit, probe_lengths(few, probe::beyond), true);
  const empirical_fit zeros = few_fitter.fit(std::vector<std::int32_t>(min_fit_targets, 0));
  expect_monotone(zeros, probe_lengths(few, probe::across), false);
}

}  // namespace
}  // namespace swat::scoring

namespace swat::scoring {
namespace {

// Pooling the tail over the queries of a search: one b and c for all, fitted to their
// exceedances together; the Gumbel null's tail is exponential (c near 1), a Normal null's lighter
// (c > 1.3 in IQR units); one fit stays as it is (c = 1).
TEST(empirical_fit, pooled_tails_share_one_form) {
  std::mt19937_64 rng(7);
  const std::vector<std::uint64_t> lengths = log_uniform_lengths(rng);
  const length_bins bins(lengths);
  empirical_fitter fitter(bins);
  std::vector<empirical_fit> fits, normal_fits;
  for (int q = 0; q < 20; ++q) {
    fits.push_back(fitter.fit(gumbel_scores(rng, lengths)));
    std::vector<std::int32_t> scores(lengths.size());
    for (std::int32_t& s : scores) s = std::int32_t(std::lround(200 + 20 * normal(rng)));
    normal_fits.push_back(fitter.fit(scores));
  }
  std::vector<empirical_fit> one{fits[0]};
  pool_tails(one);
  EXPECT_EQ(one[0].beta, fits[0].beta);
  EXPECT_EQ(one[0].shape, 1.0);
  pool_tails(fits);
  pool_tails(normal_fits);
  for (const empirical_fit& f : fits) {
    EXPECT_EQ(f.beta, fits[0].beta);
    EXPECT_EQ(f.shape, fits[0].shape);
  }
  EXPECT_LT(fits[0].shape, 1.2);
  EXPECT_GT(normal_fits[0].shape, fits[0].shape);  // lighter, though near exponential this far out
  EXPECT_GT(fits[0].exceedances.size(), 20u);  // the top 1 % of 3,000 targets, less the censored
}

}  // namespace
}  // namespace swat::scoring

namespace swat::scoring {
namespace {

// A database of mostly one length (960 of 1,500 residues) and 40 longer targets: the last bins
// share a centre. Beyond them the location may not shoot up (it did, by the difference of two
// medians over a 1e-9 gap in ln length): a target a little longer than the rest, scoring far
// above the null, is significant, and unrelated scores of the longer targets are not.
TEST(empirical_fit, bins_of_one_length_do_not_make_a_slope) {
  std::mt19937_64 rng(3);
  std::vector<std::uint64_t> lengths(1000, 1500);
  for (std::size_t t = 960; t < lengths.size(); ++t) lengths[t] = 1600 + (t - 960) * 10;
  const length_bins bins(lengths);
  empirical_fitter fitter(bins);
  const std::vector<std::int32_t> scores = gumbel_scores(rng, lengths);
  const empirical_fit fit = fitter.fit(scores);
  EXPECT_LT(fit.extrapolation_slope, 1000.0);
  const double ln_d = std::log(double(lengths.size()));
  EXPECT_LT(ln_d + fit.ln_pvalue(1000, 1650), std::log(1e-6));  // a relative of a longer target
  EXPECT_LT(ln_d + fit.ln_pvalue(1000, 5000), std::log(1e-6));  // and of one far longer
  std::size_t significant = 0;
  for (std::size_t t = 960; t < lengths.size(); ++t) significant += ln_d + fit.ln_pvalue(scores[t], lengths[t]) < std::log(0.01);
  EXPECT_LE(significant, 1u);
}

}  // namespace
}  // namespace swat::scoring

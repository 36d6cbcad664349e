// Empirical E-values (empirical.hpp): length-binned location and scale, relatives fenced off,
// a tail above the top 1 % with the highest scores censored, pooled over the search's queries.

#include "scoring/empirical.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace swat::scoring {
namespace {

constexpr std::size_t targets_per_bin = 100;
constexpr std::size_t max_bins = 32;
constexpr double tail_share = 0.01;         //!< the tail: the top 1 % of targets …
constexpr std::size_t min_tail = 60;        //!< … and at least 60 (one query's own fit needs them)
constexpr double censored_share = 0.003;    //!< censored: the top 0.3 % …
constexpr std::size_t min_censored = 2;     //!< … and at least 2
constexpr double significant_evalue = 0.01; //!< a target the fit finds this significant is censored
constexpr double min_beta = 0.05;           //!< floor of the tail's scale (standardised units)
constexpr double min_scale = 0.5;           //!< floor of a bin's interquartile range (score units)
constexpr double min_slope_span = 0.25;     //!< ln length over which the extrapolation slope is measured
//! Ceiling of the tail's scale: 1.1 × that of a Gumbel distribution in interquartile units,
//! 1 / (ln ln 4 − ln ln 4/3) = 0.636 (a tail heavier than the extreme-value distribution's comes
//! from related targets, not from chance).
constexpr double max_beta = 0.7;
//! Targets more than this many interquartile ranges above the location are left out of the
//! tail's fit (a Gumbel null exceeds 6 with probability 5e-5 per target; relatives often do).
constexpr double outlier_fence = 6;
//! Largest shape of a pooled tail (1: exponential; a Normal's tail at these levels is ~2).
constexpr double max_shape = 3;

//! A deterministic offset in (−0.5, 0.5) for target t (splitmix64 of its index): integer scores
//! spread over their unit interval, so that ties do not bias the quantiles and the tail (the
//! randomised probability integral transform for discrete data, made reproducible).
double jitter(std::size_t t) {
  std::uint64_t z = std::uint64_t(t) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double(z >> 11) + 0.5) / double(1ull << 53) - 0.5;
}

//! Index of the segment of centres that x falls in (0 … size − 2), for interpolation.
std::size_t segment_of(const std::vector<double>& centres, double x) {
  const auto it = std::upper_bound(centres.begin(), centres.end(), x);
  const auto after = std::size_t(it - centres.begin());
  return std::min(after == 0 ? 0 : after - 1, centres.size() - 2);
}

//! The q-quantile (0 ≤ q ≤ 1, linear between order statistics) of v, reordering v.
double quantile(std::vector<double>& v, double q) {
  const double at = q * double(v.size() - 1);
  const auto low = std::size_t(at);
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(low), v.end());
  const double a = v[low];
  if (low + 1 >= v.size()) return a;
  const double b = *std::min_element(v.begin() + std::ptrdiff_t(low) + 1, v.end());
  return a + (at - double(low)) * (b - a);
}

}  // namespace

length_bins::length_bins(std::span<const std::uint64_t> target_lengths) {
  const std::size_t n = target_lengths.size();
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), std::uint32_t(0));
  std::stable_sort(order_.begin(), order_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return target_lengths[a] < target_lengths[b]; });
  ln_length_.resize(n);
  for (std::size_t t = 0; t < n; ++t) ln_length_[t] = std::log(double(std::max<std::uint64_t>(target_lengths[t], 1)));
  const std::size_t bins = std::clamp<std::size_t>(n / targets_per_bin, 2, max_bins);
  auto centres = std::make_shared<std::vector<double>>();
  std::vector<double> in_bin;
  for (std::size_t b = 0; b <= bins; ++b) starts_.push_back(n * b / bins);
  for (std::size_t b = 0; b < bins; ++b) {
    in_bin.clear();
    for (std::size_t k = starts_[b]; k < starts_[b + 1]; ++k) in_bin.push_back(ln_length_[order_[k]]);
    centres->push_back(in_bin.empty() ? (centres->empty() ? 0.0 : centres->back()) : quantile(in_bin, 0.5));
  }
  // Bins of equal lengths share a centre; interpolation needs them strictly rising.
  for (std::size_t b = 1; b < centres->size(); ++b)
    (*centres)[b] = std::max((*centres)[b], (*centres)[b - 1] + 1e-9);
  centres_ = std::move(centres);
}

double empirical_fit::standardised(double s, double ln_length) const {
  const std::vector<double>& c = *centres;
  const std::size_t j = segment_of(c, ln_length);
  const double w = std::clamp((ln_length - c[j]) / (c[j + 1] - c[j]), 0.0, 1.0);
  // Location: interpolated between centres, flat below the first, beyond the last continued at
  // the slope the fit measured over the longest bins (extrapolation_slope).
  double loc = double(location[j]) + w * double(location[j + 1] - location[j]);
  if (ln_length > c.back()) loc = double(location.back()) + extrapolation_slope * (ln_length - c.back());
  const double ws = w;
  const double scl = std::max(min_scale, double(scale[j]) + ws * double(scale[j + 1] - scale[j]));
  return (s - std::max(loc, 0.0)) / scl;
}

double empirical_fit::ln_pvalue(std::int64_t s, std::uint64_t target_length) const {
  // P(S ≥ s) of an integer score is P(S' ≥ s − ½) of the score spread over its unit interval.
  const double z = standardised(double(s) - 0.5, std::log(double(std::max<std::uint64_t>(target_length, 1))));
  const double y = (z - threshold) / beta;  // below u the tail's exponential carries on
  return std::min(0.0, std::log(tail_fraction) - (y > 0 ? std::pow(y, shape) : y));
}

std::vector<std::uint64_t> empirical_fit::breakpoints() const {
  std::vector<std::uint64_t> n;
  for (const double c : *centres) {
    const double at = std::exp(c);
    n.push_back(std::uint64_t(std::floor(at)));
    n.push_back(std::uint64_t(std::ceil(at)));
  }
  return n;
}

empirical_fit empirical_fitter::fit(std::span<const std::int32_t> scores) {
  const length_bins& lb = bins_;
  const std::size_t n = lb.targets(), bins = lb.bins();
  empirical_fit f;
  f.centres = lb.centres_;
  f.location.resize(bins);
  f.scale.resize(bins);
  for (std::size_t b = 0; b < bins; ++b) {
    scratch_.clear();
    for (std::size_t k = lb.starts_[b]; k < lb.starts_[b + 1]; ++k) {
      const std::uint32_t t = lb.order_[k];
      scratch_.push_back(double(scores[t]) + jitter(t));
    }
    if (scratch_.empty()) scratch_.push_back(0);
    const double q25 = quantile(scratch_, 0.25), q50 = quantile(scratch_, 0.5), q75 = quantile(scratch_, 0.75);
    // The location never falls with length (scores of unrelated targets do not shrink as targets
    // grow); the scale is left as measured (a running maximum would inflate it in long bins).
    const double location = std::max(q50, 0.0);
    f.location[b] = float(b ? std::max(location, double(f.location[b - 1])) : location);
    f.scale[b] = float(std::max(q75 - q25, min_scale));
  }
  // The slope beyond the longest bin: over the last bins spanning at least 0.25 in ln length
  // (bins of one length have centres 1e-9 apart: their difference is no slope), and at most
  // the location per ln unit (scores growing in proportion to the length, the linear regime).
  {
    const std::vector<double>& c = *f.centres;
    const std::size_t last = bins - 1;
    std::size_t from = last;
    while (from > 0 && c[last] - c[from] < min_slope_span) --from;
    const double span = c[last] - c[from];
    f.extrapolation_slope =
        span >= min_slope_span
            ? std::clamp(double(f.location[last] - f.location[from]) / span, 0.0, double(f.location[last]))
            : 0.0;
  }
  z_.resize(n);
  for (std::size_t t = 0; t < n; ++t) z_[t] = f.standardised(double(scores[t]) + jitter(t), lb.ln_length_[t]);
  // Targets beyond the fence are outliers (relatives, far beyond any unrelated target's score):
  // the null is fitted to the others. The tail: the top k of those above u, the top c censored.
  scratch_.clear();
  for (const double z : z_)
    if (z <= outlier_fence) scratch_.push_back(z);
  const std::size_t m = scratch_.size();
  if (m < 2) {  // (all but one an outlier: nothing to fit; every P stays 1 up to the fence)
    f.threshold = outlier_fence;
    return f;
  }
  const std::size_t k = std::min(m - 1, std::max(min_tail, std::size_t(tail_share * double(m))));
  std::size_t c = std::max(min_censored, std::size_t(censored_share * double(m)));
  std::partial_sort(scratch_.begin(), scratch_.begin() + std::ptrdiff_t(k + 1), scratch_.end(), std::greater<>());
  const double u = scratch_[k];
  f.threshold = u;
  f.tail_fraction = double(k) / double(m);
  const double ln_d = std::log(double(n)), ln_significant = std::log(significant_evalue);
  for (int round = 0; round < 3; ++round) {
    c = std::min(c, k / 2);
    const double cut = scratch_[c];
    double sum = 0;
    std::size_t observed = 0, censored = 0;
    for (std::size_t i = 0; i < k; ++i) {
      if (scratch_[i] > cut) {
        ++censored;
      } else {
        sum += scratch_[i] - u;
        ++observed;
      }
    }
    f.beta = std::clamp((sum + double(censored) * (cut - u)) / double(std::max<std::size_t>(observed, 1)), min_beta,
                        max_beta);
    f.censored = double(censored);
    f.cut_excess = cut - u;
    // Targets this fit finds significant are censored in the next round (weaker relatives).
    std::size_t significant = 0;
    for (std::size_t i = 0; i < k; ++i)
      if (ln_d + std::log(f.tail_fraction) - (scratch_[i] - u) / f.beta <= ln_significant) ++significant;
    if (significant <= c) break;
    c = significant;
  }
  f.exceedances.clear();
  for (std::size_t i = 0; i < k; ++i)
    if (scratch_[i] <= u + f.cut_excess) f.exceedances.push_back(float(std::max(scratch_[i] - u, 1e-9)));
  return f;
}

void pool_tails(std::span<empirical_fit> fits) {
  // Weibull tail P(Z ≥ u + y) = p_u · e^(−(y/b)^c) over all exceedances (censored ones at their
  // cut): for a shape c, b^c = (Σ y^c + Σ censored · cut^c) / n; c maximises the profile
  // log-likelihood n ln c − n c ln b + (c − 1) Σ ln y − n (golden section on [1, max_shape]).
  double observed = 0, sum_ln = 0;
  for (const empirical_fit& f : fits)
    for (const float y : f.exceedances) {
      observed += 1;
      sum_ln += std::log(double(y));
    }
  if (fits.size() < 2 || observed < 2) return;
  const auto scale_at = [&](double c) {
    double sum = 0;
    for (const empirical_fit& f : fits) {
      for (const float y : f.exceedances) sum += std::pow(double(y), c);
      sum += f.censored * std::pow(f.cut_excess, c);
    }
    return std::pow(sum / observed, 1 / c);
  };
  const auto profile = [&](double c) { return observed * (std::log(c) - c * std::log(scale_at(c))) + (c - 1) * sum_ln; };
  double low = 1, high = max_shape;
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  double a = high - ratio * (high - low), b = low + ratio * (high - low);
  double pa = profile(a), pb = profile(b);
  for (int i = 0; i < 24 && high - low > 1e-3; ++i) {  // one evaluation an iteration
    if (pa < pb) {
      low = a;
      a = b;
      pa = pb;
      b = low + ratio * (high - low);
      pb = profile(b);
    } else {
      high = b;
      b = a;
      pb = pa;
      a = high - ratio * (high - low);
      pa = profile(a);
    }
  }
  const double shape = (low + high) / 2, beta = std::clamp(scale_at(shape), min_beta, max_beta);
  for (empirical_fit& f : fits)
    if (!f.exceedances.empty()) {
      f.shape = shape;
      f.beta = beta;
    }
}

std::string empirical_origin(std::size_t targets) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "a fit of each query's best scores against the %zu database sequences (median and interquartile "
                "range in %zu length bins, a tail above the top 1 %% (at least 60), the top 0.3 %% censored; its "
                "scale and Weibull shape pooled over the queries)",
                targets, std::clamp<std::size_t>(targets / targets_per_bin, 2, max_bins));
  return buf;
}

}  // namespace swat::scoring

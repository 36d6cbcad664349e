// Spouge's finite-size correction of gapped protein E-values, as BLAST+ computes them
// (Park, Sheetlin & Spouge 2012, "Reducing the computational burden of Gapped BLAST";
// BLAST_SpougeStoE in ncbi-cxx-toolkit src/algo/blast/core/blast_stat.c, written here from its
// formula, not its code).
//
// An alignment of score y occupies a rectangle whose sides have normally distributed lengths:
// mean a·y + b, variance v = max(2α/λ, α·y + β) along each sequence, covariance
// c = max(2σ/λ, σ·y + τ). The expected area that fits in an m × n comparison is
//   A = p(m)·p(n) + c·Φ(t_m)·Φ(t_n),   p(L) = (L − a·y − b)·Φ(t_L) + √v·φ(t_L),
//   t_L = (L − a·y − b)/√v,
// and the E-value of the target against the whole database of N residues is
//   E = A·K·e^(−λy)·N/n.
// The direct formula is evaluated first in BLAST's order of operations (so that the printed
// digits agree); where it underflows (E < 1e-300) the same quantity is taken in log space with
// the asymptotic tails of Φ, so that ln E stays that of the true value.

#include <algorithm>
#include <cmath>
#include <limits>

#include "scoring/karlin.hpp"

namespace swat::scoring {
namespace {

constexpr double inv_sqrt_2pi = 0.39894228040143267793994605993438;  // 1/√(2π)

//! ln Φ(t), the standard normal lower tail; below t = −30 from the Mills ratio series.
double ln_normal_cdf(double t) {
  if (t > -30) return std::log(std::erfc(-t / std::sqrt(2.0)) / 2.0);
  const double u2 = t * t;
  return -0.5 * u2 + std::log(inv_sqrt_2pi / -t) + std::log1p(-1 / u2 + 3 / (u2 * u2) - 15 / (u2 * u2 * u2));
}

//! ln(t·Φ(t) + φ(t)), the mean positive part of a standard normal shifted by t; below t = −10
//! from the series 1/t² − 3/t⁴ + 15/t⁶ − 105/t⁸ of (t·Φ(t) + φ(t))/φ(t).
double ln_positive_part(double t) {
  if (t > -10) return std::log(t * (std::erfc(-t / std::sqrt(2.0)) / 2.0) + inv_sqrt_2pi * std::exp(-0.5 * t * t));
  const double u2 = t * t;
  return -0.5 * u2 + std::log(inv_sqrt_2pi) + std::log((1 - 3 / u2 + 15 / (u2 * u2) - 105 / (u2 * u2 * u2)) / u2);
}

struct spouge_terms {
  double mean, sd, covariance;
};

spouge_terms terms_of(const karlin_params& p, double y) {
  const gumbel_params& g = *p.gumbel;
  return {g.a * y + g.b, std::sqrt(std::max(2.0 * g.alpha / p.lambda, g.alpha * y + g.beta)),
          std::max(2.0 * g.sigma / p.lambda, g.sigma * y + g.tau)};
}

//! E as BLAST_SpougeStoE evaluates it (may underflow to 0 or lose its digits far below 1e-300).
double direct_evalue(const karlin_params& p, double y, double m, double n, double db_scale) {
  const spouge_terms s = terms_of(p, y);
  const double m_x = m - s.mean, m_t = m_x / s.sd, m_cdf = std::erfc(-m_t / std::sqrt(2.0)) / 2.0;
  const double p1 = m_x * m_cdf + s.sd * inv_sqrt_2pi * std::exp(-0.5 * m_t * m_t);
  const double n_x = n - s.mean, n_t = n_x / s.sd, n_cdf = std::erfc(-n_t / std::sqrt(2.0)) / 2.0;
  const double p2 = n_x * n_cdf + s.sd * inv_sqrt_2pi * std::exp(-0.5 * n_t * n_t);
  const double area = p1 * p2 + s.covariance * m_cdf * n_cdf;
  return area * p.k * std::exp(-p.lambda * y) * db_scale;
}

//! The same in log space.
double log_space_ln_evalue(const karlin_params& p, double y, double m, double n, double db_scale) {
  const spouge_terms s = terms_of(p, y);
  const double m_t = (m - s.mean) / s.sd, n_t = (n - s.mean) / s.sd;
  const double ln_product = 2 * std::log(s.sd) + ln_positive_part(m_t) + ln_positive_part(n_t);
  const double ln_corner = std::log(s.covariance) + ln_normal_cdf(m_t) + ln_normal_cdf(n_t);
  const double top = std::max(ln_product, ln_corner);
  const double ln_area = top + std::log1p(std::exp(std::min(ln_product, ln_corner) - top));
  return ln_area + std::log(p.k) - p.lambda * y + std::log(db_scale);
}

}  // namespace

double spouge_ln_evalue(const karlin_params& p, std::int64_t s, std::uint64_t m_in, std::uint64_t n_in,
                        std::uint64_t db_residues) {
  const double m = double(m_in), n = double(std::max<std::uint64_t>(n_in, 1)), y = double(s);
  // BLAST scales the pair's E-value up to the database: N/n (1 where the size is unknown).
  const double db_scale = db_residues ? double(db_residues) / n : 1.0;
  const double e = direct_evalue(p, y, m, n, db_scale);
  if (e >= 1e-300 && std::isfinite(e)) return std::log(e);
  return log_space_ln_evalue(p, y, m, n, db_scale);
}

// For n in [n_i, r·n_i] the area is at least that at n_i (both of its terms grow with n) and
// N/n at least N/(r·n_i): ln E(y, n) ≥ ln E(y, n_i) − ln r. The smallest score passing that
// bound on each interval of a geometric grid (r = 1.1) is a floor for every length; E falls as
// the score rises, so each interval only asks whether the floor so far can go lower.
std::int64_t spouge_min_score_for_evalue(const karlin_params& p, double max_evalue, std::uint64_t m,
                                         std::uint64_t n_min, std::uint64_t n_max, std::uint64_t db_residues) {
  if (std::isinf(max_evalue)) return 1;
  constexpr double ratio = 1.1;
  const double ln_max = std::log(max_evalue) + std::log(ratio);
  constexpr std::uint64_t longest = std::uint64_t(1) << 52;  // beyond any real target
  n_max = std::min(n_max, longest);
  n_min = std::clamp<std::uint64_t>(n_min, 1, n_max);
  n_max = std::max<std::uint64_t>(n_max, n_min);
  const auto fits = [&](std::int64_t s, std::uint64_t n) { return spouge_ln_evalue(p, s, m, n, db_residues) <= ln_max; };
  // The first interval: gallop up from 1, then bisect (low fails, high fits).
  std::int64_t floor = 1;
  if (!fits(1, n_min)) {
    std::int64_t low = 1, high = 2;
    while (!fits(high, n_min)) {
      low = high;
      if (high >= std::numeric_limits<std::int32_t>::max()) return high;
      high = std::min<std::int64_t>(2 * high, std::numeric_limits<std::int32_t>::max());
    }
    while (high - low > 1) {
      const std::int64_t mid = low + (high - low) / 2;
      (fits(mid, n_min) ? high : low) = mid;
    }
    floor = high;
  }
  // Lengths n_i … n_(i+1) − 1 with n_(i+1) = max(n_i + 1, ⌊r·n_i⌋): at most r·n_i.
  for (std::uint64_t n = std::max(n_min + 1, std::uint64_t(double(n_min) * ratio)); floor > 1 && n <= n_max;
       n = std::max(n + 1, std::uint64_t(double(n) * ratio)))
    while (floor > 1 && fits(floor - 1, n)) --floor;
  return floor;
}

}  // namespace swat::scoring

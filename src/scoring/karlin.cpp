// Karlin–Altschul arithmetic: BLAST's length adjustment, E-values in log space, bit scores.

#include "scoring/karlin.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "common/error.hpp"

namespace swat::scoring {
namespace {

std::int64_t effective_score(const karlin_params& p, std::int64_t s) {
  return p.even_scores_only ? s - (s & 1) : s;  // rounds odd scores down (s ≥ 0 here)
}

}  // namespace

karlin_params karlin_params_for(const scoring_scheme& scheme) {
  if (std::optional<karlin_params> published = published_karlin_params(scheme)) return *published;
  // Estimates are remembered per scheme contents for the life of the process (a library user,
  // a benchmark or the argument fuzzer asks for the same scheme again).
  static std::mutex mutex;
  static std::map<std::vector<std::int32_t>, std::variant<karlin_params, std::string>> known;
  std::vector<std::int32_t> key = {std::int32_t(scheme.alphabet), scheme.gap_open, scheme.gap_extend};
  for (int a = 0; a < scheme.size(); ++a)
    for (int b = 0; b < scheme.size(); ++b) key.push_back(scheme.score(std::uint8_t(a), std::uint8_t(b)));
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = known.find(key); it != known.end()) {
      if (const auto* p = std::get_if<karlin_params>(&it->second)) return *p;
      throw usage_error(std::get<std::string>(it->second));
    }
  }
  std::variant<karlin_params, std::string> result;
  try {
    result = estimate_karlin_params(scheme);
  } catch (const usage_error& e) {  // no logarithmic regime: the same answer next time
    result = std::string(e.what());
  }
  const std::lock_guard<std::mutex> lock(mutex);
  known.emplace(std::move(key), result);
  if (const auto* p = std::get_if<karlin_params>(&result)) return *p;
  throw usage_error(std::get<std::string>(result));
}

// The fixed point of ℓ = (α/λ)·(ln K + ln((m − ℓ)(n − dℓ))) + β, searched as BLAST does
// (BLAST_ComputeLengthAdjustment, blast_stat.c): ℓ stays in [0, ℓ_max] where ℓ_max is the largest
// ℓ with K(m − ℓ)(n − dℓ) ≥ max(m, n); the iteration bisects when a step leaves the bracket and
// stops when the bracket is narrower than one residue; the result is the integer part, or its
// ceiling when that still satisfies ℓ ≤ f(ℓ).
std::int64_t length_adjustment(const karlin_params& p, std::uint64_t m_in, std::uint64_t n_in, std::uint64_t d_in) {
  const double m = double(m_in), n = double(n_in), d = double(std::max<std::uint64_t>(d_in, 1));
  const double log_k = std::log(p.k), slope = p.alpha / p.lambda;
  // K(m − ℓ)(n − dℓ) = max(m, n) ⇔ dℓ² − (md + n)ℓ + (mn − max(m, n)/K) = 0; smaller root.
  const double a = d, minus_b = m * d + n, c = m * n - std::max(m, n) / p.k;
  if (c < 0) return 0;
  double low = 0, high = 2 * c / (minus_b + std::sqrt(minus_b * minus_b - 4 * a * c));
  const auto f = [&](double ell) { return slope * (log_k + std::log((m - ell) * (n - d * ell))) + p.beta; };
  double ell = 0, next = 0;
  bool converged = false;
  for (int i = 1; i <= 20; ++i) {
    ell = next;
    const double proposed = f(ell);
    if (proposed >= ell) {
      low = ell;
      if (proposed - low <= 1.0) {
        converged = true;
        break;
      }
      if (low == high) break;
    } else {
      high = ell;
    }
    if (low <= proposed && proposed <= high)
      next = proposed;
    else
      next = i == 1 ? high : (low + high) / 2;
  }
  auto result = std::int64_t(low);
  if (converged) {
    const double up = std::ceil(low);
    if (up <= high && f(up) >= up) result = std::int64_t(up);
  }
  return result;
}

double effective_search_space(const karlin_params& p, std::uint64_t m, std::uint64_t n, std::uint64_t d) {
  const std::int64_t ell = length_adjustment(p, m, n, d);
  const double m_eff = std::max(double(m) - double(ell), 1.0);
  const double n_eff = std::max(double(n) - double(std::max<std::uint64_t>(d, 1)) * double(ell), 1.0);
  return m_eff * n_eff;
}

double ln_evalue(const karlin_params& p, std::int64_t s, double search_space) {
  return std::log(p.k) + std::log(search_space) - p.lambda * double(effective_score(p, s));
}

// BLAST rounds odd scores down for the E-value only; the bit score uses the raw score (blastn
// 2.12: score 23 -> 22.0 bits, score 22 -> 21.1 bits, both E = 22).
double bit_score(const karlin_params& p, std::int64_t s) {
  return (p.lambda * double(s) - std::log(p.k)) / std::log(2.0);
}

std::int64_t min_score_for_evalue(const karlin_params& p, double max_evalue, double search_space) {
  if (std::isinf(max_evalue)) return 1;
  const double ln_max = std::log(max_evalue);
  // ln E(S) ≤ ln_max ⇔ S ≥ (ln K + ln space − ln_max)/λ; step around that for even rounding.
  auto s = std::int64_t(std::ceil((std::log(p.k) + std::log(search_space) - ln_max) / p.lambda));
  s = std::max<std::int64_t>(s - 2, 1);
  while (ln_evalue(p, s, search_space) > ln_max) ++s;
  return s;
}

std::string describe(const karlin_params& p) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "lambda=%.4g K=%.4g H=%.4g alpha=%.4g beta=%.4g%s", p.lambda, p.k, p.h, p.alpha,
                p.beta, p.even_scores_only ? " (E-values of odd scores: those of the even score below)" : "");
  return std::string(buf) + " from " + p.origin;
}

}  // namespace swat::scoring

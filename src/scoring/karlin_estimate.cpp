// Karlin–Altschul parameters of a gapped scheme NCBI does not tabulate, estimated by the island
// method (Olsen, Bundschuh & Hwa 1999; Altschul, Bundschuh, Olsen & Hwa 2001, NAR 29:351).
//
// Random sequences are drawn from standard background frequencies (DNA: A C G T equally likely,
// as blastn; protein: Robinson & Robinson 1991, BLAST's default). One Smith-Waterman (Gotoh 1982)
// pass over each random pair also tracks, for every cell, the ANCHOR of the optimal local
// alignment ending there (the cell where its score last rose from 0). The cells sharing an anchor
// form an island; its peak is the best score among them. For large x the number of islands with
// peak ≥ x per unit area is K·e^(−λx), so with the peaks y ≥ c of the N_c islands above a cutoff:
//   λ = ln(1 + g / mean(y − c)) / g   (maximum likelihood for the geometric tail on the lattice
//                                      of step g, the gcd of all scores and gap costs)
//   K = N_c · e^(λc) / area
//   α, β: least-squares line of island length (mean of its query and target spans, anchor to
//         peak) against peak score, the length correction BLAST uses (ℓ ≈ αS + β); H = λ/α.
// Islands anchored within a border of the far edges (they may be cut short) are not counted, and
// the area shrinks to match. The cutoff c keeps the ~3,000 highest islands of the run, so the
// fit uses the tail, not the bulk of small islands. The seed is fixed: every run gives the same
// numbers. Checked against the NCBI tables in tests/scoring/karlin_test.cpp.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <exception>
#include <numeric>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "scoring/karlin.hpp"

namespace swat::scoring {
namespace {

//! Robinson & Robinson (1991) amino-acid frequencies, per 1000 (BLAST's Robinson_prob).
constexpr std::array<std::pair<char, double>, 20> robinson{{
    {'A', 78.05}, {'C', 19.25}, {'D', 53.64}, {'E', 62.95}, {'F', 38.56}, {'G', 73.77}, {'H', 21.99},
    {'I', 51.42}, {'K', 57.44}, {'L', 90.19}, {'M', 22.43}, {'N', 44.87}, {'P', 52.03}, {'Q', 42.64},
    {'R', 51.29}, {'S', 71.20}, {'T', 58.41}, {'V', 64.41}, {'W', 13.30}, {'Y', 32.16}}};

//! Islands kept above the cutoff; the fit's precision is about 1/sqrt of it.
constexpr std::size_t tail_islands = 3000;

struct residue_frequency {
  std::uint8_t rank;
  double p;
};

std::vector<residue_frequency> background(const scoring_scheme& scheme) {
  std::vector<residue_frequency> f;
  if (scheme.alphabet == alphabet_kind::dna) {
    for (std::uint8_t r = 0; r < 4; ++r) f.push_back({r, 0.25});
  } else {
    for (const auto& [letter, per_mille] : robinson)
      f.push_back({protein_rank_table()[static_cast<unsigned char>(letter)], per_mille / 1000.0});
  }
  return f;
}

double expected_score(const scoring_scheme& s, const std::vector<residue_frequency>& f) {
  double e = 0;
  for (const auto& a : f)
    for (const auto& b : f) e += a.p * b.p * s.score(a.rank, b.rank);
  return e;
}

//! Ungapped λ: the positive root of Σ p_a p_b e^(λ s_ab) = 1 (Karlin & Altschul 1990).
double ungapped_lambda(const scoring_scheme& s, const std::vector<residue_frequency>& f) {
  const auto excess = [&](double lambda) {
    double sum = 0;
    for (const auto& a : f)
      for (const auto& b : f) sum += a.p * b.p * std::exp(lambda * s.score(a.rank, b.rank));
    return sum - 1;
  };
  double low = 1e-9, high = 1;
  while (excess(high) < 0) high *= 2;
  for (int i = 0; i < 100; ++i) {
    const double mid = (low + high) / 2;
    (excess(mid) < 0 ? low : high) = mid;
  }
  return (low + high) / 2;
}

//! Deterministic residue source: splitmix64 bits through a 65,536-entry inverse-CDF table.
class residue_source {
 public:
  residue_source(const std::vector<residue_frequency>& f, std::uint64_t seed) : state_(seed) {
    double cumulative = 0;
    std::size_t k = 0;
    for (std::size_t slot = 0; slot < table_.size(); ++slot) {
      while (k + 1 < f.size() && (double(slot) + 0.5) / double(table_.size()) > cumulative + f[k].p)
        cumulative += f[k++].p;
      table_[slot] = f[k].rank;
    }
  }
  std::vector<std::uint8_t> draw(int n) {
    std::vector<std::uint8_t> s(std::size_t(std::max(n, 0)));
    for (auto& r : s) r = table_[next() >> 48];
    return s;
  }

 private:
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
  std::array<std::uint8_t, 65536> table_{};
};

struct island {
  std::int32_t peak = 0;
  std::int32_t peak_i = 0, peak_j = 0;
};

struct island_sample {
  std::int32_t peak;
  double length;
};

//! One Gotoh pass over a × b with anchor tracking; appends the islands with peak ≥ collect_from
//! anchored at least `border` cells before the far edges. Returns the best score of the pair.
std::int32_t collect_islands(const scoring_scheme& s, const std::vector<std::uint8_t>& a,
                             const std::vector<std::uint8_t>& b, std::int32_t collect_from, int border,
                             std::vector<island_sample>& out) {
  const std::size_t m = a.size(), n = b.size(), width = n + 1;
  const std::int32_t open_extend = s.gap_open + s.gap_extend, extend = s.gap_extend;
  constexpr std::int32_t minus_infinity = -(1 << 29);
  std::vector<std::int32_t> h_up(n + 1, 0), f_up(n + 1, minus_infinity);
  std::vector<std::uint32_t> anchor_h_up(n + 1, 0), anchor_f_up(n + 1, 0);
  std::unordered_map<std::uint32_t, island> islands;
  std::int32_t best = 0;
  for (std::size_t i = 1; i <= m; ++i) {
    const std::int32_t* row = &s.matrix[std::size_t(a[i - 1]) * matrix_stride];
    std::int32_t h_diag = 0, h_left = 0, e = minus_infinity;
    std::uint32_t anchor_diag = 0, anchor_left = 0, anchor_e = 0;
    for (std::size_t j = 1; j <= n; ++j) {
      // Branch-free selects: random sequences make every comparison unpredictable.
      const std::int32_t e_open = h_left - open_extend, e_extend = e - extend;
      const bool e_opens = e_open >= e_extend;
      e = e_opens ? e_open : e_extend;
      anchor_e = e_opens ? anchor_left : anchor_e;
      const std::int32_t f_open = h_up[j] - open_extend, f_extend = f_up[j] - extend;
      const bool f_opens = f_open >= f_extend;
      const std::int32_t f = f_opens ? f_open : f_extend;
      const std::uint32_t anchor_f = f_opens ? anchor_h_up[j] : anchor_f_up[j];
      std::int32_t h = h_diag + row[b[j - 1]];
      std::uint32_t anchor = h_diag == 0 ? std::uint32_t(i * width + j) : anchor_diag;
      const bool from_e = e > h;
      h = from_e ? e : h;
      anchor = from_e ? anchor_e : anchor;
      const bool from_f = f > h;
      h = from_f ? f : h;
      anchor = from_f ? anchor_f : anchor;
      h = h < 0 ? 0 : h;
      h_diag = h_up[j];
      anchor_diag = anchor_h_up[j];
      h_up[j] = h;
      anchor_h_up[j] = anchor;
      f_up[j] = f;
      anchor_f_up[j] = anchor_f;
      h_left = h;
      anchor_left = anchor;
      best = std::max(best, h);
      if (h >= collect_from) {
        island& is = islands[anchor];
        if (h > is.peak) is = {h, std::int32_t(i), std::int32_t(j)};
      }
    }
  }
  for (const auto& [anchor, is] : islands) {
    const std::size_t ai = anchor / width, aj = anchor % width;
    if (ai + std::size_t(border) > m || aj + std::size_t(border) > n) continue;
    const double length = (double(is.peak_i) - double(ai) + 1 + double(is.peak_j) - double(aj) + 1) / 2;
    out.push_back({is.peak, length});
  }
  return best;
}

//! gcd of every substitution score and gap cost: the lattice island peaks lie on.
std::int32_t score_lattice(const scoring_scheme& s, const std::vector<residue_frequency>& f) {
  int g = s.gap_open + s.gap_extend;
  g = std::gcd(g, s.gap_extend);
  for (const auto& a : f)
    for (const auto& b : f) g = std::gcd(g, std::abs(s.score(a.rank, b.rank)));
  return std::max(g, 1);
}

[[noreturn]] void no_log_regime(const scoring_scheme& s, const std::string& why) {
  throw usage_error("scoring '" + s.matrix_name + "' with gap " + std::to_string(s.gap_open) + "/" +
                    std::to_string(s.gap_extend) + " has no Karlin-Altschul parameters: " + why +
                    ", so scores of unrelated sequences grow with their length");
}

}  // namespace

karlin_params estimate_karlin_params(const scoring_scheme& scheme, const karlin_estimate_options& options) {
  const std::vector<residue_frequency> freq = background(scheme);
  const double mean = expected_score(scheme, freq);
  if (mean >= 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", mean);
    no_log_regime(scheme, std::string("the expected score of a random aligned pair is ") + buf + " >= 0");
  }
  const double lambda_u = ungapped_lambda(scheme, freq);
  const int length = std::max(options.sequence_length, 200), border = length / 10;
  const double area = double(std::max(options.pairs, 1)) * double(length - border) * double(length - border);
  // Collect from a score that ungapped statistics expect ~20,000 islands above (gapped λ is
  // smaller, so more reach it); the fit's cutoff is then set from the islands themselves.
  const auto collect_from = std::int32_t(std::max(1.0, std::floor(std::log(area * 0.1 / 20000.0) / lambda_u)));
  // Pairs run in parallel threads, each with its own generator: the result does not depend on
  // the number of threads.
  const int pairs = std::max(options.pairs, 1);
  std::vector<std::vector<island_sample>> per_pair(static_cast<std::size_t>(pairs));
  std::vector<std::int32_t> best_of(static_cast<std::size_t>(pairs), 0);
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(pairs));
  const auto run_pairs = [&](int first, int stride) {
    for (int k = first; k < pairs; k += stride) {
      try {
        residue_source source(freq, options.seed * 0x100000001B3ull + std::uint64_t(k));
        const std::vector<std::uint8_t> a = source.draw(length), b = source.draw(length);
        best_of[std::size_t(k)] = collect_islands(scheme, a, b, collect_from, border, per_pair[std::size_t(k)]);
      } catch (...) {
        failures[std::size_t(k)] = std::current_exception();
      }
    }
  };
  const int threads = std::clamp(int(std::thread::hardware_concurrency()), 1, pairs);
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(run_pairs, t, threads);
  run_pairs(0, threads);
  for (std::thread& w : workers) w.join();
  for (const std::exception_ptr& e : failures)
    if (e) std::rethrow_exception(e);
  std::vector<island_sample> samples;
  for (const auto& v : per_pair) samples.insert(samples.end(), v.begin(), v.end());
  const std::int32_t best = *std::max_element(best_of.begin(), best_of.end());
  // Linear regime: the best score of a random pair grows with the length, far above log scale.
  if (double(best) > 0.05 * double(length) * double(scheme.max_score()))
    no_log_regime(scheme, "random sequences of " + std::to_string(length) + " residues score up to " +
                              std::to_string(best) + " (gaps too cheap)");
  std::stable_sort(samples.begin(), samples.end(),
                   [](const island_sample& x, const island_sample& y) { return x.peak > y.peak; });
  if (samples.size() < 50) no_log_regime(scheme, "too few high-scoring islands to fit");
  const std::int32_t cutoff = samples[std::min(samples.size(), tail_islands) - 1].peak;
  while (!samples.empty() && samples.back().peak < cutoff) samples.pop_back();

  const std::int32_t step = 2 * score_lattice(scheme, freq);
  double excess = 0, sum_x = 0, sum_y = 0, sum_xx = 0, sum_xy = 0;
  for (const island_sample& s : samples) {
    excess += double((s.peak - cutoff) / step);
    sum_x += s.peak;
    sum_y += s.length;
    sum_xx += double(s.peak) * s.peak;
    sum_xy += double(s.peak) * s.length;
  }
  const double count = double(samples.size());
  const double mean_excess = std::max(excess / count, 1e-3);
  karlin_params p;
  p.lambda = std::log(1 + 1 / mean_excess) / step;
  p.k = count * std::exp(p.lambda * cutoff) / area;
  const double spread = count * sum_xx - sum_x * sum_x;
  p.alpha = spread > 0 ? (count * sum_xy - sum_x * sum_y) / spread : 0;
  if (p.alpha <= 0) p.alpha = sum_y / sum_x;  // all peaks equal: length per score through 0
  p.beta = (sum_y - p.alpha * sum_x) / count;
  p.h = p.lambda / p.alpha;
  p.source = karlin_source::estimated;
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "an island-method estimate for this scheme (%zu islands with score >= %d in %d random pairs of "
                "%d residues, seed %llu)",
                samples.size(), int(cutoff), pairs, length, static_cast<unsigned long long>(options.seed));
  p.origin = buf;
  return p;
}

}  // namespace swat::scoring

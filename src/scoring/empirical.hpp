#pragma once
// Empirical E-values: the distribution of one query's best scores against unrelated targets,
// fitted to the scores of the search itself, as SSEARCH does for any scoring scheme (Pearson
// 1998, "Empirical statistical estimates for sequence similarity searches", JMB 276:71; Mott
// 1992). No assumption of a logarithmic regime: the scheme may have no Karlin–Altschul
// parameters at all (cheap gaps, where scores grow with the length of the pair).
//
// The model, per query:
//  1. Location and scale by target length. The targets, sorted by length, fall into bins of
//     about 100 (2 to 32 bins); in each bin the median score is the location and the
//     interquartile range the scale (both robust to the few related targets). Between bin centres
//     (the median ln length of each bin) both are interpolated in ln length; beyond the longest
//     bin the location goes on at the slope of the longest bins (scores still rise with length;
//     measured over at least 0.25 in ln length, at most the linear regime's growth), the scale
//     stays; below the shortest both stay. The location never falls with length. Integer scores are spread over their unit interval (a fixed pseudo-random
//     offset per target, the randomised probability integral transform) so that ties do not bias
//     quantiles and tail; P(S ≥ s) is read at s − ½.
//  2. The tail of the standardised scores z = (S − location(n)) / scale(n). Targets more than 6
//     interquartile ranges above the location are outliers (relatives; a Gumbel null gets there
//     with probability 5e-5), left out. Above the threshold u that the top 1 % of the others (at
//     least 60) exceed, P(Z ≥ z) = p_u · e^(−(z − u)/β), the
//     exponential tail of the extreme-value distribution (peaks over a threshold; ξ = 0). β is the
//     maximum-likelihood estimate with the highest scores censored (the top 0.3 %, at least 2, or
//     every target the fit itself finds significant at E ≤ 0.01 when there are more, up to half
//     of the tail): related targets count as "above the cut", never with their scores. β is at
//     most 1.1 × the Gumbel distribution's (0.636 interquartile ranges): a heavier tail comes from
//     a query's many relatives (titin's immunoglobulin domains), not from chance. A search of
//     several queries fits one tail to all their exceedances, a Weibull tail whose shape c ≥ 1
//     follows the scheme (exponential in the logarithmic regime, lighter with cheap gaps):
//     pool_tails.
//  3. E = D · P(Z ≥ z) for a database of D sequences (the target's own length in z).
// Measured on 1,600 random protein queries (residues drawn from BLAST's background frequencies)
// against the 3,183 Swiss-Prot sequences of ../shared/data: the number of hits with E ≤ x per
// query is x within a factor of 2 for x = 0.01 … 10 for BLOSUM62 11/1 (as the analytic
// E-values) and for BLOSUM62 6/1, 0/1 and PAM30 3/1, which NCBI has no parameters for; BLOSUM62
// 4/2 is conservative below 0.03 (bench/results/evalue_calibration_h200.csv). Fewer sequences
// make the tail fit noisier;
// below min_fit_targets no fit is made.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace swat::scoring {

//! The fewest database sequences an empirical fit is made from.
inline constexpr std::size_t min_fit_targets = 500;

//! The targets' length bins, shared by the fits of every query of a search (sorted once).
class length_bins {
 public:
  //! Bins over these target lengths (residues), in the targets' order.
  explicit length_bins(std::span<const std::uint64_t> target_lengths);
  std::size_t targets() const { return order_.size(); }
  std::size_t bins() const { return starts_.size() - 1; }

 private:
  friend class empirical_fitter;
  friend struct empirical_fit;
  std::vector<std::uint32_t> order_;    //!< target indices by ascending length
  std::vector<std::size_t> starts_;     //!< bin b holds order_[starts_[b] .. starts_[b + 1])
  std::shared_ptr<const std::vector<double>> centres_;  //!< median ln length of each bin
  std::vector<double> ln_length_;       //!< ln length of each target (≥ ln 1)
};

//! The fitted score distribution of one query (see the file comment).
struct empirical_fit {
  std::shared_ptr<const std::vector<double>> centres;  //!< bin centres (ln length), shared
  std::vector<float> location;  //!< per bin: median score (never falling with length)
  std::vector<float> scale;     //!< per bin: interquartile range (≥ 0.5)
  //! Location per ln length beyond the longest bin (measured over ≥ 0.25 in ln length; ≤ the
  //! location itself, the linear regime's growth).
  double extrapolation_slope = 0;
  double threshold = 0;         //!< u: the tail's start (standardised score)
  double tail_fraction = 1;     //!< p_u: P(Z ≥ u)
  double beta = 1;              //!< the tail's scale b (standardised units)
  double shape = 1;             //!< the tail's Weibull shape c (1: exponential)
  //! The tail's observed exceedances y = z − u (up to the cut), how many were censored at the
  //! cut and its excess: what pool_tails fits the search's one tail to.
  std::vector<float> exceedances;
  double censored = 0, cut_excess = 0;

  //! ln P(best score ≥ s) against one unrelated target of target_length residues (≤ 0; finite).
  double ln_pvalue(std::int64_t s, std::uint64_t target_length) const;
  //! The standardised score z of score s against a target of ln length ln_length.
  double standardised(double s, double ln_length) const;
  //! Target lengths where the location and scale change slope (next to each bin centre): the
  //! score of a given ln_pvalue is piecewise linear in ln length between them, so its minimum
  //! over a range of lengths lies at one of them or at the range's ends.
  std::vector<std::uint64_t> breakpoints() const;
};

//! Fits queries' score distributions against one database (one fitter per thread: it keeps
//! scratch space).
class empirical_fitter {
 public:
  explicit empirical_fitter(const length_bins& bins) : bins_(bins) {}
  //! The fit of one query from its best score against every target (scores[t], in the
  //! targets' order; 0 where no alignment scores above 0).
  empirical_fit fit(std::span<const std::int32_t> scores);

 private:
  const length_bins& bins_;
  std::vector<double> scratch_, z_;
};

//! Gives every fit of a search one tail P(Z ≥ u + y) = p_u · e^(−(y/b)^c), b and c ≥ 1 the
//! maximum-likelihood estimates from all their exceedances together: the tail's form in
//! interquartile units is a property of the scheme, one query's 30 or so exceedances leave b
//! ±20 % (a factor of 3 at E = 0.01) and c unknown, and in the linear regime (cheap gaps) the tail
//! is lighter than exponential (c > 1; an exponential is conservative there). Location, scale,
//! threshold and p_u stay per query. No change for one fit (c = 1).
void pool_tails(std::span<empirical_fit> fits);

//! One line: what the fits were made from (for notices, SAM @CO and JSON).
std::string empirical_origin(std::size_t targets);

}  // namespace swat::scoring

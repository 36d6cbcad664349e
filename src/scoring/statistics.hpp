#pragma once
// The E-values and bit scores of one search, whichever method gave them (--stats):
//  - analytic: Karlin–Altschul parameters of the scheme (NCBI's tables, else the island
//    estimate; karlin.hpp), E = K·m'·n'·e^(−λS) over BLAST's effective search space, or for a
//    built-in protein matrix that BLAST+ tabulates Spouge's finite-size correction (BLAST+'s
//    blastp E-values; they depend on the target's length);
//  - empirical: a fit to the search's own scores of unrelated targets, one per query, as SSEARCH
//    does (empirical.hpp), E = D · P(a score ≥ S against a target of this length);
//  - none: the scheme has no logarithmic regime and the search cannot fit one (too few
//    targets): the alignments are exact, their significance is not defined; E-values and bit
//    scores are NaN and writers print nan / null / n/a, or leave the tag out.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scoring/empirical.hpp"
#include "scoring/karlin.hpp"

namespace swat::scoring {

//! What --stats asks for.
enum class stats_choice {
  automatic,  //!< analytic where the scheme has parameters, else empirical where the search can fit, else none
  analytic,   //!< Karlin–Altschul parameters only (an error where the scheme has none)
  empirical,  //!< fitted to the search's scores (none, with a notice, where it cannot fit)
  none,       //!< no E-values
};
//! "auto" | "analytic" | "empirical" | "none"; throws usage_error otherwise.
stats_choice parse_stats_choice(std::string_view text);

//! The method that gave a search's E-values.
enum class evalue_method { analytic, empirical, none };
//! "analytic" | "empirical" | "none".
std::string_view to_string(evalue_method m);

//! The analytic parameters of a scheme, or why it has none (the scheme has no logarithmic
//! regime: its reason, e.g. "gaps too cheap …"). Remembered per scheme (karlin_params_for).
struct analytic_result {
  std::optional<karlin_params> params;
  std::string why_not;  //!< set when params is empty
};
analytic_result analytic_params_of(const scoring_scheme& scheme);

//! The statistics of one search: method, parameters, E-values and bit scores.
class search_statistics {
 public:
  //! Karlin–Altschul E-values with these parameters.
  static search_statistics analytic(karlin_params params);
  //! One empirical fit per query (in query order); origin says what was fitted.
  static search_statistics empirical(std::vector<empirical_fit> per_query, std::string origin);
  //! No E-values; reason says why (one line).
  static search_statistics none(std::string reason);

  evalue_method method() const { return method_; }
  //! The Karlin–Altschul parameters (analytic only, else null).
  const karlin_params* analytic_params() const { return analytic_ ? &*analytic_ : nullptr; }
  //! The fit of query q (empirical only, else null).
  const empirical_fit* fit_of(std::size_t q) const;

  //! ln E of raw score s of query q (query_length residues) against a target of
  //! target_length residues in a database of db_residues residues in db_sequences sequences.
  //! NaN for none.
  double ln_evalue(std::size_t q, std::int64_t s, std::uint64_t query_length, std::uint64_t target_length,
                   std::uint64_t db_residues, std::uint64_t db_sequences) const;
  //! Bit score of raw score s (same arguments as ln_evalue but the database's). Analytic:
  //! (λS − ln K)/ln 2; empirical: log2(m·n / p) with p the per-target probability, so that
  //! E ≈ D·m·n·2^(−bits) as in BLAST. NaN for none.
  double bit_score(std::size_t q, std::int64_t s, std::uint64_t query_length, std::uint64_t target_length) const;

  //! One line for notices, SAM @CO, JSON and --timing: the method and where its numbers came
  //! from (or why there are none).
  std::string describe() const;

 private:
  evalue_method method_ = evalue_method::none;
  std::optional<karlin_params> analytic_;
  std::vector<empirical_fit> fits_;
  std::string text_;  //!< empirical: the origin; none: the reason
};

}  // namespace swat::scoring

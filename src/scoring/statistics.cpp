// The statistics of one search (statistics.hpp): analytic, empirical or none.

#include "scoring/statistics.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "common/error.hpp"

namespace swat::scoring {

stats_choice parse_stats_choice(std::string_view text) {
  if (text == "auto") return stats_choice::automatic;
  if (text == "analytic") return stats_choice::analytic;
  if (text == "empirical") return stats_choice::empirical;
  if (text == "none") return stats_choice::none;
  throw usage_error("unknown --stats '" + std::string(text) + "' (valid: auto, analytic, empirical, none)");
}

std::string_view to_string(evalue_method m) {
  switch (m) {
    case evalue_method::analytic: return "analytic";
    case evalue_method::empirical: return "empirical";
    case evalue_method::none: return "none";
  }
  return "none";
}

analytic_result analytic_params_of(const scoring_scheme& scheme) {
  try {
    return {karlin_params_for(scheme), {}};
  } catch (const usage_error& e) {  // no logarithmic regime (karlin_estimate.cpp says why)
    return {std::nullopt, e.what()};
  }
}

search_statistics search_statistics::analytic(karlin_params params) {
  search_statistics s;
  s.method_ = evalue_method::analytic;
  s.analytic_ = std::move(params);
  return s;
}

search_statistics search_statistics::empirical(std::vector<empirical_fit> per_query, std::string origin) {
  search_statistics s;
  s.method_ = evalue_method::empirical;
  s.fits_ = std::move(per_query);
  s.text_ = std::move(origin);
  return s;
}

search_statistics search_statistics::none(std::string reason) {
  search_statistics s;
  s.method_ = evalue_method::none;
  s.text_ = std::move(reason);
  return s;
}

const empirical_fit* search_statistics::fit_of(std::size_t q) const {
  return method_ == evalue_method::empirical && q < fits_.size() ? &fits_[q] : nullptr;
}

double search_statistics::ln_evalue(std::size_t q, std::int64_t s, std::uint64_t query_length,
                                    std::uint64_t target_length, std::uint64_t db_residues,
                                    std::uint64_t db_sequences) const {
  switch (method_) {
    case evalue_method::analytic:
      if (analytic_->gumbel) return spouge_ln_evalue(*analytic_, s, query_length, target_length, db_residues);
      return scoring::ln_evalue(*analytic_, s,
                                effective_search_space(*analytic_, query_length, db_residues, db_sequences));
    case evalue_method::empirical:
      return std::log(double(std::max<std::uint64_t>(db_sequences, 1))) + fits_.at(q).ln_pvalue(s, target_length);
    case evalue_method::none: break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double search_statistics::bit_score(std::size_t q, std::int64_t s, std::uint64_t query_length,
                                    std::uint64_t target_length) const {
  switch (method_) {
    case evalue_method::analytic: return scoring::bit_score(*analytic_, s);
    case evalue_method::empirical: {
      const double space = double(std::max<std::uint64_t>(query_length, 1)) * double(std::max<std::uint64_t>(target_length, 1));
      return (std::log(space) - fits_.at(q).ln_pvalue(s, target_length)) / std::log(2.0);
    }
    case evalue_method::none: break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::string search_statistics::describe() const {
  switch (method_) {
    case evalue_method::analytic: return "analytic, " + scoring::describe(*analytic_);
    case evalue_method::empirical: return "empirical, " + text_;
    case evalue_method::none: return "none: " + text_;
  }
  return text_;
}

}  // namespace swat::scoring

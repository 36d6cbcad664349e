#pragma once
// The statistics of one search (--stats, --evalue): which method gives its E-values, fitted
// where they come from its own scan, and which hits they let through.
//
// Planned before the search (--stats auto): analytic where NCBI publishes Karlin–Altschul
// parameters for the scheme; else empirical where the database has enough sequences to fit
// (empirical.hpp: min_fit_targets); else analytic from the island estimate where the scheme has a
// logarithmic regime; else none. --stats analytic|empirical|none asks for one of them. A search
// without statistics reports every hit above --min-score, and an explicit --evalue it cannot
// honour is a usage error. Empirical statistics are fitted after the scan, one per query, from
// the best score of every target (the better strand of DNA queries).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "common/traceback.hpp"
#include "scoring/statistics.hpp"

namespace swat::pipeline {

//! What --stats and --evalue asked for.
struct stats_request {
  scoring::stats_choice choice = scoring::stats_choice::automatic;
  double max_evalue = 10;     //!< --evalue (> 0)
  bool evalue_given = false;  //!< --evalue was on the command line
  std::int32_t min_score = 1; //!< --min-score
};

//! The method chosen before the search, with what it needs.
struct stats_plan {
  scoring::evalue_method method = scoring::evalue_method::none;
  std::optional<scoring::karlin_params> analytic;  //!< method analytic
  //! Why the scheme has no analytic parameters ("" where it has them or they were not asked).
  std::string no_analytic;
  //! method none: why (one line).
  std::string no_statistics;
};

//! Chooses the method (file comment). Throws usage_error where the request cannot be honoured:
//! --stats analytic for a scheme without parameters, an explicit --evalue without statistics.
stats_plan plan_statistics(const stats_request& request, const scoring_scheme& scheme, std::size_t targets);

//! The notice line that says how E-values are computed (empty where nothing is worth saying:
//! NCBI's published parameters).
std::string stats_notice(const stats_plan& plan);

//! The search's statistics: the plan's, or for empirical the fits to the scanned best cells
//! (cells[k][q · targets + t] on strand k; a target's score is its better strand's).
scoring::search_statistics settle_statistics(const stats_plan& plan, const sequence_set& queries,
                                             const sequence_set& targets,
                                             std::span<const std::vector<best_cell>> cells, unsigned threads);

//! The smallest score a hit reports, per query and target (--min-score and --evalue).
struct report_rule {
  std::vector<std::int32_t> lower;  //!< per query: no hit of the query scores less
  //! The floor of query q against target t where it depends on the target (empirical E-values
  //! depend on its length); null: lower[q] for every target.
  std::function<std::int32_t(std::size_t q, std::size_t t)> exact;
  //! Where the floor depends on the target: whether score s of q against t passes (one E-value
  //! computed, cheaper than the floor's search; the same answer as s ≥ exact(q, t)).
  std::function<bool(std::size_t q, std::size_t t, std::int32_t s)> passes;
  //! The smallest score query q reports against target t.
  std::int32_t floor(std::size_t q, std::size_t t) const { return exact ? exact(q, t) : lower[q]; }
  //! True when a best score s of q against t is reported.
  bool reports(std::size_t q, std::size_t t, std::int32_t s) const {
    return s > 0 && s >= lower[q] && (!passes || passes(q, t, s));
  }
};

//! The database as the E-values and BLAST's length adjustment see it: its residues and
//! sequences (--dbsize and --dbseqs, else the targets' own).
struct database_size {
  std::uint64_t residues = 0;   //!< residues of the whole database
  std::uint64_t sequences = 0;  //!< sequences of the whole database
};

//! The targets' own size where --dbsize / --dbseqs (given: set) do not say otherwise.
database_size size_of_database(const sequence_set& targets, std::optional<std::uint64_t> residues,
                               std::optional<std::uint64_t> sequences);

//! The rule of these statistics for this request (E ≤ --evalue where E-values exist) in a
//! database of this size. The rule refers to stats, queries and targets: they must outlive it.
report_rule rule_of(const scoring::search_statistics& stats, const stats_request& request,
                    const sequence_set& queries, const sequence_set& targets, database_size database);

}  // namespace swat::pipeline

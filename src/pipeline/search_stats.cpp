// The statistics of one search (search_stats.hpp).

#include "pipeline/search_stats.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <exception>
#include <thread>

#include "common/error.hpp"
#include "scoring/empirical.hpp"

namespace swat::pipeline {

stats_plan plan_statistics(const stats_request& request, const scoring_scheme& scheme, std::size_t targets) {
  using scoring::evalue_method;
  using scoring::stats_choice;
  stats_plan plan;
  const bool can_fit = targets >= scoring::min_fit_targets;
  const auto use_analytic = [&](scoring::analytic_result a) {
    if (a.params) {
      plan.method = evalue_method::analytic;
      plan.analytic = std::move(a.params);
    } else {
      plan.no_analytic = std::move(a.why_not);
    }
  };
  switch (request.choice) {
    case stats_choice::analytic:
      use_analytic(scoring::analytic_params_of(scheme));
      if (!plan.analytic) throw usage_error("--stats analytic: " + plan.no_analytic);
      break;
    case stats_choice::automatic:
      // NCBI's published parameters first; a scheme without them is fitted to the search where
      // the database is large enough (the island estimate can be far off near the linear
      // regime), else estimated by the island method where the scheme has a logarithmic regime.
      if (std::optional<scoring::karlin_params> published = scoring::published_karlin_params(scheme)) {
        plan.method = evalue_method::analytic;
        plan.analytic = std::move(published);
      } else if (can_fit) {
        plan.method = evalue_method::empirical;
      } else {
        use_analytic(scoring::analytic_params_of(scheme));
      }
      break;
    case stats_choice::empirical:
      if (can_fit) plan.method = evalue_method::empirical;
      break;
    case stats_choice::none: plan.no_statistics = "--stats none"; break;
  }
  if (plan.method == evalue_method::none && plan.no_statistics.empty())
    plan.no_statistics = (plan.no_analytic.empty() ? std::string() : plan.no_analytic + "; ") +
                         "empirical E-values need a database of at least " +
                         std::to_string(scoring::min_fit_targets) + " sequences (this one has " +
                         std::to_string(targets) + ")";
  if (plan.method == evalue_method::none && request.evalue_given)
    throw usage_error("--evalue cannot be honoured: this search has no E-values (" + plan.no_statistics +
                      "); filter with --min-score instead");
  return plan;
}

std::string stats_notice(const stats_plan& plan) {
  switch (plan.method) {
    case scoring::evalue_method::analytic:
      if (plan.analytic->source == scoring::karlin_source::estimated)
        return "E-values: NCBI BLAST has no table for this scoring scheme; using " + scoring::describe(*plan.analytic);
      return {};
    case scoring::evalue_method::empirical:
      return "E-values: fitted to this search's scores of unrelated targets (empirical statistics, one fit per "
             "query; NCBI BLAST has no parameters for this scoring scheme)";
    case scoring::evalue_method::none:
      return "E-values: none (" + plan.no_statistics +
             "); every alignment above --min-score is reported, its evalue and bitscore are nan";
  }
  return {};
}

scoring::search_statistics settle_statistics(const stats_plan& plan, const sequence_set& queries,
                                             const sequence_set& targets,
                                             std::span<const std::vector<best_cell>> cells, unsigned threads) {
  switch (plan.method) {
    case scoring::evalue_method::analytic: return scoring::search_statistics::analytic(*plan.analytic);
    case scoring::evalue_method::none: return scoring::search_statistics::none(plan.no_statistics);
    case scoring::evalue_method::empirical: break;
  }
  const std::size_t nq = queries.records.size(), nt = targets.records.size();
  if (cells.empty()) throw std::logic_error("settle_statistics: empirical statistics need the scan's scores");
  std::vector<std::uint64_t> lengths(nt);
  for (std::size_t t = 0; t < nt; ++t) lengths[t] = targets.records[t].residues.size();
  const scoring::length_bins bins(lengths);
  std::vector<scoring::empirical_fit> fits(nq);
  // Queries are fitted independently, by up to `threads` threads (each fit reads its own row).
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> failures(nq);
  const auto work = [&] {
    std::size_t q = 0;
    try {  // everything inside: an exception may not leave a helper thread
      scoring::empirical_fitter fitter(bins);
      std::vector<std::int32_t> best(nt);
      while ((q = next.fetch_add(1)) < nq) {
        for (std::size_t t = 0; t < nt; ++t) {
          best[t] = 0;
          for (const std::vector<best_cell>& strand : cells) best[t] = std::max(best[t], strand[q * nt + t].score);
        }
        fits[q] = fitter.fit(best);
      }
    } catch (...) {
      failures[std::min(q, nq - 1)] = std::current_exception();
      next = nq;
    }
  };
  const unsigned n = std::clamp<unsigned>(threads ? threads : std::thread::hardware_concurrency(), 1,
                                          unsigned(std::clamp<std::size_t>(nq, 1, 64)));
  std::vector<std::thread> pool;
  pool.reserve(n);
  try {
    for (unsigned i = 1; i < n; ++i) pool.emplace_back(work);
  } catch (...) {  // no thread (or memory for one) to spare: fewer helpers
  }
  work();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : failures)
    if (e) std::rethrow_exception(e);
  scoring::pool_tails(fits);
  return scoring::search_statistics::empirical(std::move(fits), scoring::empirical_origin(nt));
}

database_size size_of_database(const sequence_set& targets, std::optional<std::uint64_t> residues,
                               std::optional<std::uint64_t> sequences) {
  database_size size{0, sequences.value_or(targets.records.size())};
  if (residues) {
    size.residues = *residues;
  } else {
    for (const sequence_record& t : targets.records) size.residues += t.residues.size();
  }
  return size;
}

report_rule rule_of(const scoring::search_statistics& stats, const stats_request& request,
                    const sequence_set& queries, const sequence_set& targets, database_size database) {
  report_rule rule;
  const std::size_t nq = queries.records.size();
  rule.lower.assign(nq, request.min_score);
  if (stats.method() == scoring::evalue_method::none) return rule;
  const std::uint64_t db_residues = database.residues, db_sequences = database.sequences;
  if (std::isinf(request.max_evalue)) return rule;
  const double ln_max = std::log(request.max_evalue);
  // The smallest score from `from` up whose E-value against a target of length n is ≤ --evalue
  // (E falls as the score rises).
  // (Copies of the sizes: the exact floor below outlives this call.)
  const auto smallest = [&stats, &queries, db_residues, db_sequences, ln_max](std::size_t q, std::uint64_t n,
                                                                                std::int32_t from) {
    const std::uint64_t m = queries.records[q].residues.size();
    const auto fits = [&](std::int64_t s) { return stats.ln_evalue(q, s, m, n, db_residues, db_sequences) <= ln_max; };
    std::int64_t low = std::max<std::int32_t>(from, 1), step = 1;
    if (fits(low)) return std::int32_t(low);
    std::int64_t high = low + 1;
    while (!fits(high)) {  // gallop up, then bisect: low fails, high fits
      low = high;
      step *= 2;
      if (high >= INT32_MAX) return std::int32_t(INT32_MAX);
      high = std::min<std::int64_t>(high + step, INT32_MAX);
    }
    while (high - low > 1) {
      const std::int64_t mid = low + (high - low) / 2;
      (fits(mid) ? high : low) = mid;
    }
    return std::int32_t(high);
  };
  const scoring::karlin_params* p = stats.analytic_params();
  if (p && !p->gumbel) {
    // E does not depend on the target: one floor per query (BLAST's search space).
    for (std::size_t q = 0; q < nq; ++q) {
      const double space = scoring::effective_search_space(*p, queries.records[q].residues.size(), db_residues, db_sequences);
      rule.lower[q] = std::int32_t(std::clamp<std::int64_t>(scoring::min_score_for_evalue(*p, request.max_evalue, space),
                                                            request.min_score, INT32_MAX));
    }
    return rule;
  }
  // Spouge's correction (BLAST+'s protein E-values) depends on the target's length: a floor
  // valid for every length between the shortest and the longest target (karlin.hpp).
  // Empirical: the score of a given E-value is piecewise linear in ln length between the fit's
  // breakpoints (empirical.hpp), so the smallest floor of any target lies at the shortest or
  // longest target or at a breakpoint between them. Each target's own floor is found when asked
  // (the --max-hsps thresholds); whether a score passes is one E-value.
  std::uint64_t shortest = UINT64_MAX, longest = 0;
  for (const sequence_record& t : targets.records) {
    shortest = std::min<std::uint64_t>(shortest, t.residues.size());
    longest = std::max<std::uint64_t>(longest, t.residues.size());
  }
  for (std::size_t q = 0; q < nq; ++q) {
    if (p) {
      if (longest == 0) continue;  // no target: the floor stays --min-score
      const std::uint64_t m = queries.records[q].residues.size();
      const std::int64_t low =
          scoring::spouge_min_score_for_evalue(*p, request.max_evalue, m, shortest, longest, db_residues);
      rule.lower[q] = std::int32_t(std::clamp<std::int64_t>(low, request.min_score, INT32_MAX));
      continue;
    }
    std::int32_t low = std::min(smallest(q, shortest, request.min_score), smallest(q, longest, request.min_score));
    for (const std::uint64_t n : stats.fit_of(q)->breakpoints())
      if (n >= shortest && n <= longest) low = std::min(low, smallest(q, n, request.min_score));
    rule.lower[q] = low;
  }
  rule.exact = [&targets, smallest, lower = rule.lower](std::size_t q, std::size_t t) {
    return smallest(q, targets.records[t].residues.size(), lower[q]);
  };
  rule.passes = [&stats, &queries, &targets, db_residues, db_sequences, ln_max](std::size_t q, std::size_t t,
                                                                                 std::int32_t s) {
    return stats.ln_evalue(q, s, queries.records[q].residues.size(), targets.records[t].residues.size(), db_residues,
                           db_sequences) <= ln_max;
  };
  return rule;
}

}  // namespace swat::pipeline

#pragma once
// What the database-search tests share: the CPU engine's exact best cells of every query × target.

#include <vector>

#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "engine/cpu_engine.hpp"

namespace swat::dbsearch::test_support {

//! Exact best cells of every query × target, results[q · targets + t] (CPU engine, all cores).
inline std::vector<best_cell> cpu_cells(const std::vector<residue_span>& queries,
                                        const std::vector<residue_span>& targets, const scoring_scheme& scheme) {
  std::vector<pair_job> jobs;
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (std::size_t t = 0; t < targets.size(); ++t) jobs.push_back({q, t, queries[q], targets[t]});
  std::vector<best_cell> out(jobs.size());
  cpu_engine(0).score_many(jobs, scheme, out, {});
  return out;
}

}  // namespace swat::dbsearch::test_support

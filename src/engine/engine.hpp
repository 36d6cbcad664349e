#pragma once
// The seam every alignment engine plugs into: the reference, the CPU engine and the GPU
// engines all align one pair under a scoring scheme and report the same alignment (tie rules in
// common/traceback.hpp). GPU engines fill on the device, copy back traceback codes (or
// checkpoints) and let walk_traceback() build the alignment on the CPU. Engines are built by
// name through the registry (registry.hpp); a GPU engine says which pairs it cannot take
// (unfit_reason) and the fallback decorator (fallback.hpp) sends those to the CPU engine.

#include <atomic>
#include <cstddef>
#include <functional>
#include <span>
#include <string>

#include "common/alignment.hpp"
#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "common/traceback.hpp"

namespace swat {

//! One pair to align: indices into the query and target sets plus their residues.
struct pair_job {
  std::size_t query_index = 0;
  std::size_t target_index = 0;
  residue_span query;
  residue_span target;
};

//! Called with the number of DP cells finished since the last call (may come from any thread).
using progress_fn = std::function<void(std::uint64_t cells_done)>;

class engine {
 public:
  virtual ~engine() = default;
  //! Short name used in notices and benchmarks ("reference", "cpu", "gpu-fast", …).
  virtual std::string name() const = 0;
  //! Why this engine cannot take the pair (empty: it can), e.g. its traceback does not fit the
  //! GPU memory or the scores leave its integer range. with_cpu_fallback() asks before each pair.
  virtual std::string unfit_reason(residue_span /*query*/, residue_span /*target*/,
                                   const scoring_scheme& /*scheme*/) {
    return {};
  }
  //! Optimal local alignment of query against target, with full path.
  virtual alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) = 0;
  //! Best score and end cell only; engines override it when it is cheaper than align().
  virtual best_cell score_only(residue_span query, residue_span target, const scoring_scheme& scheme) {
    const alignment a = align(query, target, scheme);
    return {a.score, a.query_end, a.target_end};
  }
  //! Best cell of every job into results[k] (same size as jobs). The default runs them in
  //! order; engines that parallelise across pairs override it.
  virtual void score_many(std::span<const pair_job> jobs, const scoring_scheme& scheme,
                          std::span<best_cell> results, const progress_fn& progress) {
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      results[k] = score_only(jobs[k].query, jobs[k].target, scheme);
      if (progress) progress(std::uint64_t(jobs[k].query.size()) * jobs[k].target.size());
    }
  }
  //! Aligns every job into results[k] (same size as jobs). The default runs them in order;
  //! engines that parallelise across pairs override it.
  virtual void align_many(std::span<const pair_job> jobs, const scoring_scheme& scheme,
                          std::span<alignment> results, const progress_fn& progress) {
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      results[k] = align(jobs[k].query, jobs[k].target, scheme);
      if (progress) progress(std::uint64_t(jobs[k].query.size()) * jobs[k].target.size());
    }
  }
};

}  // namespace swat

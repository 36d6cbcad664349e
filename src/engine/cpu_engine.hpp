#pragma once
// The CPU engine: exact Smith-Waterman–Gotoh alignments (identical to reference::align, tie
// rules of common/traceback.hpp) in linear space for the score and bounded memory for the path.
//
// align(): (1) score pass over the whole matrix with forward origin propagation → best cell and
// exact begin (cpu_kernels.hpp); (2) the rectangle [begin, end] is refilled alone and walked
// back, whole or band by band from row checkpoints (cpu_traceback.hpp, proof and memory bound
// there). align_many(): a small pool of threads takes pairs in turn; results in job order.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "engine/engine.hpp"

namespace swat {

class cpu_engine final : public engine {
 public:
  //! Default traceback memory budget per pair (bytes): 1 GiB.
  static constexpr std::size_t default_budget_bytes = std::size_t(1) << 30;

  //! threads: workers for align_many (0 = std::thread::hardware_concurrency()).
  //! budget_bytes: memory for traceback codes and checkpoints, shared by all workers (bytes).
  explicit cpu_engine(unsigned threads = 0, std::size_t budget_bytes = default_budget_bytes);

  std::string name() const override { return "cpu"; }
  alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) override;
  best_cell score_only(residue_span query, residue_span target, const scoring_scheme& scheme) override;
  void align_many(std::span<const pair_job> jobs, const scoring_scheme& scheme,
                  std::span<alignment> results, const progress_fn& progress) override;
  void score_many(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<best_cell> results,
                  const progress_fn& progress) override;

  //! Worker threads used by align_many.
  unsigned threads() const { return threads_; }
  //! Traceback budget (bytes).
  std::size_t budget_bytes() const { return budget_bytes_; }

 private:
  alignment align_one(residue_span query, residue_span target, const scoring_scheme& scheme,
                      std::size_t budget_bytes, const progress_fn* progress) const;

  //! Runs fn(job, budget_bytes) for job = 0..count-1 on the worker pool; rethrows the first error.
  void for_each_job(std::size_t count, const std::function<void(std::size_t, std::size_t)>& fn) const;

  unsigned threads_;
  std::size_t budget_bytes_;
};

}  // namespace swat

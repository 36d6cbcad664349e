// The GPU→CPU fallback decorator (see fallback.hpp).

#include "engine/fallback.hpp"

#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

namespace swat {
namespace {

class fallback_engine final : public engine {
 public:
  fallback_engine(std::unique_ptr<engine> gpu, std::unique_ptr<engine> cpu, notice_fn notice)
      : gpu_(std::move(gpu)), cpu_(std::move(cpu)), notice_(std::move(notice)) {}

  std::string name() const override { return gpu_->name(); }
  std::string device() const override { return gpu_->device(); }

  std::string unfit_reason(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    return gpu_->unfit_reason(query, target, scheme);
  }

  alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (takes(query, target, scheme)) {
      try {
        return gpu_->align(query, target, scheme);
      } catch (const std::bad_alloc&) {
        tell("host memory ran out");
      }
    }
    return cpu_->align(query, target, scheme);
  }

  best_cell score_only(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (takes(query, target, scheme)) {
      try {
        return gpu_->score_only(query, target, scheme);
      } catch (const std::bad_alloc&) {
        tell("host memory ran out");
      }
    }
    return cpu_->score_only(query, target, scheme);
  }

  void score_many(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<best_cell> results,
                  const progress_fn& progress) override {
    run_split(jobs, scheme, results, [&](engine& e, std::span<const pair_job> part, std::span<best_cell> out) {
      e.score_many(part, scheme, out, progress);
    });
  }

  //! A database search goes to the GPU engine whole when it takes the longest query against the
  //! longest target (the reasons of unfit_reason only grow with the lengths: the score bound,
  //! memory), else query by query through score_many (each pair where it fits).
  void search(std::span<const residue_span> queries, std::span<const residue_span> targets,
              const scoring_scheme& scheme, std::span<best_cell> results, const progress_fn& progress) override {
    residue_span longest_query, longest_target;
    for (const residue_span& q : queries)
      if (q.size() >= longest_query.size()) longest_query = q;
    for (const residue_span& t : targets)
      if (t.size() >= longest_target.size()) longest_target = t;
    if (takes(longest_query, longest_target, scheme)) return gpu_->search(queries, targets, scheme, results, progress);
    engine::search(queries, targets, scheme, results, progress);
  }

  bool scans_first() const override { return gpu_->scans_first(); }
  bool scores_tall_pairs_at_once(residue_span query, residue_span target, const scoring_scheme& scheme) const override {
    return gpu_->scores_tall_pairs_at_once(query, target, scheme);
  }
  void score_tall_pairs(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<best_cell> results,
                        const progress_fn& progress) override {
    run_split(jobs, scheme, results, [&](engine& e, std::span<const pair_job> part, std::span<best_cell> out) {
      e.score_tall_pairs(part, scheme, out, progress);
    });
  }
  bool scans_single_pair_first(std::int64_t query, std::int64_t target) const override {
    return gpu_->scans_single_pair_first(query, target);
  }
  void pin_targets(std::span<const residue_span> targets) override { gpu_->pin_targets(targets); }
  std::vector<std::pair<std::string, double>> stage_seconds() const override { return gpu_->stage_seconds(); }
  std::vector<std::string> decisions() const override { return gpu_->decisions(); }

  void align_many(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<alignment> results,
                  const progress_fn& progress) override {
    run_split(jobs, scheme, results, [&](engine& e, std::span<const pair_job> part, std::span<alignment> out) {
      e.align_many(part, scheme, out, progress);
    });
  }

  //! No GPU engine computes several alignments per pair yet: the CPU engine does.
  void align_hsps_many(std::span<const pair_job> jobs, std::span<const std::int32_t> min_scores, std::size_t max_hsps,
                       const scoring_scheme& scheme, std::span<std::vector<alignment>> results,
                       const progress_fn& progress) override {
    cpu_->align_hsps_many(jobs, min_scores, max_hsps, scheme, results, progress);
  }

 private:
  //! The one fits-check: true when the GPU engine takes the pair, else its reason is told.
  bool takes(residue_span query, residue_span target, const scoring_scheme& scheme) {
    const std::string why = gpu_->unfit_reason(query, target, scheme);
    if (why.empty()) return true;
    tell(why);
    return false;
  }

  void tell(const std::string& why) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!told_.insert(why).second) return;
    }
    if (notice_) notice_(gpu_->name() + ": " + why + "; aligning this pair with the CPU engine");
  }

  //! Jobs the GPU engine takes run there as one batch, the others on the CPU engine; results
  //! land in job order. A GPU batch that runs out of host memory is rerun on the CPU.
  template <typename result_t, typename run_t>
  void run_split(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<result_t> results,
                 run_t run) {
    std::vector<pair_job> part[2];
    std::vector<std::size_t> where[2];
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      const int side = takes(jobs[k].query, jobs[k].target, scheme) ? 0 : 1;
      part[side].push_back(jobs[k]);
      where[side].push_back(k);
    }
    for (int side = 0; side < 2; ++side) {
      if (part[side].empty()) continue;
      std::vector<result_t> out(part[side].size());
      if (side == 0) {
        try {
          run(*gpu_, part[0], out);
        } catch (const std::bad_alloc&) {
          tell("host memory ran out");
          run(*cpu_, part[0], out);
        }
      } else {
        run(*cpu_, part[1], out);
      }
      for (std::size_t k = 0; k < out.size(); ++k) results[where[side][k]] = std::move(out[k]);
    }
  }

  std::unique_ptr<engine> gpu_;
  std::unique_ptr<engine> cpu_;
  notice_fn notice_;
  std::mutex mutex_;
  std::set<std::string> told_;
};

}  // namespace

std::unique_ptr<engine> with_cpu_fallback(std::unique_ptr<engine> gpu, std::unique_ptr<engine> cpu,
                                          notice_fn notice) {
  return std::make_unique<fallback_engine>(std::move(gpu), std::move(cpu), std::move(notice));
}

}  // namespace swat

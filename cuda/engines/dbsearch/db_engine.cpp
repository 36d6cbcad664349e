// The database-search engine: the scan for many targets, the wrapped pair engine for the rest.

#include "cuda/engines/dbsearch/db_engine.hpp"

#include <algorithm>

namespace swat::dbsearch {

namespace {

class db_engine final : public engine {
 public:
  db_engine(std::unique_ptr<engine> pairs, scan_options options) : pairs_(std::move(pairs)), options_(options) {}

  std::string name() const override { return "gpu-db"; }

  alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    return pairs_->align(query, target, scheme);
  }
  best_cell score_only(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    return pairs_->score_only(query, target, scheme);
  }
  std::vector<std::pair<std::string, double>> stage_seconds() const override {
    if (timing_.chunks == 0 && timing_.scan_s == 0) return {};
    return {{"prepare", timing_.prepare_s + timing_.upload_s}, {"gpu scan", timing_.scan_s}};
  }
  void align_many(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<alignment> results,
                  const progress_fn& progress) override {
    pairs_->align_many(jobs, scheme, results, progress);
  }

  void score_many(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<best_cell> results,
                  const progress_fn& progress) override {
    const bool one_query = std::all_of(jobs.begin(), jobs.end(), [&](const pair_job& j) {
      return j.query.data() == jobs.front().query.data() && j.query.size() == jobs.front().query.size();
    });
    if (jobs.size() < min_scan_targets || !one_query || !scan_supports(scheme))
      return pairs_->score_many(jobs, scheme, results, progress);
    std::vector<residue_span> targets;
    targets.reserve(jobs.size());
    for (const pair_job& j : jobs) targets.push_back(j.target);
    const residue_span query = jobs.front().query;
    scan(std::span(&query, 1), targets, scheme, results, progress);
  }

  void search(std::span<const residue_span> queries, std::span<const residue_span> targets,
              const scoring_scheme& scheme, std::span<best_cell> results, const progress_fn& progress) override {
    if (targets.size() < min_scan_targets || !scan_supports(scheme))
      return engine::search(queries, targets, scheme, results, progress);
    scan(queries, targets, scheme, results, progress);
  }

 private:
  //! Scans, then computes the pairs the scan handed back with the pair engine.
  void scan(std::span<const residue_span> queries, std::span<const residue_span> targets,
            const scoring_scheme& scheme, std::span<best_cell> results, const progress_fn& progress) {
    db_scanner scanner(targets, scheme, options_);
    std::vector<pair_index> rescan;
    scanner.search(queries, results, rescan, progress ? std::function<void(std::uint64_t)>(progress) : nullptr);
    std::vector<pair_job> jobs;
    jobs.reserve(rescan.size());
    for (const auto& [q, t] : rescan) jobs.push_back({q, t, queries[q], targets[t]});
    std::vector<best_cell> exact(jobs.size());
    pairs_->score_many(jobs, scheme, exact, progress);
    for (std::size_t k = 0; k < jobs.size(); ++k) results[rescan[k].first * targets.size() + rescan[k].second] = exact[k];
    timing_ = scanner.timing();
  }

  std::unique_ptr<engine> pairs_;
  scan_options options_;
  scan_timing timing_;
};

}  // namespace

std::unique_ptr<swat::engine> make_db_engine(std::unique_ptr<swat::engine> pairs, scan_options options) {
  return std::make_unique<db_engine>(std::move(pairs), options);
}

}  // namespace swat::dbsearch

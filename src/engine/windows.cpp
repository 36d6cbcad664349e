// Tall, thin pairs as windows of the long side (see windows.hpp).

#include "engine/windows.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace swat {

std::optional<window_plan> plan_windows(std::int64_t long_len, std::int64_t short_len, bool long_is_query,
                                        const scoring_scheme& scheme, const window_limits& limits) {
  if (!limits.enabled || short_len < 1) return std::nullopt;
  if (long_len < limits.min_long || long_len < limits.min_ratio * short_len) return std::nullopt;
  const std::int64_t extend = scheme.gap_extend, best = scheme.max_score();
  if (extend <= 0 || best <= 0) return std::nullopt;
  const std::int64_t overlap = short_len + (short_len * best + extend - 1) / extend + 1;
  const std::int64_t cap = long_is_query ? limits.max_query_width : limits.max_width;
  const std::int64_t width = std::min(cap, std::max(limits.min_width, 4 * overlap));
  if (width < 2 * overlap || long_len <= width) return std::nullopt;
  window_plan plan{overlap, width, {}};
  for (std::int64_t start = 0;; start += width - overlap) {
    plan.starts.push_back(start);
    if (start + width >= long_len) break;
  }
  return plan;
}

namespace {

class windowed_engine final : public engine {
 public:
  windowed_engine(std::unique_ptr<engine> inner, window_limits limits) : inner_(std::move(inner)), limits_(limits) {}

  std::string name() const override { return inner_->name(); }
  std::string device() const override { return inner_->device(); }
  std::string unfit_reason(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    return inner_->unfit_reason(query, target, scheme);
  }
  bool scans_first() const override { return inner_->scans_first(); }
  std::vector<std::pair<std::string, double>> stage_seconds() const override { return inner_->stage_seconds(); }
  //! A database engine searches whole (its long targets go to its pair engine); any other
  //! engine's search is the default one, through this score_many, so its tall pairs get windows.
  void search(std::span<const residue_span> queries, std::span<const residue_span> targets,
              const scoring_scheme& scheme, std::span<best_cell> results, const progress_fn& progress) override {
    if (inner_->scans_first()) return inner_->search(queries, targets, scheme, results, progress);
    engine::search(queries, targets, scheme, results, progress);
  }
  void align_hsps_many(std::span<const pair_job> jobs, std::span<const std::int32_t> min_scores, std::size_t max_hsps,
                       const scoring_scheme& scheme, std::span<std::vector<alignment>> results,
                       const progress_fn& progress) override {
    inner_->align_hsps_many(jobs, min_scores, max_hsps, scheme, results, progress);
  }

  best_cell score_only(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (const auto p = plan_for(query, target, scheme)) return scan(query, target, scheme, *p, {});
    return inner_->score_only(query, target, scheme);
  }

  alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (const auto p = plan_for(query, target, scheme)) return align_in_windows(query, target, scheme, *p, {}, {});
    return inner_->align(query, target, scheme);
  }

  void score_many(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<best_cell> results,
                  const progress_fn& progress) override {
    split(jobs, scheme, results, [&](const pair_job& job, const pair_plan& p) {
      return scan(job.query, job.target, scheme, p, progress);
    }, [&](std::span<const pair_job> whole, std::span<best_cell> out) { inner_->score_many(whole, scheme, out, progress); });
  }

  void align_many(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<alignment> results,
                  const progress_fn& progress) override {
    split(jobs, scheme, results, [&](const pair_job& job, const pair_plan& p) {
      return align_in_windows(job.query, job.target, scheme, p, job.known, progress);
    }, [&](std::span<const pair_job> whole, std::span<alignment> out) { inner_->align_many(whole, scheme, out, progress); });
  }

 private:
  struct pair_plan {
    window_plan windows;
    bool long_is_query = false;
  };

  std::optional<pair_plan> plan_for(residue_span query, residue_span target, const scoring_scheme& scheme) const {
    const bool long_is_query = query.size() >= target.size();
    const auto longer = std::int64_t(long_is_query ? query.size() : target.size());
    const auto shorter = std::int64_t(long_is_query ? target.size() : query.size());
    if (longer > std::int64_t(INT32_MAX)) return std::nullopt;  // the inner engine's own limit and message
    auto windows = plan_windows(longer, shorter, long_is_query, scheme, limits_);
    if (!windows) return std::nullopt;
    return pair_plan{std::move(*windows), long_is_query};
  }

  //! results[k] for every job: windowed(job, plan) for the tall, thin ones, and one batch
  //! whole(jobs, out) for the rest (so the inner engine still spreads them over its threads).
  template <typename Result, typename Windowed, typename Whole>
  void split(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<Result> results,
             Windowed&& windowed, Whole&& whole) {
    std::vector<pair_job> rest;
    std::vector<std::size_t> rest_at;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      if (const auto p = plan_for(jobs[k].query, jobs[k].target, scheme)) {
        results[k] = windowed(jobs[k], *p);
      } else {
        rest.push_back(jobs[k]);
        rest_at.push_back(k);
      }
    }
    if (rest.empty()) return;
    std::vector<Result> out(rest.size());
    whole(std::span<const pair_job>(rest), std::span<Result>(out));
    for (std::size_t r = 0; r < rest.size(); ++r) results[rest_at[r]] = std::move(out[r]);
  }

  //! The pair's best cell from its windows (as independent pairs: one search, or score_many).
  best_cell scan(residue_span query, residue_span target, const scoring_scheme& scheme, const pair_plan& p,
                 const progress_fn& progress) {
    const residue_span long_side = p.long_is_query ? query : target;
    const std::size_t n = p.windows.starts.size();
    std::vector<residue_span> windows(n);
    for (std::size_t k = 0; k < n; ++k) {
      const auto from = std::size_t(p.windows.starts[k]);
      windows[k] = long_side.subspan(from, std::min(std::size_t(p.windows.width), long_side.size() - from));
    }
    // Progress in the pair's own cells: the overlaps are scanned twice.
    std::uint64_t window_cells = 0;
    for (const residue_span& w : windows) window_cells += std::uint64_t(w.size());
    const double share = double(long_side.size()) / double(std::max<std::uint64_t>(window_cells, 1));
    const progress_fn scaled = !progress ? progress_fn{} : progress_fn([&progress, share](std::uint64_t cells) {
      progress(std::uint64_t(double(cells) * share));
    });
    std::vector<best_cell> cells(n);
    if (inner_->scans_first()) {  // a database engine: the windows are its queries or its targets
      const residue_span other = p.long_is_query ? target : query;
      if (p.long_is_query)
        inner_->search(windows, std::span<const residue_span>(&other, 1), scheme, cells, scaled);
      else
        inner_->search(std::span<const residue_span>(&other, 1), windows, scheme, cells, scaled);
    } else {
      std::vector<pair_job> jobs(n);
      for (std::size_t k = 0; k < n; ++k)
        jobs[k] = p.long_is_query ? pair_job{k, 0, windows[k], target} : pair_job{0, k, query, windows[k]};
      inner_->score_many(jobs, scheme, cells, scaled);
    }
    best_cell best{};
    for (std::size_t k = 0; k < n; ++k) {
      best_cell c = cells[k];
      if (c.score <= 0) continue;
      (p.long_is_query ? c.query_end : c.target_end) += p.windows.starts[k];
      if (cell_beats(c.score, c.query_end, c.target_end, best.score, best.query_end, best.target_end)) best = c;
    }
    return best;
  }

  //! The alignment into the pair's best cell (`known` when a scan found it already), computed on
  //! the `overlap` residues of the long side before it.
  alignment align_in_windows(residue_span query, residue_span target, const scoring_scheme& scheme,
                             const pair_plan& p, best_cell known, const progress_fn& progress) {
    const best_cell end = known.score > 0 ? known : scan(query, target, scheme, p, progress);
    if (end.score <= 0) return {};
    const std::int64_t end_long = p.long_is_query ? end.query_end : end.target_end;
    const std::int64_t from = std::max<std::int64_t>(0, end_long - p.windows.overlap);
    const residue_span long_side = p.long_is_query ? query : target;
    const residue_span region = long_side.subspan(std::size_t(from), std::size_t(end_long - from));
    alignment a = p.long_is_query ? inner_->align(region, target, scheme) : inner_->align(query, region, scheme);
    if (p.long_is_query) {
      a.query_begin += from;
      a.query_end += from;
    } else {
      a.target_begin += from;
      a.target_end += from;
    }
    if (a.score != end.score || a.query_end != end.query_end || a.target_end != end.target_end)
      throw std::logic_error("windowed alignment: the region before the best cell gave another alignment");
    return a;
  }

  std::unique_ptr<engine> inner_;
  window_limits limits_;
};

}  // namespace

std::unique_ptr<engine> with_windows(std::unique_ptr<engine> inner, window_limits limits) {
  return std::make_unique<windowed_engine>(std::move(inner), limits);
}

}  // namespace swat

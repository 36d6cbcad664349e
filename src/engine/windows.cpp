// Tall, thin pairs as windows of the long side (see windows.hpp).

#include "engine/windows.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <stdexcept>
#include <tuple>

namespace swat {

std::int64_t window_overlap(std::int64_t short_len, const scoring_scheme& scheme) {
  const std::int64_t extend = scheme.gap_extend, best = scheme.max_score();
  if (extend <= 0 || best <= 0 || short_len < 1) return 0;
  return short_len + (short_len * best + extend - 1) / extend + 1;
}

std::int64_t window_reach_of_score(std::int64_t short_end, std::int32_t score, const scoring_scheme& scheme) {
  const std::int64_t extend = scheme.gap_extend, best = scheme.max_score();
  if (extend <= 0 || best <= 0 || short_end < 1 || score <= 0) return 0;
  const std::int64_t room = std::max<std::int64_t>(0, short_end * best - std::int64_t(score));
  return short_end + (room + extend - 1) / extend + 1;
}

std::optional<window_plan> plan_windows(std::int64_t long_len, std::int64_t short_len, bool long_is_query,
                                        const scoring_scheme& scheme, const window_limits& limits) {
  if (!limits.enabled || short_len < 1) return std::nullopt;
  if (long_len < limits.min_long || long_len < limits.min_ratio * short_len) return std::nullopt;
  const std::int64_t overlap = window_overlap(short_len, scheme);
  if (overlap == 0) return std::nullopt;
  const std::int64_t cap = long_is_query ? limits.max_query_width : limits.max_width;
  const std::int64_t narrowest = std::max<std::int64_t>(2, limits.overlaps_wide) * overlap;
  std::int64_t width = std::min(cap, std::max(limits.min_width, narrowest));
  if (limits.min_windows > 1)  // narrower, so that min_windows of them cover the long side
    width = std::min(width, std::max(narrowest, long_len / limits.min_windows + overlap));
  if (width < 2 * overlap) return std::nullopt;
  if (long_len <= width) {
    // A side the scan cannot take as it is but one wide window can: that window, which joins
    // the search of the group's other long sides (the scan takes it the other way round).
    if (limits.scan_target_limit > 0 && long_len > limits.scan_target_limit && limits.min_windows <= 1)
      return window_plan{overlap, long_len, {0}};
    return std::nullopt;
  }
  // Windows of width w: starts 0, w − overlap, … until one reaches long_len.
  const auto count_of = [&](std::int64_t w) {
    return long_len <= w ? std::int64_t(1) : 1 + (long_len - overlap - 1) / (w - overlap);
  };
  if (const std::int64_t lanes = limits.lane_multiple; lanes > 1 && !long_is_query) {
    // Lanes idle in the last round: as many windows as fill it, narrower, where the rounds'
    // columns shrink (not for a few windows, which no batch of lanes takes).
    const std::int64_t n = count_of(width);
    const std::int64_t filled = (n + lanes - 1) / lanes * lanes;
    if (2 * n >= lanes && filled > n) {
      const std::int64_t narrower = (long_len - overlap + filled - 1) / filled + overlap;
      if (narrower >= narrowest && (count_of(narrower) + lanes - 1) / lanes * narrower < (n + lanes - 1) / lanes * width)
        width = narrower;
    }
  }
  const std::int64_t count = count_of(width);
  if (count < limits.min_windows) return std::nullopt;
  window_plan plan{overlap, width, {}};
  for (std::int64_t k = 0; k < count; ++k) plan.starts.push_back(k * (width - overlap));
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
  bool scans_single_pair_first(std::int64_t query, std::int64_t target) const override {
    return inner_->scans_single_pair_first(query, target);
  }
  bool scores_tall_pairs_at_once(residue_span query, residue_span target, const scoring_scheme& scheme) const override {
    return inner_->scores_tall_pairs_at_once(query, target, scheme);
  }
  //! Such pairs are filled whole by the inner engine (no windows of this one).
  void score_tall_pairs(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<best_cell> results,
                        const progress_fn& progress) override {
    inner_->score_tall_pairs(jobs, scheme, results, progress);
  }
  //! Pinned targets reach the inner engine; its searches of windows are of other targets.
  void pin_targets(std::span<const residue_span> targets) override { inner_->pin_targets(targets); }
  std::vector<std::pair<std::string, double>> stage_seconds() const override { return inner_->stage_seconds(); }
  std::vector<std::string> decisions() const override {
    std::vector<std::string> d;
    if (last_windows_.long_length > 0)
      d.push_back("a side of " + std::to_string(last_windows_.long_length) + " in " +
                  std::to_string(last_windows_.plan.starts.size()) + " windows of " +
                  std::to_string(last_windows_.plan.width) + " (overlap " + std::to_string(last_windows_.plan.overlap) +
                  ") against " + std::to_string(last_windows_.shorts) + " sequences" +
                  (last_windows_.groups > 1 ? " (and " + std::to_string(last_windows_.groups - 1) + " more long sides)" : ""));
    if (at_once_pairs_ > 0)
      d.push_back(std::to_string(at_once_pairs_) + " tall pairs whole, filled at once (too few tasks for a scan of windows)");
    if (whole_sooner_pairs_ > 0)
      d.push_back(std::to_string(whole_sooner_pairs_) + " tall pairs whole, one a thread (sooner than their windows' overlaps)");
    for (std::string& line : inner_->decisions()) d.push_back(std::move(line));
    return d;
  }

  //! A database engine gets the tall pairs that share a long side as one search of the short
  //! sides against its windows, and the other pairs as few searches as their target lists
  //! allow; any other engine gets every pair in one score_many (through this one's, in chunks of
  //! queries of at most search_batch_jobs = 2^18 pairs): its threads and the share of each pair
  //! (window_limits::share_threads) see the whole search.
  void search(std::span<const residue_span> queries, std::span<const residue_span> targets,
              const scoring_scheme& scheme, std::span<best_cell> results, const progress_fn& progress) override {
    if (!inner_->scans_first()) {
      constexpr std::size_t search_batch_jobs = std::size_t(1) << 18;
      const std::size_t nt = targets.size(), per = std::max<std::size_t>(1, search_batch_jobs / std::max<std::size_t>(nt, 1));
      std::vector<pair_job> jobs;
      jobs.reserve(std::min(queries.size(), per) * nt);
      for (std::size_t q0 = 0; nt > 0 && q0 < queries.size(); q0 += per) {
        jobs.clear();
        for (std::size_t q = q0; q < std::min(queries.size(), q0 + per); ++q)
          for (std::size_t t = 0; t < nt; ++t) jobs.push_back({q, t, queries[q], targets[t]});
        score_many(jobs, scheme, results.subspan(q0 * nt, jobs.size()), progress);
      }
      return;
    }
    std::size_t longest = 0;  // no pair can be tall: the search as it is, without a look at every pair
    for (const residue_span& q : queries) longest = std::max(longest, q.size());
    for (const residue_span& t : targets) longest = std::max(longest, t.size());
    if (!limits_.enabled || std::int64_t(longest) < limits_.min_long)
      return inner_->search(queries, targets, scheme, results, progress);
    struct tall_group {
      residue_span long_side;
      bool long_is_query = false;
      std::int64_t longest_short = 0;
      std::vector<residue_span> shorts;
      std::vector<std::pair<std::size_t, std::size_t>> pairs;  // (query, target) of each short side
    };
    // Pairs are tall by the pair's own shape; whether there are enough windows is a question of
    // the group: every short side against every window is a task of one search.
    window_limits any_count = limits_;
    any_count.min_windows = 1;
    std::map<std::tuple<const void*, std::size_t, bool>, tall_group> tall;
    std::vector<std::vector<std::size_t>> rest(queries.size());  // targets of each query searched whole
    for (std::size_t q = 0; q < queries.size(); ++q)
      for (std::size_t t = 0; t < targets.size(); ++t) {
        const auto p = plan_for(queries[q], targets[t], scheme, any_count);
        if (!p) {
          rest[q].push_back(t);
          continue;
        }
        const residue_span long_side = p->long_is_query ? queries[q] : targets[t];
        tall_group& g = tall[{long_side.data(), long_side.size(), p->long_is_query}];
        g.long_side = long_side;
        g.long_is_query = p->long_is_query;
        g.shorts.push_back(p->long_is_query ? targets[t] : queries[q]);
        g.longest_short = std::max(g.longest_short, std::int64_t(g.shorts.back().size()));
        g.pairs.emplace_back(q, t);
      }
    bool windowed = false;
    last_windows_ = {};
    at_once_pairs_ = 0;
    // Groups with the same short sides (every gene against every genome) are one search: the
    // windows of all their long sides are the targets of one scan, which fills the GPU better
    // than a scan per long side. Their windows share the overlap (the same longest short side).
    std::map<std::pair<std::vector<std::pair<const void*, std::size_t>>, bool>, std::vector<const tall_group*>> together;
    std::map<const tall_group*, window_plan> plans;
    std::map<const tall_group*, window_limits> limits_of;
    const tall_group* last = nullptr;
    for (const auto& [key, g] : tall) {
      const bool as_queries = windows_are_queries(g.long_is_query, scheme);
      window_limits group_limits = limits_for(g.longest_short, g.long_is_query, scheme, limits_);
      const std::int64_t cap = as_queries ? group_limits.max_query_width : group_limits.max_width;
      const bool beyond_scan = limits_.scan_target_limit > 0 && std::int64_t(g.long_side.size()) > limits_.scan_target_limit;
      if (beyond_scan) {
        // A long side the inner engine cannot scan as it is: windows of any number beat the
        // alternative (the pair engine on each whole pair, or a scan of a few very long tasks).
        group_limits.min_windows = 1;
      } else {
        // The longest short side's overlap bounds every pair of the group; min_windows counts the
        // group's tasks (short sides × windows), so many short sides take fewer, wider windows.
        group_limits.min_windows =
            (limits_.min_windows + std::int64_t(g.shorts.size()) - 1) / std::int64_t(g.shorts.size());
      }
      // With tasks to spare even at the widest windows, the widest: the least overlap scanned
      // twice (not beyond the inner engine's own target limit: four overlaps wide then).
      const bool within_scan = limits_.scan_target_limit <= 0 || as_queries || cap <= limits_.scan_target_limit;
      if (within_scan && std::int64_t(g.shorts.size()) * (std::int64_t(g.long_side.size()) / cap) >= limits_.min_windows)
        group_limits.min_width = cap;
      const auto plan =
          plan_windows(std::int64_t(g.long_side.size()), g.longest_short, as_queries, scheme, group_limits);
      if (!plan) {  // too few tasks for the windows to pay: the group's pairs are searched whole
        for (const auto& [q, t] : g.pairs) rest[q].push_back(t);
        continue;
      }
      windowed = true;
      last_windows_.groups += 1;
      last = &g;
      std::vector<std::pair<const void*, std::size_t>> ids;
      for (const residue_span& r : g.shorts) ids.emplace_back(r.data(), r.size());
      together[{std::move(ids), g.long_is_query}].push_back(&g);
      plans.emplace(&g, *plan);
      limits_of.emplace(&g, group_limits);
    }
    // A search of fewer tasks than keep the inner engine busy (few long sides, few short ones:
    // genes against genomes) goes whole to an inner engine that fills such pairs together
    // (scores_tall_pairs_at_once: the fast engine's batches, whose strips share the GPU without
    // the windows' overlaps): bench shapes' genes_genome scan 0.69 → 0.22 s on one H100
    // (bench/results/tall_batch_h100.csv).
    const auto all_at_once = [&](const std::vector<std::pair<std::size_t, std::size_t>>& pairs) {
      return std::all_of(pairs.begin(), pairs.end(), [&](const std::pair<std::size_t, std::size_t>& p) {
        return inner_->scores_tall_pairs_at_once(queries[p.first], targets[p.second], scheme);
      });
    };
    std::vector<pair_job> at_once;
    std::set<std::pair<std::vector<std::pair<const void*, std::size_t>>, bool>> whole_sets;  // their keys
    for (auto set = together.begin(); set != together.end() && limits_.fill_tasks > 0;) {
      std::int64_t tasks = 0;
      bool all = true;
      for (const tall_group* g : set->second) {
        tasks += std::int64_t(plans.at(g).starts.size() * g->shorts.size());
        all = all && all_at_once(g->pairs);
      }
      if (tasks >= 2 * limits_.fill_tasks || !all) {
        ++set;
        continue;
      }
      for (const tall_group* g : set->second)
        for (const auto& [q, t] : g->pairs) at_once.push_back({q, t, queries[q], targets[t]});
      last_windows_.groups -= std::int64_t(set->second.size());
      whole_sets.insert(set->first);
      set = together.erase(set);
    }
    if (!at_once.empty()) {  // the last windowed group, in the order of `tall`, is among those left
      std::set<const tall_group*> left;
      for (const auto& set : together) left.insert(set.second.begin(), set.second.end());
      last = nullptr;
      for (const auto& entry : tall)
        if (left.count(&entry.second) != 0) last = &entry.second;
      windowed = !together.empty();
    }
    // Otherwise such a search takes narrower windows, three or two overlaps wide: each task's
    // time, not the number of rounds, then sets the search's, and it is proportional to the
    // width (four → two overlaps: gpu scan 1.03 → 0.57 s, bench shapes' genes_genome on one
    // H100, bench/results/windows_narrow_h100.csv). Tasks are counted as windows × short sides
    // against twice fill_tasks: the scan pairs two windows, or two short sides, a task.
    for (const auto& set : together) {
      if (limits_.fill_tasks <= 0) break;
      const std::vector<const tall_group*>& groups = set.second;  // (no lambda captures a structured binding: clang 14)
      const auto tasks = [&] {
        std::int64_t n = 0;
        for (const tall_group* g : groups) n += std::int64_t(plans.at(g).starts.size() * g->shorts.size());
        return n;
      };
      for (std::int64_t wide = 3; wide >= 2 && tasks() < 2 * limits_.fill_tasks; --wide) {
        for (const tall_group* g : groups) {
          window_limits narrower = limits_of.at(g);
          narrower.overlaps_wide = wide;
          narrower.min_width = 0;
          const bool as_queries = windows_are_queries(g->long_is_query, scheme);
          const auto plan = plan_windows(std::int64_t(g->long_side.size()), g->longest_short, as_queries, scheme, narrower);
          if (plan && plan->starts.size() >= plans.at(g).starts.size()) plans.at(g) = *plan;
        }
      }
    }
    // Long sides too short for windows (a small genome beside larger ones) whose pairs are exactly
    // a search of windows' short sides join it as one window each, when no wider than its
    // windows (after any narrowing): their tasks run beside the others' instead of in a search
    // of their own, too small to fill the GPU. One window is the whole pair: exact as it is. Those
    // of a search given whole join its pairs (when the inner engine fills them at once too).
    std::map<std::tuple<const void*, std::size_t, bool>, tall_group> joining;
    for (std::size_t q = 0; q < queries.size() && (!together.empty() || !whole_sets.empty()); ++q)
      for (std::size_t t : rest[q]) {
        const bool long_is_query = queries[q].size() >= targets[t].size();  // as plan_for
        const residue_span long_side = long_is_query ? queries[q] : targets[t];
        const residue_span short_side = long_is_query ? targets[t] : queries[q];
        if (std::int64_t(long_side.size()) < limits_.min_ratio * std::int64_t(short_side.size())) continue;
        tall_group& g = joining[{long_side.data(), long_side.size(), long_is_query}];
        g.long_side = long_side;
        g.long_is_query = long_is_query;
        g.shorts.push_back(short_side);
        g.longest_short = std::max(g.longest_short, std::int64_t(short_side.size()));
        g.pairs.emplace_back(q, t);
      }
    std::vector<std::vector<std::size_t>> joined_targets(queries.size());  // per query, to leave `rest`
    for (auto& [key, g] : joining) {
      std::vector<std::pair<const void*, std::size_t>> ids;
      for (const residue_span& r : g.shorts) ids.emplace_back(r.data(), r.size());
      if (whole_sets.count({ids, g.long_is_query}) != 0) {
        if (!all_at_once(g.pairs)) continue;
        for (const auto& [q, t] : g.pairs) {
          at_once.push_back({q, t, queries[q], targets[t]});
          joined_targets[q].push_back(t);
        }
        continue;
      }
      const auto set = together.find({std::move(ids), g.long_is_query});
      if (set == together.end()) continue;
      const window_plan like = plans.at(set->second.front());
      if (std::int64_t(g.long_side.size()) > like.width || tall.count(key) != 0) continue;
      const tall_group* joined = &tall.emplace(key, std::move(g)).first->second;
      set->second.push_back(joined);
      plans.emplace(joined, window_plan{like.overlap, std::int64_t(joined->long_side.size()), {0}});
      last_windows_.groups += 1;
      for (const auto& [q, t] : joined->pairs) joined_targets[q].push_back(t);
    }
    for (std::size_t q = 0; q < queries.size(); ++q) {
      if (joined_targets[q].empty()) continue;
      std::sort(joined_targets[q].begin(), joined_targets[q].end());
      std::erase_if(rest[q], [&](std::size_t t) {
        return std::binary_search(joined_targets[q].begin(), joined_targets[q].end(), t);
      });
    }
    if (last) {
      last_windows_.long_length = std::int64_t(last->long_side.size());
      last_windows_.shorts = std::int64_t(last->shorts.size());
      last_windows_.plan = plans.at(last);
    }
    for (const auto& [key, groups] : together) {
      std::vector<long_windows> longs;
      for (const tall_group* g : groups) longs.push_back({g->long_side, plans.at(g)});
      const std::vector<residue_span>& shorts = groups.front()->shorts;
      const std::vector<best_cell> cells = scan(longs, key.second, shorts, scheme, progress);
      for (std::size_t l = 0; l < groups.size(); ++l)
        for (std::size_t k = 0; k < shorts.size(); ++k) {
          const auto [q, t] = groups[l]->pairs[k];
          results[q * targets.size() + t] = cells[l * shorts.size() + k];
        }
    }
    if (!windowed && at_once.empty()) return inner_->search(queries, targets, scheme, results, progress);
    if (!at_once.empty()) {
      std::vector<best_cell> out(at_once.size());
      inner_->score_tall_pairs(at_once, scheme, out, progress);
      for (std::size_t k = 0; k < at_once.size(); ++k)
        results[at_once[k].query_index * targets.size() + at_once[k].target_index] = out[k];
      at_once_pairs_ = at_once.size();
    }
    for (std::vector<std::size_t>& ts : rest) std::sort(ts.begin(), ts.end());
    // The other pairs: queries with the same targets left go to one search.
    std::map<std::vector<std::size_t>, std::vector<std::size_t>> by_targets;
    for (std::size_t q = 0; q < queries.size(); ++q)
      if (!rest[q].empty()) by_targets[rest[q]].push_back(q);
    for (const auto& [ts, qs] : by_targets) {
      std::vector<residue_span> some_queries, some_targets;
      for (std::size_t q : qs) some_queries.push_back(queries[q]);
      for (std::size_t t : ts) some_targets.push_back(targets[t]);
      std::vector<best_cell> out(qs.size() * ts.size());
      inner_->search(some_queries, some_targets, scheme, out, progress);
      for (std::size_t a = 0; a < qs.size(); ++a)
        for (std::size_t b = 0; b < ts.size(); ++b) results[qs[a] * targets.size() + ts[b]] = out[a * ts.size() + b];
    }
  }

  void align_hsps_many(std::span<const pair_job> jobs, std::span<const std::int32_t> min_scores, std::size_t max_hsps,
                       const scoring_scheme& scheme, std::span<std::vector<alignment>> results,
                       const progress_fn& progress) override {
    inner_->align_hsps_many(jobs, min_scores, max_hsps, scheme, results, progress);
  }

  best_cell score_only(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (const auto p = plan_for(query, target, scheme)) return scan_pair(query, target, scheme, *p, {});
    return inner_->score_only(query, target, scheme);
  }

  alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (const auto p = plan_for(query, target, scheme)) return align_in_windows(query, target, scheme, *p, {}, {});
    return inner_->align(query, target, scheme);
  }

  void score_many(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<best_cell> results,
                  const progress_fn& progress) override {
    if (!inner_->scans_first()) return score_many_in_one_batch(jobs, scheme, results, progress);
    split(jobs, results, [&](const pair_job& job, const pair_plan& p) {
      return scan_pair(job.query, job.target, scheme, p, progress);
    }, [&](std::span<const pair_job> whole, std::span<best_cell> out) { inner_->score_many(whole, scheme, out, progress); },
          [&](const pair_job& job) { return plan_for(job.query, job.target, scheme); });
  }

  //! An engine that is not a database engine (the CPU engine's threads across jobs) gets the
  //! windows of every tall pair and the whole pairs as one batch: a few long pairs then use
  //! every thread at once instead of one pair's windows after another's.
  void score_many_in_one_batch(std::span<const pair_job> jobs, const scoring_scheme& scheme,
                               std::span<best_cell> results, const progress_fn& progress) {
    whole_sooner_pairs_ = 0;
    struct cut {
      std::size_t job = 0, first = 0;  // batch[first …] are its windows (or the whole pair)
      std::optional<pair_plan> plan;
    };
    std::vector<cut> cuts;
    std::vector<pair_job> batch;
    std::uint64_t pair_cells = 0, batch_cells = 0;
    for (const pair_job& job : jobs) pair_cells += std::uint64_t(job.query.size()) * job.target.size();
    const auto plan_of = [&](const pair_job& job) -> std::optional<pair_plan> {
      const std::uint64_t cells = std::uint64_t(job.query.size()) * job.target.size();
      const bool small_share = limits_.share_threads > 0 &&
                               double(cells) * 2.0 * double(limits_.share_threads) <= double(pair_cells);
      return small_share ? std::nullopt : plan_for(job.query, job.target, scheme);
    };
    // No pair cut into windows (a database of proteins): the jobs go as they are, uncopied.
    std::size_t first_cut = 0;
    std::optional<pair_plan> first_plan;
    while (first_cut < jobs.size() && !(first_plan = plan_of(jobs[first_cut]))) ++first_cut;
    if (first_cut == jobs.size()) return inner_->score_many(jobs, scheme, results, progress);
    std::vector<std::optional<pair_plan>> plans(jobs.size());
    plans[first_cut] = std::move(first_plan);
    for (std::size_t k = first_cut + 1; k < jobs.size(); ++k) plans[k] = plan_of(jobs[k]);
    if (whole_pairs_finish_sooner(jobs, plans)) {
      whole_sooner_pairs_ = std::size_t(std::count_if(plans.begin(), plans.end(), [](const auto& p) { return p.has_value(); }));
      return inner_->score_many(jobs, scheme, results, progress);
    }
    cuts.reserve(jobs.size());
    batch.reserve(jobs.size());
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      const pair_job& job = jobs[k];
      cut c{k, batch.size(), std::move(plans[k])};
      if (!c.plan) {
        batch.push_back(job);
      } else {
        std::vector<residue_span> windows;
        append_windows(c.plan->long_is_query ? job.query : job.target, c.plan->windows, windows);
        for (const residue_span w : windows)
          batch.push_back(c.plan->long_is_query ? pair_job{job.query_index, job.target_index, w, job.target}
                                                : pair_job{job.query_index, job.target_index, job.query, w});
      }
      cuts.push_back(std::move(c));
    }
    for (const pair_job& j : batch) batch_cells += std::uint64_t(j.query.size()) * j.target.size();
    std::vector<best_cell> out(batch.size());
    inner_->score_many(batch, scheme, out, scaled_progress(progress, pair_cells, batch_cells));
    for (const cut& c : cuts)
      results[c.job] = !c.plan ? out[c.first] : best_of_windows(c.plan->windows, c.plan->long_is_query, [&](std::size_t w) {
        return out[c.first + w];
      });
  }

  //! A tall pair whose best cell is known (a search found it) is aligned in the overlap before
  //! that cell whatever its number of windows: no scan is left to do, only a narrow box, and the
  //! boxes of all such pairs go to the inner engine together with the whole pairs (one batch).
  void align_many(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<alignment> results,
                  const progress_fn& progress) override {
    window_limits any_count = limits_;
    any_count.min_windows = 1;
    // With the end cell known, the box before it pays for any pair whose long side exceeds four
    // overlaps (a read's hit 200 kb into a genome: its box, not 200 kb of the genome).
    any_count.min_long = 0;
    any_count.min_ratio = 1;
    any_count.min_width = 0;
    std::vector<pair_job> batch;
    std::vector<std::size_t> batch_at;
    std::vector<std::optional<pair_plan>> plans(jobs.size());
    std::vector<std::int64_t> from(jobs.size(), 0);
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      const pair_job& job = jobs[k];
      plans[k] = plan_for(job.query, job.target, scheme, job.known.score > 0 ? any_count : limits_);
      if (plans[k] && job.known.score <= 0) {  // a scan first, then its box
        results[k] = align_in_windows(job.query, job.target, scheme, *plans[k], {}, progress);
        continue;
      }
      if (plans[k]) {
        const auto [box, start] = region_before(job, *plans[k], scheme);
        batch.push_back(box);
        from[k] = start;
      } else {
        batch.push_back(job);
      }
      batch_at.push_back(k);
    }
    std::vector<alignment> out(batch.size());
    inner_->align_many(batch, scheme, out, progress);
    for (std::size_t b = 0; b < batch.size(); ++b) {
      const std::size_t k = batch_at[b];
      results[k] = plans[k] ? shifted_back(std::move(out[b]), from[k], *plans[k], jobs[k].known) : std::move(out[b]);
    }
  }

 private:
  struct pair_plan {
    window_plan windows;
    bool long_is_query = false;
  };

  //! Whether the pairs run whole end sooner than with the planned ones cut into windows, on
  //! window_limits::share_threads threads (each item on one thread, largest first to the least
  //! loaded: a list schedule in cells, a whole pair's cell costing what a window's does). Windows
  //! scan their overlaps twice, and a tall pair whose long side is the target, run whole, takes its
  //! thread's lanes as row bands of its short query, at no more cost per cell than its windows in
  //! lanes (whose saturated lanes are scored
  //! again). Two 5 kb reads × a 1.46 Mb genome on 2 threads: 21 % more cells in windows, and the
  //! reads whole took 0.345-0.386 s against 0.461-0.476 s (AVX-512 development machine); on 16
  //! threads the windows spread over every thread. A long query stays cut: its row bands keep
  //! about 27 bytes a row and give way to the striped 32-bit pass past 8.4 M rows (two 8.5 Mb
  //! queries × 400 residues on 2 threads: 0.93 s whole against 0.18 s in windows).
  bool whole_pairs_finish_sooner(std::span<const pair_job> jobs, std::span<const std::optional<pair_plan>> plans) const {
    const std::size_t threads = std::size_t(limits_.share_threads);
    if (threads == 0) return false;
    for (const std::optional<pair_plan>& p : plans)
      if (p && p->long_is_query) return false;
    std::vector<double> whole, cut;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      const double cells = double(jobs[k].query.size()) * double(jobs[k].target.size());
      whole.push_back(cells);
      if (!plans[k]) {
        cut.push_back(cells);
        continue;
      }
      const window_plan& w = plans[k]->windows;  // of the target (no long query gets here)
      const double target = double(jobs[k].target.size()), query = double(jobs[k].query.size());
      for (std::size_t x = 0; x < w.starts.size(); ++x)
        cut.push_back(query * (x + 1 < w.starts.size() ? double(w.width) : target - double(w.starts[x])));
    }
    const auto makespan = [threads](std::vector<double>& items) {
      std::sort(items.begin(), items.end(), std::greater<>());
      std::priority_queue<double, std::vector<double>, std::greater<>> loads;
      for (std::size_t t = 0; t < threads; ++t) loads.push(0.0);
      double longest = 0;
      for (const double c : items) {
        const double load = loads.top() + c;
        loads.pop();
        loads.push(load);
        longest = std::max(longest, load);
      }
      return longest;
    };
    return makespan(whole) <= makespan(cut);
  }

  //! A database engine scans a long query's windows as its targets (the short side as the one
  //! query: many targets are what it is fast at), which the scores allow when symmetric.
  bool transposes(bool long_is_query, const scoring_scheme& scheme) const {
    return long_is_query && inner_->scans_first() && scheme.symmetric();
  }
  //! Whether the windows are the inner engine's queries (their width cap is max_query_width).
  bool windows_are_queries(bool long_is_query, const scoring_scheme& scheme) const {
    return long_is_query && !transposes(long_is_query, scheme);
  }

  //! `limits` for short sides of up to short_len residues: windows that are a database engine's
  //! targets stay within its target limit when that costs at most a quarter of each window in
  //! overlap, or when the engine cannot scan the other way round (window_limits::scan_target_limit).
  window_limits limits_for(std::int64_t short_len, bool long_is_query, const scoring_scheme& scheme,
                           window_limits limits) const {
    if (limits.scan_target_limit <= 0 || windows_are_queries(long_is_query, scheme)) return limits;
    if (4 * window_overlap(short_len, scheme) <= limits.scan_target_limit || !scheme.symmetric() ||
        short_len > limits.scan_target_limit)
      limits.max_width = std::min(limits.max_width, limits.scan_target_limit);
    return limits;
  }

  //! A long side and its windows.
  struct long_windows {
    residue_span side;
    window_plan plan;
  };

  //! The windows of long_side under plan, appended to out.
  static void append_windows(residue_span long_side, const window_plan& plan, std::vector<residue_span>& out) {
    for (const std::int64_t start : plan.starts) {
      const auto from = std::size_t(start);
      out.push_back(long_side.subspan(from, std::min(std::size_t(plan.width), long_side.size() - from)));
    }
  }

  //! progress in the pairs' own cells when the inner engine computes `computed` cells for
  //! `own` cells of the pairs (the overlaps are scanned twice).
  static progress_fn scaled_progress(const progress_fn& progress, std::uint64_t own, std::uint64_t computed) {
    if (!progress) return {};
    const double share = double(own) / double(std::max<std::uint64_t>(computed, 1));
    return [&progress, share](std::uint64_t cells) { progress(std::uint64_t(double(cells) * share)); };
  }

  //! A pair's best cell from its windows' cells (cell_at(w), window w of plan), moved back onto
  //! the long side; the tie rule picks among equal scores.
  template <typename CellAt>
  static best_cell best_of_windows(const window_plan& plan, bool long_is_query, CellAt&& cell_at) {
    best_cell best;
    for (std::size_t w = 0; w < plan.starts.size(); ++w) {
      best_cell c = cell_at(w);
      if (c.score <= 0) continue;
      (long_is_query ? c.query_end : c.target_end) += plan.starts[w];
      if (cell_beats(c.score, c.query_end, c.target_end, best.score, best.query_end, best.target_end)) best = c;
    }
    return best;
  }

  std::optional<pair_plan> plan_for(residue_span query, residue_span target, const scoring_scheme& scheme) const {
    return plan_for(query, target, scheme, limits_);
  }
  std::optional<pair_plan> plan_for(residue_span query, residue_span target, const scoring_scheme& scheme,
                                    const window_limits& limits) const {
    const bool long_is_query = query.size() >= target.size();
    const auto longer = std::int64_t(long_is_query ? query.size() : target.size());
    const auto shorter = std::int64_t(long_is_query ? target.size() : query.size());
    if (longer > std::int64_t(INT32_MAX)) return std::nullopt;  // the inner engine's own limit and message
    if (longer < limits.min_long || longer < limits.min_ratio * shorter) return std::nullopt;  // cheap first
    auto windows = plan_windows(longer, shorter, windows_are_queries(long_is_query, scheme), scheme,
                                limits_for(shorter, long_is_query, scheme, limits));
    if (!windows) return std::nullopt;
    return pair_plan{std::move(*windows), long_is_query};
  }

  //! results[k] for every job: windowed(job, plan) for those plan(job) cuts, and one batch
  //! whole(jobs, out) for the rest (so the inner engine still spreads them over its threads).
  template <typename Result, typename Windowed, typename Whole, typename Plan>
  void split(std::span<const pair_job> jobs, std::span<Result> results, Windowed&& windowed, Whole&& whole,
             Plan&& plan) {
    std::vector<pair_job> rest;
    std::vector<std::size_t> rest_at;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      if (const auto p = plan(jobs[k])) {
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

  best_cell scan_pair(residue_span query, residue_span target, const scoring_scheme& scheme, const pair_plan& p,
                      const progress_fn& progress) {
    const residue_span shorter = p.long_is_query ? target : query;
    const long_windows one{p.long_is_query ? query : target, p.windows};
    return scan(std::span(&one, 1), p.long_is_query, std::span<const residue_span>(&shorter, 1), scheme, progress)
        .front();
  }

  //! The best cell of every pair (longs[l], shorts[k]) into best[l · shorts + k], from the
  //! windows of the long sides: one search of a database engine (or one score_many) for all.
  std::vector<best_cell> scan(std::span<const long_windows> longs, bool long_is_query,
                              std::span<const residue_span> shorts, const scoring_scheme& scheme,
                              const progress_fn& progress) {
    std::vector<residue_span> windows;
    std::vector<std::size_t> first{0};  // windows of longs[l]: [first[l], first[l + 1])
    std::uint64_t long_residues = 0;
    for (const long_windows& l : longs) {
      append_windows(l.side, l.plan, windows);
      first.push_back(windows.size());
      long_residues += l.side.size();
    }
    const std::size_t n = windows.size(), m = shorts.size();
    std::uint64_t window_cells = 0;
    for (const residue_span& w : windows) window_cells += std::uint64_t(w.size());
    const progress_fn scaled = scaled_progress(progress, long_residues, window_cells);
    std::vector<best_cell> cells(m * n);  // cells[k * n + w]: shorts[k] against windows[w]
    const bool transposed = transposes(long_is_query, scheme);
    if (inner_->scans_first() && (!long_is_query || transposed)) {
      inner_->search(shorts, windows, scheme, cells, scaled);
    } else if (inner_->scans_first()) {
      std::vector<best_cell> by_window(n * m);
      inner_->search(windows, shorts, scheme, by_window, scaled);
      for (std::size_t w = 0; w < n; ++w)
        for (std::size_t k = 0; k < m; ++k) cells[k * n + w] = by_window[w * m + k];
    } else {
      std::vector<pair_job> jobs(m * n);
      for (std::size_t k = 0; k < m; ++k)
        for (std::size_t w = 0; w < n; ++w)
          jobs[k * n + w] = long_is_query ? pair_job{w, k, windows[w], shorts[k]} : pair_job{k, w, shorts[k], windows[w]};
      inner_->score_many(jobs, scheme, cells, scaled);
    }
    if (transposed) recompute_best_windows(windows, first, shorts, scheme, cells);
    std::vector<best_cell> best(longs.size() * m);
    for (std::size_t l = 0; l < longs.size(); ++l)
      for (std::size_t k = 0; k < m; ++k)
        best[l * m + k] = best_of_windows(longs[l].plan, long_is_query, [&](std::size_t w) {
          return cells[k * n + first[l] + w];
        });
    return best;
  }

  //! After a transposed scan only the scores hold (the tie rule depends on which side is the
  //! query): the windows of a long side (first[l] … first[l + 1]) that reach a pair's best score
  //! there are scored again the right way round, and the others dropped. Usually one or two
  //! windows per pair (an alignment in an overlap is in both).
  void recompute_best_windows(std::span<const residue_span> windows, std::span<const std::size_t> first,
                              std::span<const residue_span> shorts, const scoring_scheme& scheme,
                              std::vector<best_cell>& cells) {
    const std::size_t n = windows.size();
    std::vector<pair_job> again;
    std::vector<std::size_t> again_at;
    for (std::size_t k = 0; k < shorts.size(); ++k)
      for (std::size_t l = 0; l + 1 < first.size(); ++l) {
        std::int32_t top = 0;
        for (std::size_t w = first[l]; w < first[l + 1]; ++w) top = std::max(top, cells[k * n + w].score);
        for (std::size_t w = first[l]; w < first[l + 1]; ++w) {
          best_cell& c = cells[k * n + w];
          if (top > 0 && c.score == top) {
            again.push_back({w, k, windows[w], shorts[k]});
            again_at.push_back(k * n + w);
          }
          c = best_cell{};
        }
      }
    std::vector<best_cell> exact(again.size());
    inner_->score_many(again, scheme, exact, {});
    for (std::size_t a = 0; a < again.size(); ++a) cells[again_at[a]] = exact[a];
  }

  //! The alignment into the pair's best cell (`known` when a scan found it already), computed on
  //! the `overlap` residues of the long side before it.
  alignment align_in_windows(residue_span query, residue_span target, const scoring_scheme& scheme,
                             const pair_plan& p, best_cell known, const progress_fn& progress) {
    const best_cell end = known.score > 0 ? known : scan_pair(query, target, scheme, p, progress);
    if (end.score <= 0) return {};
    const std::pair<pair_job, std::int64_t> box = region_before({0, 0, query, target, end}, p, scheme);
    return shifted_back(inner_->align(box.first.query, box.first.target, scheme), box.second, p, end);
  }

  //! The job of the residues of the long side before the best cell `job.known` that an alignment
  //! of its score ending there can reach (window_reach_of_score, at most the windows' overlap),
  //! and where that region starts on the long side.
  static std::pair<pair_job, std::int64_t> region_before(const pair_job& job, const pair_plan& p,
                                                         const scoring_scheme& scheme) {
    const best_cell& end = job.known;
    const std::int64_t end_long = p.long_is_query ? end.query_end : end.target_end;
    const std::int64_t end_short = p.long_is_query ? end.target_end : end.query_end;
    const std::int64_t reach = window_reach_of_score(end_short, end.score, scheme);
    const std::int64_t before = reach > 0 ? std::min(p.windows.overlap, reach) : p.windows.overlap;
    const std::int64_t from = std::max<std::int64_t>(0, end_long - before);
    const residue_span long_side = p.long_is_query ? job.query : job.target;
    const residue_span region = long_side.subspan(std::size_t(from), std::size_t(end_long - from));
    pair_job box = job;
    (p.long_is_query ? box.query : box.target) = region;
    (p.long_is_query ? box.known.query_end : box.known.target_end) -= from;
    return {box, from};
  }

  //! An alignment of region_before's box moved back onto the long side, checked against `end`.
  static alignment shifted_back(alignment a, std::int64_t from, const pair_plan& p, const best_cell& end) {
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

  //! The last search's windows (the last group's plan and how many groups were windowed).
  struct windows_used {
    std::int64_t long_length = 0;
    std::int64_t shorts = 0;
    window_plan plan;
    std::int64_t groups = 0;
  };

  std::unique_ptr<engine> inner_;
  window_limits limits_;
  windows_used last_windows_;
  std::size_t whole_sooner_pairs_ = 0;  //!< the last score_many's tall pairs run whole (whole_pairs_finish_sooner)
  std::size_t at_once_pairs_ = 0;  //!< the last search's tall pairs given whole to the inner engine's score_many
};

}  // namespace

std::unique_ptr<engine> with_windows(std::unique_ptr<engine> inner, window_limits limits) {
  return std::make_unique<windowed_engine>(std::move(inner), limits);
}

}  // namespace swat

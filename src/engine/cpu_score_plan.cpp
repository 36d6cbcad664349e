// The plan of the CPU engine's score_many (cpu_score_plan.hpp).

#include "engine/cpu_score_plan.hpp"

#include <algorithm>
#include <numeric>

namespace swat::cpu {
namespace {

double pair_cost(const pair_job& job) {
  return double(job.query.size()) * double(job.target.size()) / 16.0 * pair_step_cost;
}

//! Makespan estimate of items on threads: the larger of the even share and the longest item.
double makespan(const std::vector<score_item>& items, unsigned threads) {
  double total = 0, longest = 0;
  for (const score_item& it : items) total += it.cost, longest = std::max(longest, it.cost);
  return std::max(total / std::max(1u, threads), longest);
}

//! Largest rank in a sequence, + 1.
int ranks_of(residue_span s) {
  int r = 0;
  for (const std::uint8_t x : s) r = std::max(r, int(x) + 1);
  return r;
}

}  // namespace

score_plan plan_scores(std::span<const pair_job> jobs, const scoring_scheme& scheme, int lanes, unsigned threads,
                       std::size_t budget_bytes) {
  score_plan plan;
  plan.order.resize(jobs.size());
  std::iota(plan.order.begin(), plan.order.end(), std::size_t(0));
  std::vector<score_item> pairs;
  for (std::size_t k = 0; k < jobs.size(); ++k) pairs.push_back({false, 0, k, 1, pair_cost(jobs[k])});
  const auto finish = [&](std::vector<score_item> items) {
    std::stable_sort(items.begin(), items.end(), [](const score_item& a, const score_item& b) { return a.cost > b.cost; });
    plan.items = std::move(items);
    return plan;
  };
  if (lanes == 0 || jobs.size() < 2) return finish(std::move(pairs));
  // Jobs by query (the same residues at the same address), then by target length, longest first.
  std::vector<std::size_t> order = plan.order;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const residue_span qa = jobs[a].query, qb = jobs[b].query;
    if (qa.data() != qb.data()) return std::less<const std::uint8_t*>()(qa.data(), qb.data());
    if (qa.size() != qb.size()) return qa.size() < qb.size();
    if (jobs[a].target.size() != jobs[b].target.size()) return jobs[a].target.size() > jobs[b].target.size();
    return a < b;
  });
  int ranks = scheme.size();
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || jobs[order[k]].query.data() != jobs[order[k - 1]].query.data() ||
        jobs[order[k]].query.size() != jobs[order[k - 1]].query.size())
      ranks = std::max(ranks, ranks_of(jobs[order[k]].query));
    ranks = std::max(ranks, ranks_of(jobs[order[k]].target));
  }
  if (ranks > matrix_stride) return finish(std::move(pairs));
  plan.scheme8 = make_interseq_scheme(scheme, ranks);
  if (!plan.scheme8.fits) return finish(std::move(pairs));
  plan.order = std::move(order);
  std::vector<score_item> mixed;
  for (std::size_t g = 0; g < plan.order.size();) {
    const residue_span query = jobs[plan.order[g]].query;
    std::size_t end = g;
    while (end < plan.order.size() && jobs[plan.order[end]].query.data() == query.data() &&
           jobs[plan.order[end]].query.size() == query.size())
      ++end;
    // Empty sides are pairs (nothing to score); the rest in batches of `lanes`, if cheaper.
    std::size_t full = g;
    while (full < end && !jobs[plan.order[full]].target.empty()) ++full;
    double pair_total = 0;
    for (std::size_t k = g; k < full; ++k) pair_total += pair_cost(jobs[plan.order[k]]);
    std::vector<score_item> best;  // the cheapest batches, of the width that costs least
    double best_total = pair_total;
    for (const int width : {64, 32}) {
      if (width > lanes || query.empty() || full - g < 2) continue;
      std::vector<score_item> batches;
      double total = 0;
      bool fits = true;
      for (std::size_t b = g; fits && b < full; b += std::size_t(width)) {
        const std::size_t count = std::min(full - b, std::size_t(width));
        const std::int64_t longest = std::int64_t(jobs[plan.order[b]].target.size());
        fits = interseq_bytes(std::int64_t(query.size()), longest, width, plan.scheme8.query_ranks) <= budget_bytes;
        batches.push_back({true, width, b, count, double(query.size()) * double(longest) * inter_step_cost(width)});
        total += batches.back().cost;
      }
      if (fits && total < best_total) best = std::move(batches), best_total = total;
    }
    if (!best.empty()) {
      mixed.insert(mixed.end(), best.begin(), best.end());
    } else {
      for (std::size_t k = g; k < full; ++k) mixed.push_back({false, 0, k, 1, pair_cost(jobs[plan.order[k]])});
    }
    for (std::size_t k = full; k < end; ++k) mixed.push_back({false, 0, k, 1, 0});
    g = end;
  }
  // Pairs alone when they finish sooner on these threads (few batches, many threads).
  if (makespan(pairs, threads) < makespan(mixed, threads)) {
    std::iota(plan.order.begin(), plan.order.end(), std::size_t(0));
    return finish(std::move(pairs));
  }
  for (const score_item& it : mixed) plan.lanes = std::max(plan.lanes, it.lanes);
  return finish(std::move(mixed));
}

}  // namespace swat::cpu

// The plan of the CPU engine's score_many (cpu_score_plan.hpp).

#include "engine/cpu_score_plan.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include "engine/cpu_bands.hpp"

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
  // Jobs by query (the same residues at the same address), then by target length, longest first.
  std::vector<std::size_t> order = plan.order;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const residue_span qa = jobs[a].query, qb = jobs[b].query;
    if (qa.data() != qb.data()) return std::less<const std::uint8_t*>()(qa.data(), qb.data());
    if (qa.size() != qb.size()) return qa.size() < qb.size();
    if (jobs[a].target.size() != jobs[b].target.size()) return jobs[a].target.size() > jobs[b].target.size();
    return a < b;
  });
  // The largest rank of any residue: each distinct sequence read once (a database's targets recur
  // with every query: reading them per job took 5 % of a protein search on 2 threads).
  int ranks = scheme.size();
  if (lanes > 0) {
    std::vector<residue_span> sides;
    sides.reserve(2 * jobs.size());
    for (const pair_job& job : jobs) sides.push_back(job.query), sides.push_back(job.target);
    const auto key = [](const residue_span& s) { return std::pair(s.data(), s.size()); };
    std::sort(sides.begin(), sides.end(), [&](const residue_span& a, const residue_span& b) {
      return std::less<std::pair<const std::uint8_t*, std::size_t>>()(key(a), key(b));
    });
    for (std::size_t k = 0; k < sides.size(); ++k)
      if (k == 0 || key(sides[k]) != key(sides[k - 1])) ranks = std::max(ranks, ranks_of(sides[k]));
  }
  if (lanes > 0 && ranks <= matrix_stride) plan.scheme8 = make_interseq_scheme(scheme, ranks);
  if (!plan.scheme8.fits) lanes = 0;
  plan.order = std::move(order);
  // One pair (order[k]): in row bands where they fit, else the striped passes.
  const auto pair_item = [&](std::size_t k) {
    const pair_job& job = jobs[plan.order[k]];
    const std::int64_t m = std::int64_t(job.query.size()), n = std::int64_t(job.target.size());
    for (const int width : {64, 32})
      if (width <= lanes && bands_fit(plan.scheme8, m, n, width) && bands_bytes(m, width) <= budget_bytes)
        return score_item{item_kind::bands, width, k, 1, double(m) * double(n + width) / width * bands_step_cost(width)};
    return score_item{item_kind::pair, 0, k, 1, pair_cost(job)};
  };
  std::vector<score_item> pairs, mixed;
  for (std::size_t k = 0; k < jobs.size(); ++k) pairs.push_back(pair_item(k));
  // A batch's cost is capped near a quarter of a thread's share of the work (ideal packed 64-lane
  // batches), so that the longest items do not set the makespan; it holds at least one lane
  // width of targets and at most eight. A target much longer than the ones after it, whose lane
  // would make its batch outlast the cap, runs alone (row bands, all lanes on it, or striped).
  double ideal = 0;
  for (const pair_job& job : jobs) ideal += double(job.query.size()) * double(job.target.size()) / 64.0;
  const double cap = ideal / (4.0 * std::max(1u, threads));
  std::vector<std::int64_t> lengths;
  for (std::size_t g = 0; g < plan.order.size();) {
    const residue_span query = jobs[plan.order[g]].query;
    std::size_t end = g;
    while (end < plan.order.size() && jobs[plan.order[end]].query.data() == query.data() &&
           jobs[plan.order[end]].query.size() == query.size())
      ++end;
    // Empty sides are pairs (nothing to score); the rest in batches of the cheapest width, if
    // that is cheaper than the pairs.
    std::size_t full = g;
    while (full < end && !jobs[plan.order[full]].target.empty()) ++full;
    double pair_total = 0;
    for (std::size_t k = g; k < full; ++k) pair_total += pairs[k].cost;
    std::vector<score_item> best;
    double best_total = pair_total;
    for (const int width : {64, 32}) {
      if (width > lanes || query.empty() || full - g < 2) continue;
      std::vector<score_item> batches;
      double total = 0;
      bool fits = true;
      const double m = double(query.size()), step = inter_step_cost(width);
      const auto length_of = [&](std::size_t k) { return std::int64_t(jobs[plan.order[k]].target.size()); };
      for (std::size_t b = g; fits && b < full;) {
        // Alone: a target whose lane would make its batch outlast the cap, at least twice the
        // mean of the lane width of targets from it (the batch waits on it, not on the packing),
        // where its own item (bands, or the striped passes) ends sooner than that batch.
        const double lane = m * double(length_of(b)) * step;
        double next = 0;
        const std::size_t span = std::min(full - b, std::size_t(width));
        for (std::size_t k = b; k < b + span; ++k) next += double(length_of(k));
        if (lane > cap && pairs[b].cost < lane && double(length_of(b)) * double(span) > 2 * next) {
          batches.push_back(pairs[b]);
          total += pairs[b].cost;
          ++b;
          continue;
        }
        // Longest first: a batch's columns are about max(its first, Σ lengths / width).
        std::size_t count = 0;
        double sum = 0;
        while (b + count < full && count < std::size_t(width) * 8) {
          if (count >= std::size_t(width) &&
              m * std::max(double(length_of(b)), sum / width) * step >= cap)
            break;
          sum += double(length_of(b + count));
          ++count;
        }
        lengths.clear();
        for (std::size_t k = b; k < b + count; ++k) lengths.push_back(length_of(k));
        const std::int64_t columns = packed_columns(lengths, width);
        fits = interseq_bytes(std::int64_t(query.size()), columns, width, plan.scheme8.query_ranks) <= budget_bytes;
        batches.push_back({item_kind::batch, width, b, count, m * double(columns) * step});
        total += batches.back().cost;
        b += count;
      }
      if (fits && total < best_total) best = std::move(batches), best_total = total;
    }
    if (!best.empty()) {
      mixed.insert(mixed.end(), best.begin(), best.end());
    } else {
      mixed.insert(mixed.end(), pairs.begin() + std::ptrdiff_t(g), pairs.begin() + std::ptrdiff_t(full));
    }
    mixed.insert(mixed.end(), pairs.begin() + std::ptrdiff_t(full), pairs.begin() + std::ptrdiff_t(end));
    g = end;
  }
  // Pairs alone when they finish sooner on these threads (few batches, many threads).
  std::vector<score_item>& items = makespan(pairs, threads) < makespan(mixed, threads) ? pairs : mixed;
  std::stable_sort(items.begin(), items.end(), [](const score_item& a, const score_item& b) { return a.cost > b.cost; });
  for (const score_item& it : items)
    if (it.kind != item_kind::pair) plan.lanes = std::max(plan.lanes, it.lanes);
  plan.items = std::move(items);
  return plan;
}

}  // namespace swat::cpu

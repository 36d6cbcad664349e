// The plan of the CPU engine's score_many (cpu_score_plan.hpp).

#include "engine/cpu_score_plan.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include "common/parallel.hpp"
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

//! Largest rank in a sequence (0 when empty): a byte loop the compiler turns into vector maxima.
std::uint8_t max_rank(residue_span s) {
  std::uint8_t r = 0;
  for (const std::uint8_t x : s) r = std::max(r, x);
  return r;
}

}  // namespace

score_plan plan_scores(std::span<const pair_job> jobs, const scoring_scheme& scheme, int lanes, unsigned threads,
                       std::size_t budget_bytes) {
  score_plan plan;
  // Jobs by query (the same residues at the same address), then by target length, longest first
  // (then by job). The jobs of one query usually come as one run, and a search's queries have the
  // same targets: runs are found in one pass, and the order of a run's targets is sorted once for
  // all runs with the same lengths (a protein search of 6 queries × 3,183 targets: sorting the
  // 19,000 jobs took 1.6 ms on one thread, before any work could start).
  struct run {
    const std::uint8_t* query;
    std::size_t query_size, first, end;  // jobs [first, end)
  };
  std::vector<run> runs;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const residue_span q = jobs[k].query;
    if (runs.empty() || runs.back().query != q.data() || runs.back().query_size != q.size())
      runs.push_back({q.data(), q.size(), k, k});
    runs.back().end = k + 1;
  }
  std::stable_sort(runs.begin(), runs.end(), [](const run& a, const run& b) {
    if (a.query != b.query) return std::less<const std::uint8_t*>()(a.query, b.query);
    return a.query_size < b.query_size;
  });
  std::vector<std::size_t> order;
  order.reserve(jobs.size());
  std::vector<std::size_t> group, by_length, group_lengths, lengths_sorted;  // the last sorted group's lengths
  const auto same_query = [](const run& a, const run& b) { return a.query == b.query && a.query_size == b.query_size; };
  for (std::size_t r = 0; r < runs.size();) {
    group.clear();  // the query's jobs in job order (its runs are disjoint and by first job)
    std::size_t e = r;
    for (; e < runs.size() && same_query(runs[e], runs[r]); ++e)
      for (std::size_t k = runs[e].first; k < runs[e].end; ++k) group.push_back(k);
    r = e;
    group_lengths.resize(group.size());
    for (std::size_t i = 0; i < group.size(); ++i) group_lengths[i] = jobs[group[i]].target.size();
    if (group_lengths != lengths_sorted) {
      by_length.resize(group.size());
      std::iota(by_length.begin(), by_length.end(), std::size_t(0));
      std::stable_sort(by_length.begin(), by_length.end(),
                       [&](std::size_t a, std::size_t b) { return group_lengths[a] > group_lengths[b]; });
      lengths_sorted = group_lengths;
    }
    for (const std::size_t i : by_length) order.push_back(group[i]);
  }
  // The largest rank of any residue (ranks beyond the scheme's widen the 8-bit table), read in
  // vector maxima: each query once, and the targets of each run unless they are the previous
  // run's (a database's targets recur with every query).
  int ranks = scheme.size();
  if (lanes > 0) {
    std::uint8_t high = 0;
    std::span<const pair_job> read;  // the run whose targets were read last
    for (const run& u : runs) {
      const std::span<const pair_job> these = jobs.subspan(u.first, u.end - u.first);
      high = std::max(high, max_rank(these.front().query));
      const bool again = these.size() == read.size() &&
                         std::equal(these.begin(), these.end(), read.begin(), [](const pair_job& a, const pair_job& b) {
                           return a.target.data() == b.target.data() && a.target.size() == b.target.size();
                         });
      if (!again)
        for (const pair_job& job : these) high = std::max(high, max_rank(job.target));
      read = these;
    }
    if (!jobs.empty()) ranks = std::max(ranks, int(high) + 1);
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
  pairs.reserve(jobs.size());
  mixed.reserve(jobs.size());
  for (std::size_t k = 0; k < jobs.size(); ++k) pairs.push_back(pair_item(k));
  // A batch's cost is capped near a quarter of a thread's share of the work (ideal packed 64-lane
  // batches), so that the longest items do not set the makespan; it holds at least one lane
  // width of targets and at most eight. A target much longer than the ones after it, whose lane
  // would make its batch outlast the cap, runs alone (row bands, all lanes on it, or striped).
  double ideal = 0;
  for (const pair_job& job : jobs) ideal += double(job.query.size()) * double(job.target.size()) / 64.0;
  const double cap = ideal / (4.0 * std::max(1u, threads));
  // The jobs of each query: [g, end) of plan.order.
  std::vector<std::pair<std::size_t, std::size_t>> queries;
  for (std::size_t g = 0; g < plan.order.size();) {
    const residue_span query = jobs[plan.order[g]].query;
    std::size_t end = g;
    while (end < plan.order.size() && jobs[plan.order[end]].query.data() == query.data() &&
           jobs[plan.order[end]].query.size() == query.size())
      ++end;
    queries.emplace_back(g, end);
    g = end;
  }
  // Each query's items, planned on every thread when there are many jobs (one query's plan does
  // not depend on another's).
  std::vector<std::vector<score_item>> planned(queries.size());
  constexpr std::size_t parallel_plan_jobs = 8192;
  parallel_for(queries.size(), jobs.size() >= parallel_plan_jobs ? threads : 1, 1, [&](std::size_t at) {
    const auto [g, end] = queries[at];
    const residue_span query = jobs[plan.order[g]].query;
    std::vector<std::int64_t> lengths;
    std::vector<score_item>& chosen = planned[at];
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
      chosen = std::move(best);
    } else {
      chosen.assign(pairs.begin() + std::ptrdiff_t(g), pairs.begin() + std::ptrdiff_t(full));
    }
    chosen.insert(chosen.end(), pairs.begin() + std::ptrdiff_t(full), pairs.begin() + std::ptrdiff_t(end));
  });
  for (const std::vector<score_item>& q : planned) mixed.insert(mixed.end(), q.begin(), q.end());
  // Pairs alone when they finish sooner on these threads (few batches, many threads).
  std::vector<score_item>& items = makespan(pairs, threads) < makespan(mixed, threads) ? pairs : mixed;
  std::stable_sort(items.begin(), items.end(), [](const score_item& a, const score_item& b) { return a.cost > b.cost; });
  for (const score_item& it : items)
    if (it.kind != item_kind::pair) plan.lanes = std::max(plan.lanes, it.lanes);
  plan.items = std::move(items);
  return plan;
}

}  // namespace swat::cpu

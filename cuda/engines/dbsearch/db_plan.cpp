// Host planning of a search: query batches, shapes and profile modes (see db_plan.hpp).

#include "cuda/engines/dbsearch/db_plan.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "cuda/engines/dbsearch/db_pack.hpp"

namespace swat::dbsearch {

std::int64_t profile_bytes(std::int64_t m, int strip_rows, int profile_rows) {
  const std::int64_t bytes = strips_of(m, strip_rows) * std::int64_t(strip_rows) * profile_rows;
  return (bytes + 15) / 16 * 16;
}

cost_parts modelled_cost(std::span<const std::int64_t> lengths, const chunk_stats& chunk, const shape_info& shape) {
  const bool pipelined = shape.pipelined;
  constexpr double a = 30, b = 7;  // instructions of a warp step: overhead, per packed row
  const int g = shape.group_lanes, r = shape.rows_per_lane;
  const double step = a + b * r;
  const double sms = double(shape.sms);
  const double warps_per_block = double(shape.groups_per_block) / double(shape.groups_per_warp);
  const double resident_warps = double(shape.blocks) * warps_per_block;
  const double warps_per_scheduler = resident_warps / sms / 4.0;
  // Lanes issuing per SM cycle with `warps` warps in flight per SM. A pipelined warp also waits
  // on the strip above it and issues about 80 % as often (fitted to two H100 runs: pipelined 16
  // warps of 16 rows beat 8 of 32 rows by 12 % on DNA fragments scanned the other way round,
  // strips of 5,000 columns, 2.77 against 2.47 TCUPS; 8 of 32 rows beat 16 of 16 by 13 % on
  // titin's x1 strips of a few hundred columns, where each strip's start costs more:
  // bench/results/db_plan_pipelined_rows_h100.md).
  // Blocks of one group per pair with three warps per scheduler keep the ALU pipe busier than
  // with two. Fitted to the H100, 8 against 12 warps per block at 32 rows per lane
  // (bench/results/db_warps_split_ab_h100.csv): where the scan is throughput-bound about 10 %
  // (×50 protein 0.613 → 0.556 s at 16 lanes, 0.701 → 0.632 s at 32); where the longest pairs
  // set the time each warp still issues 2 / 2.52 as often, not 2 / 3 (×10 protein at 32 lanes,
  // 0.168 → 0.212 s). With these the planner takes 32 × 32 at 12 warps for DNA fragments ×
  // genomes ×4, both ways round (0.346 → 0.301 s, 0.236 → 0.204 s), and changes nothing else
  // of bench/results/db_warps_choice_ab_h100.csv.
  const bool more_fed = !pipelined && r == 32 && warps_per_scheduler >= 3;  // measured at 32 rows only
  const double fed = more_fed ? 1.1 : 1.0, fed_longest = more_fed ? 3.0 / 2.52 : 1.0;
  const auto issuing = [pipelined, fed](double warps) {
    return std::clamp((pipelined ? 12.8 : 16.0) * warps, 16.0, 128.0) * fed;
  };
  const double pairs = double(std::max<std::size_t>(chunk.pairs, 1));
  const double tasks = double(lengths.size()) * pairs;  // (query, pair) tasks of the launch
  const double normal_warps = std::min(resident_warps, std::ceil(tasks / double(shape.groups_per_warp))) / sms;
  const double blocks_per_sm = std::min(double(shape.blocks), tasks) / sms;
  double time = 0, longest = 0;
  for (const std::int64_t m : lengths) {
    const double strips = double(strips_of(m, shape.strip_rows()));
    const double busy = std::min(strips, warps_per_block);  // warps of a pipelined block with work
    const double lag = pipelined ? g * busy : 0.0;            // the pipeline's fill, in columns
    const double lane_instr = strips * (double(chunk.columns) + double(chunk.pairs) * (g - 1 + lag)) * g * step;
    time += lane_instr / (sms * issuing(pipelined ? blocks_per_sm * busy : normal_warps));
    const double passes = pipelined ? std::ceil(strips / warps_per_block) : strips;
    longest = std::max(longest, passes * (double(chunk.longest) + g - 1 + lag) * step * std::max(1.0, warps_per_scheduler) / fed_longest);
  }
  return cost_parts{time, longest};
}

namespace {

//! The cheapest shape and profile mode for the queries of lengths ms (longest first), and its
//! modelled cost; pipelined shapes only when `pipe` (and then only, when limits.pipeline > 0).
query_batch choose_shape(std::span<const std::int64_t> ms, const chunk_stats& chunk, std::span<const shape_info> shapes,
                         int profile_rows, const batch_limits& limits, bool pipe, cost_parts& parts) {
  query_batch batch;
  double best = -1;
  const std::int64_t pairs = std::int64_t(chunk.pairs);
  const bool has_wider = std::any_of(shapes.begin(), shapes.end(), [](const shape_info& s) { return s.group_lanes != 8; });
  bool forced = false;  // limits.pipeline = 1 found a pipelined shape
  for (const shape_info& s : shapes) {
    std::int64_t bytes = 0;
    for (std::int64_t m : ms) bytes += profile_bytes(m, s.strip_rows(), profile_rows);
    const bool resident = bytes <= limits.resident_bytes;
    if (s.pipelined) {
      if (!pipe || strips_of(ms.front(), s.strip_rows()) < 2) continue;
      const cost_parts c = modelled_cost(ms, chunk, s);
      const double cost = c.total();
      if (limits.pipeline > 0 ? !forced || cost < best : best < 0 || cost < best) {
        best = cost;
        parts = c;
        forced = limits.pipeline > 0;
        batch.shape = s;
        batch.profile_bytes = bytes;
        batch.mode = profile_mode::pipelined;
      }
      continue;
    }
    if (forced) continue;
    if (s.group_lanes == 8 && !resident && has_wider) continue;
    const cost_parts c = modelled_cost(ms, chunk, s);
    const double cost = c.total();
    if (best < 0 || cost < best) {
      best = cost;
      parts = c;
      batch.shape = s;
      batch.profile_bytes = bytes;
      batch.mode = resident ? profile_mode::resident
                 : pairs >= 2 * std::int64_t(s.groups_per_block) ? profile_mode::streamed
                                                                 : profile_mode::global;
    }
  }
  return batch;
}

//! The order with the shorter tail (see plan_batches).
bool pair_major(std::span<const std::int64_t> ms, const chunk_stats& chunk, const shape_info& shape) {
  const double longest = double(chunk.longest), shortest = chunk.shortest > 0 ? double(chunk.shortest) : longest;
  return double(strips_of(ms.front(), shape.strip_rows())) * shortest <
         double(strips_of(ms.back(), shape.strip_rows())) * longest;
}

}  // namespace

std::vector<query_batch> plan_batches(std::span<const std::int64_t> lengths, const chunk_stats& chunk,
                                      std::span<const shape_info> shapes, int profile_rows,
                                      const batch_limits& limits) {
  std::vector<std::size_t> order;
  for (std::size_t q = 0; q < lengths.size(); ++q)
    if (lengths[q] > 0) order.push_back(q);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return lengths[x] > lengths[y]; });
  std::vector<std::int64_t> sorted;
  for (std::size_t q : order) sorted.push_back(lengths[q]);

  std::vector<query_batch> out;
  const std::int64_t pairs = std::int64_t(chunk.pairs);
  const std::int64_t result_bytes_per_query = std::max<std::int64_t>(1, pairs) * 2 * std::int64_t(sizeof(result_cell));
  const bool may_pipe = limits.pipeline >= 0;
  const auto plan_of = [&](std::span<const std::int64_t> ms, cost_parts& parts) {
    return choose_shape(ms, chunk, shapes, profile_rows, limits, may_pipe, parts);
  };
  // Each query's own launch: its cost, and the shape it would take.
  std::vector<double> alone;
  std::vector<shape_info> own;
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    cost_parts parts;
    own.push_back(plan_of(std::span(sorted).subspan(k, 1), parts).shape);
    alone.push_back(parts.total());
  }
  const auto same = [](const shape_info& x, const shape_info& y) {
    return x.group_lanes == y.group_lanes && x.rows_per_lane == y.rows_per_lane &&
           x.warps_per_block == y.warps_per_block && x.pipelined == y.pipelined;
  };
  const auto add = [&](query_batch batch, std::span<const std::int64_t> ms) {
    batch.pair_major = pair_major(ms, chunk, batch.shape);
    out.push_back(std::move(batch));
  };
  for (std::size_t k = 0; k < sorted.size();) {
    std::size_t end = k + 1;
    shape_info shape = own[k];
    cost_parts batch_cost;
    bool costed = false;  // batch_cost is the batch's (queries of the batch's shape join unpriced:
                          // at one shape the model's time adds up and its longest chain is the larger)
    // A priced join costs O(batch × shapes): a batch takes at most this many, so that planning
    // stays linear in the queries (thousands of queries against a few pairs make large batches).
    // Once a query of some own shape has joined, the next ones of that shape (shorter, sorted)
    // join unpriced too.
    constexpr int priced_joins = 16;
    int priced = 0;
    std::vector<shape_info> joined_shapes{own[k]};
    while (end < sorted.size() && std::int64_t(end - k + 1) * result_bytes_per_query <= limits.max_result_bytes) {
      if (std::int64_t(end - k) * pairs >= limits.fill_pairs) break;
      if (same(own[end], shape) ||
          std::any_of(joined_shapes.begin(), joined_shapes.end(), [&](const shape_info& j) { return same(own[end], j); })) {
        costed = false;
        ++end;
        continue;
      }
      if (++priced > priced_joins) break;
      if (!costed) plan_of(std::span(sorted).subspan(k, end - k), batch_cost);
      cost_parts merged;
      const query_batch joined = plan_of(std::span(sorted).subspan(k, end + 1 - k), merged);
      if (merged.total() > batch_cost.total() + alone[end] + launch_cycles) break;
      batch_cost = merged;
      costed = true;
      shape = joined.shape;
      joined_shapes.push_back(own[end]);
      ++end;
    }
    const std::span<const std::int64_t> ms = std::span(sorted).subspan(k, end - k);
    const std::vector<std::size_t> queries(order.begin() + std::ptrdiff_t(k), order.begin() + std::ptrdiff_t(end));
    k = end;
    // One launch, or (when the warps of a block may share a pair) its long queries pipelined
    // and the rest in a second launch, whichever the model finds cheaper.
    cost_parts whole_cost;
    query_batch whole = choose_shape(ms, chunk, shapes, profile_rows, limits, may_pipe, whole_cost);
    whole.queries = queries;
    std::size_t split = 0;  // queries of two strips or more at width 32 × 16 rows: 1,024 rows
    while (split < ms.size() && ms[split] > 512) ++split;
    if (may_pipe && split > 0 && split < ms.size()) {
      cost_parts long_cost, short_cost;
      query_batch longs = choose_shape(ms.first(split), chunk, shapes, profile_rows, limits, true, long_cost);
      query_batch shorts = choose_shape(ms.subspan(split), chunk, shapes, profile_rows, limits, false, short_cost);
      if (longs.mode == profile_mode::pipelined &&
          (limits.pipeline > 0 || long_cost.total() + short_cost.total() + launch_cycles < whole_cost.total())) {
        longs.queries.assign(queries.begin(), queries.begin() + std::ptrdiff_t(split));
        shorts.queries.assign(queries.begin() + std::ptrdiff_t(split), queries.end());
        add(std::move(longs), ms.first(split));
        add(std::move(shorts), ms.subspan(split));
        continue;
      }
    }
    add(std::move(whole), ms);
  }
  return out;
}

}  // namespace swat::dbsearch

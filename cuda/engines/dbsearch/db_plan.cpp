// Host planning of a search: query batches, shapes and profile modes (see db_plan.hpp).

#include "cuda/engines/dbsearch/db_plan.hpp"

#include <algorithm>
#include <numeric>

#include "cuda/engines/dbsearch/db_pack.hpp"

namespace swat::dbsearch {

std::int64_t profile_bytes(std::int64_t m, int strip_rows, int profile_rows) {
  const std::int64_t bytes = strips_of(m, strip_rows) * std::int64_t(strip_rows) * profile_rows;
  return (bytes + 15) / 16 * 16;
}

double modelled_cost(std::span<const std::int64_t> lengths, const chunk_stats& chunk, const shape_info& shape) {
  constexpr double a = 30, b = 7;  // instructions of a warp step: overhead, per packed row
  const int g = shape.group_lanes, r = shape.rows_per_lane;
  const double step = a + b * r;
  const double warps_per_scheduler =
      double(shape.blocks) / double(shape.sms) * double(shape.groups_per_block) / double(shape.groups_per_warp) / 4.0;
  double lane_instr = 0, longest = 0;
  for (const std::int64_t m : lengths) {
    const double strips = double(strips_of(m, shape.strip_rows()));
    lane_instr += strips * (double(chunk.columns) + double(chunk.pairs) * (g - 1)) * g * step;
    longest = std::max(longest, strips * (double(chunk.longest) + g - 1) * step * std::max(1.0, warps_per_scheduler));
  }
  return std::max(lane_instr / (128.0 * shape.sms), longest);
}

std::vector<query_batch> plan_batches(std::span<const std::int64_t> lengths, const chunk_stats& chunk,
                                      std::span<const shape_info> shapes, int profile_rows,
                                      const batch_limits& limits) {
  std::vector<std::size_t> order;
  for (std::size_t q = 0; q < lengths.size(); ++q)
    if (lengths[q] > 0) order.push_back(q);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return lengths[x] > lengths[y]; });

  std::vector<query_batch> out;
  const std::int64_t pairs = std::int64_t(chunk.pairs);
  const std::int64_t result_bytes_per_query = std::max<std::int64_t>(1, pairs) * 2 * std::int64_t(sizeof(result_cell));
  for (std::size_t k = 0; k < order.size();) {
    query_batch batch;
    std::int64_t tasks = 0;
    while (k < order.size() && (batch.queries.empty() || (tasks < limits.fill_pairs &&
                                                           std::int64_t(batch.queries.size() + 1) * result_bytes_per_query <=
                                                               limits.max_result_bytes))) {
      batch.queries.push_back(order[k++]);
      tasks += pairs;
    }
    std::vector<std::int64_t> ms;
    for (std::size_t q : batch.queries) ms.push_back(lengths[q]);
    const bool has_wider = std::any_of(shapes.begin(), shapes.end(), [](const shape_info& s) { return s.group_lanes != 8; });
    double best = -1;
    for (const shape_info& s : shapes) {
      std::int64_t bytes = 0;
      for (std::int64_t m : ms) bytes += profile_bytes(m, s.strip_rows(), profile_rows);
      const bool resident = bytes <= limits.resident_bytes;
      if (s.group_lanes == 8 && !resident && has_wider) continue;
      const double cost = modelled_cost(ms, chunk, s);
      if (best < 0 || cost < best) {
        best = cost;
        batch.shape = s;
        batch.profile_bytes = bytes;
        batch.mode = resident ? profile_mode::resident
                   : pairs >= 2 * std::int64_t(s.groups_per_block) ? profile_mode::streamed
                                                                   : profile_mode::global;
      }
    }
    out.push_back(std::move(batch));
  }
  return out;
}

}  // namespace swat::dbsearch

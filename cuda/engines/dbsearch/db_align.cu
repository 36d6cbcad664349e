// The reverse pass of the hit alignments (see db_align.hpp): reversed prefixes, one warp per
// hit reading its own profile through L1, the largest reversed row and column where H = S.

#include "cuda/engines/dbsearch/db_align.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "cuda/common/cuda_check.cuh"
#include "cuda/engines/dbsearch/db_launch.cuh"
#include "cuda/common/device_buffer.hpp"
#include "cuda/engines/dbsearch/db_memory.cuh"
#include "cuda/engines/dbsearch/db_pack.hpp"
#include "cuda/engines/dbsearch/db_plan.hpp"

namespace swat::dbsearch {

namespace {
constexpr int reach_lanes = 32, reach_rows = 16, strip_rows = reach_lanes * reach_rows;
}  // namespace

std::int64_t reach_span(std::int64_t m, std::int64_t n, std::int32_t score, const scoring_scheme& scheme) {
  const std::int64_t max_s = scheme.max_score(), e = scheme.gap_extend;
  if (max_s < 1 || e < 1) return INT64_MAX;  // no bound without a cost per gap residue
  const std::int64_t a = std::min(m, n);
  return a + std::max<std::int64_t>(0, (max_s * a - score) / e);
}

double reach_cells(std::int64_t m, std::int64_t n, std::int32_t score, const scoring_scheme& scheme) {
  const std::int64_t span = reach_span(m, n, score, scheme);
  return double(std::min(m, span)) * double(std::min(n, span));
}

std::vector<residue_span> reach_window(std::span<const residue_span> prefixes, std::span<const residue_span> others,
                                       std::span<const std::int32_t> scores, const scoring_scheme& scheme) {
  std::vector<residue_span> out(prefixes.begin(), prefixes.end());
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::int64_t bound =
        reach_span(std::int64_t(prefixes[k].size()), std::int64_t(others[k].size()), scores[k], scheme);
    if (std::int64_t(out[k].size()) > bound) out[k] = out[k].last(std::size_t(bound));
  }
  return out;
}

namespace {

//! The reverse pass of one batch of hits whose prefixes are already cut to their windows.
std::vector<box_extent> reach_batch(std::span<const residue_span> query_prefixes,
                                    std::span<const residue_span> target_prefixes, std::span<const std::int32_t> scores,
                                    const scoring_scheme& scheme, const cuda::device_context& dev,
                                    reach_seconds& seconds) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const std::size_t hits = query_prefixes.size();
  std::vector<box_extent> out(hits);
  dev.make_current();
  const int profile_rows = scheme.size() + 1;
  const std::uint8_t pad = std::uint8_t(scheme.size());

  // Longest hits first: the queue then balances the warps (Chen et al. 2010).
  std::vector<std::size_t> order(hits);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return double(query_prefixes[a].size()) * double(target_prefixes[a].size()) >
           double(query_prefixes[b].size()) * double(target_prefixes[b].size());
  });

  // Host image: query table | profiles | pairs | columns; results come back separately.
  std::vector<query_info> table(hits);
  std::vector<pair_task> tasks(hits);
  std::int64_t profile_total = 0, columns_total = 0;
  std::int32_t longest = 1;
  for (std::size_t k = 0; k < hits; ++k) {
    const std::size_t h = order[k];
    const std::int64_t m = std::int64_t(query_prefixes[h].size()), n = std::int64_t(target_prefixes[h].size());
    if (m < 1 || n < 1 || scores[h] < 1) throw std::invalid_argument("reverse_reach: empty hit");
    table[k] = query_info{profile_total, std::int32_t(m), std::int32_t(strips_of(m, strip_rows))};
    tasks[k] = pair_task{std::uint32_t(columns_total), std::int32_t(n), 0, scores[h]};
    profile_total += profile_bytes(m, strip_rows, profile_rows);
    columns_total += n;
    longest = std::max(longest, std::int32_t(n));
  }
  const std::size_t table_bytes = cuda::align_up(hits * sizeof(query_info), 256);
  const std::size_t tasks_offset = table_bytes + cuda::align_up(std::size_t(profile_total), 256);
  const std::size_t columns_offset = tasks_offset + cuda::align_up(hits * sizeof(pair_task), 256);
  const std::size_t in_bytes = columns_offset + std::size_t(columns_total) * sizeof(std::uint16_t);
  // Not zeroed here (a hundred MB for a thousand DNA hits): the threads below write every
  // profile and column byte, and the headers' padding is zeroed now.
  const std::unique_ptr<std::uint8_t[]> host_image(new std::uint8_t[in_bytes]);
  std::uint8_t* const host = host_image.get();
  std::memset(host, 0, table_bytes);
  std::memset(host + tasks_offset, 0, columns_offset - tasks_offset);
  std::copy_n(reinterpret_cast<const std::uint8_t*>(table.data()), hits * sizeof(query_info), host);
  std::copy_n(reinterpret_cast<const std::uint8_t*>(tasks.data()), hits * sizeof(pair_task), host + tasks_offset);
  // Reversed profiles and columns, hits interleaved over the host's cores (disjoint regions).
  const auto fill = [&](std::size_t first, std::size_t step) {
    std::vector<std::uint8_t> reversed;
    for (std::size_t k = first; k < hits; k += step) {
      const std::size_t h = order[k];
      const residue_span q = query_prefixes[h], t = target_prefixes[h];
      reversed.assign(q.rbegin(), q.rend());
      const std::size_t next_profile = k + 1 < hits ? std::size_t(table[k + 1].profile_offset) : std::size_t(profile_total);
      std::memset(host + table_bytes + std::size_t(table[k].profile_offset), 0,
                  next_profile - std::size_t(table[k].profile_offset));  // the profile's rounding too
      build_profile(reversed, scheme.matrix.data(), matrix_stride, scheme.size(), strip_rows,
                    reinterpret_cast<std::int8_t*>(host + table_bytes + std::size_t(table[k].profile_offset)));
      auto* cols = reinterpret_cast<std::uint16_t*>(host + columns_offset) + tasks[k].offset;
      for (std::size_t c = 0; c < t.size(); ++c) cols[c] = std::uint16_t(t[t.size() - 1 - c] | (std::uint16_t(pad) << 8));
    }
  };
  // A thread per MiB of image (profiles and columns), up to 16: thousands of protein hits are
  // mostly profiles (3,982 hits of protein_db: 0.060 s on the two threads their columns gave).
  const std::size_t workers = std::min<std::size_t>({std::max(1u, std::thread::hardware_concurrency()), 16,
                                                     std::size_t((profile_total + 2 * columns_total) >> 20) + 1, hits});
  {
    std::vector<std::thread> threads;
    std::size_t started = 1;
    try {
      for (; started < workers; ++started) threads.emplace_back(fill, started, workers);
    } catch (...) {  // no thread to spare (or no memory for one): this one fills the rest too
    }
    fill(0, workers);
    for (std::size_t w = started; w < workers; ++w) fill(w, workers);
    for (std::thread& t : threads) t.join();
  }
  const auto t1 = clock::now();

  const shape_info shape = shape_on<reach_lanes, reach_rows, true>(dev, 0);
  cuda::device_buffer memory;
  const std::size_t border_offset = cuda::align_up(in_bytes, 256);
  const std::size_t border_bytes = std::size_t(shape.groups()) * std::size_t(longest) * sizeof(std::uint64_t);
  const std::size_t results_offset = border_offset + cuda::align_up(border_bytes, 256);
  const std::size_t counters_offset = results_offset + cuda::align_up(2 * hits * sizeof(result_cell), 256);
  memory.reserve(counters_offset + 256);
  SWAT_CUDA_CHECK(cudaMemcpy(memory.as<void>(), host, in_bytes, cudaMemcpyHostToDevice));
  SWAT_CUDA_CHECK(cudaMemset(memory.as<void>(counters_offset), 0, 256));

  scan_problem pb{};
  pb.d_profile = memory.as<std::int8_t>(table_bytes);
  pb.d_queries = memory.as<query_info>();
  pb.queries = std::int32_t(hits);
  pb.pairs = std::int32_t(hits);
  pb.batch = 1;
  pb.batches_per_query = 1;
  pb.profile_rows = profile_rows;
  pb.mode = profile_mode::global;
  pb.profile_bytes = profile_total;
  pb.gap_open_extend = scheme.gap_open + scheme.gap_extend;
  pb.gap_extend = scheme.gap_extend;
  pb.score_limit = 32767;
  pb.d_residues = memory.as<std::uint16_t>(columns_offset);
  pb.d_tasks = memory.as<pair_task>(tasks_offset);
  pb.d_border = memory.as<std::uint64_t>(border_offset);
  pb.border_columns = longest;
  pb.d_result = memory.as<result_cell>(results_offset);
  pb.d_queue = memory.as<std::uint32_t>(counters_offset);
  pb.use_queue = 1;
  pb.one_to_one = 1;
  pb.d_cells_done = memory.as<unsigned long long>(counters_offset + 8);
  pb.d_error = memory.as<std::int32_t>(counters_offset + 16);  // unused: the reverse pass is never pipelined
  launch_scan<reach_lanes, reach_rows, true>(pb, shape, 0, nullptr);
  std::vector<result_cell> results(2 * hits);
  SWAT_CUDA_CHECK(cudaMemcpy(results.data(), pb.d_result, results.size() * sizeof(result_cell), cudaMemcpyDeviceToHost));
  for (std::size_t k = 0; k < hits; ++k) {
    const result_cell& c = results[2 * k];
    if (c.score == scores[order[k]]) out[order[k]] = box_extent{c.query_end, c.target_end};
  }
  seconds.host += std::chrono::duration<double>(t1 - t0).count();
  seconds.gpu += std::chrono::duration<double>(clock::now() - t1).count();
  return out;
}

}  // namespace

std::vector<box_extent> reverse_reach(std::span<const residue_span> whole_query_prefixes,
                                      std::span<const residue_span> whole_target_prefixes,
                                      std::span<const std::int32_t> scores, const scoring_scheme& scheme,
                                      const cuda::device_context& dev, reach_seconds* seconds,
                                      std::uint64_t batch_bytes) {
  const std::size_t hits = whole_query_prefixes.size();
  if (whole_target_prefixes.size() != hits || scores.size() != hits) throw std::invalid_argument("reverse_reach: sizes");
  std::vector<box_extent> out(hits);
  reach_seconds spent;
  // Only the ends of the prefixes that can hold an alignment of the hit's score are read.
  const std::vector<residue_span> query_prefixes = reach_window(whole_query_prefixes, whole_target_prefixes, scores, scheme);
  const std::vector<residue_span> target_prefixes = reach_window(whole_target_prefixes, whole_query_prefixes, scores, scheme);
  // Batches of hits whose columns keep 32-bit offsets and whose host and device images stay
  // within batch_bytes (one hit at least), so that memory does not grow with the number of hits
  // (besides each batch's border rows: its groups × its longest window × 8 bytes).
  const int profile_rows = scheme.size() + 1;
  const auto bytes_of = [&](std::size_t h) {
    return std::uint64_t(profile_bytes(std::int64_t(query_prefixes[h].size()), strip_rows, profile_rows)) +
           2 * std::uint64_t(target_prefixes[h].size()) + sizeof(query_info) + sizeof(pair_task) + 2 * sizeof(result_cell);
  };
  for (std::size_t first = 0; first < hits;) {
    std::size_t last = first;
    std::uint64_t columns = 0, bytes = 0;
    while (last < hits && (last == first || (columns + target_prefixes[last].size() <= reach_batch_columns &&
                                             bytes + bytes_of(last) <= batch_bytes))) {
      columns += target_prefixes[last].size();
      bytes += bytes_of(last);
      ++last;
    }
    const std::size_t n = last - first;
    const std::vector<box_extent> batch =
        reach_batch(std::span(query_prefixes).subspan(first, n), std::span(target_prefixes).subspan(first, n),
                    scores.subspan(first, n), scheme, dev, spent);
    std::copy(batch.begin(), batch.end(), out.begin() + std::ptrdiff_t(first));
    first = last;
  }
  if (seconds) *seconds = spent;
  return out;
}

}  // namespace swat::dbsearch

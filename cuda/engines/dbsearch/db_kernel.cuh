#pragma once
// The persistent scan kernel: a grid sized to fill the GPU once, whose warps (or blocks) take
// batches of pairs of targets from a device-side task queue (Chen et al. 2010: dynamic load
// balancing with a persistent kernel and an atomic queue head), longest first, until the queue
// is empty. A launch scans a batch of queries: batch b belongs to query b / batches_per_query
// (queries longest first), so several short queries fill the GPU together and a long one is
// not held back by short ones.
//
// Three profile modes (scan_problem::mode, chosen per query batch by the host):
//  • resident: the block copies every profile of the batch into shared memory once; each warp
//    then takes groups_per_warp consecutive pairs of one query at a time and scans all their
//    strips on its own (no block-wide synchronisation);
//  • streamed (profiles too large for shared memory, many pairs per query): each block takes
//    groups_per_block consecutive pairs of one query and its groups scan them strip by strip in
//    step, the block loading one strip of the profile into shared memory before each strip;
//  • global (too large, few pairs per query): as resident, but the profile is read through L1.
// With use_queue = 0 the same kernel partitions the batches statically (round r of warp/block w
// takes batch r · (warps or blocks) + w): the baseline of the task-queue measurement.
// Consecutive pairs have nearly the same length (sorted on the host), so the groups of a warp
// or block run nearly the same number of steps.

#include <cstdint>

#include "cuda/engines/dbsearch/db_policy.cuh"
#include "cuda/engines/dbsearch/db_tile.cuh"

namespace swat::dbsearch {

//! Pair p of the chunk as the calling group sees it (idle past the last pair).
__device__ inline pair_view load_pair(const scan_problem& pb, std::int64_t p) {
  pair_view v;
  if (p < pb.pairs) {
    const pair_task t = pb.d_tasks[p];
    v.residues = pb.d_residues + t.offset;
    v.columns = t.columns;
    v.length_b = t.length_b;
    v.reach = t.reach;
  }
  return v;
}

//! Copies `entries` 16-byte profile entries from global to shared memory (whole block).
template <typename entry_t>
__device__ void copy_profile(entry_t* dst, const entry_t* src, std::int64_t entries) {
  for (std::int64_t k = threadIdx.x; k < entries; k += blockDim.x) dst[k] = src[k];
}

//! Reduces the group's best cells and stores the pair's results for query q (lane 0 of the
//! group), then clears the lane's state.
template <typename policy_t>
__device__ void finish_pair(const scan_problem& pb, std::int64_t q, std::int64_t p, std::int32_t m,
                            const pair_view& pair, lane_state& st) {
  constexpr int G = policy_t::group_lanes;
  constexpr unsigned full = 0xffffffffu;
  const cell a = policy_t::reach ? reduce_reach<G>(st.a) : reduce_cell<G>(st.a);
  const cell b = policy_t::reach ? cell{} : reduce_cell<G>(st.b);
  const unsigned group_mask = ((G == 32) ? full : ((1u << G) - 1u)) << (threadIdx.x & 31 & ~(G - 1));
  const unsigned over_a = __ballot_sync(full, st.overflow_a) & group_mask;
  const unsigned over_b = __ballot_sync(full, st.overflow_b) & group_mask;
  if ((threadIdx.x & (G - 1)) == 0 && p < pb.pairs) {
    result_cell* out = pb.d_result + 2 * (pb.one_to_one ? q : q * pb.pairs + p);
    out[0] = result_cell{a.score, a.i, a.j, over_a ? flag_overflow : 0};
    out[1] = result_cell{b.score, b.i, b.j, over_b ? flag_overflow : 0};
    atomicAdd(pb.d_cells_done,
              static_cast<unsigned long long>(m) * static_cast<unsigned long long>(pair.columns + pair.length_b));
  }
  st = lane_state{};
}

//! profile_mode::pipelined: each block takes one (query, pair) at a time from the queue (or the
//! static partition) and its W warps scan the query's strips in turn, warp w strips w, w + W, …
//! (pipe_link: strip s reads ring row (s − 1) mod W and writes row s mod W of the block's W
//! border rows). Strip s + W reuses the row of strip s only once strip s + 1 has read it: s + W
//! waits on s + W − 1, which waits on … s + 1, so the block never deadlocks and never reads a row
//! too early. The warps' best cells merge under the tie rule (merge_cell) in shared memory.
template <typename policy_t>
__device__ void scan_pipelined(const scan_problem& pb) {
  using entry_t = profile_entry<policy_t::profile_words>;
  constexpr int G = policy_t::group_lanes;
  constexpr int W = policy_t::warps_per_block;
  constexpr unsigned full = 0xffffffffu;
  static_assert(policy_t::groups_per_warp == 1 && !policy_t::reach, "pipelined: one group per warp, scan mode");
  __shared__ std::int64_t task;
  __shared__ long long progress[W];
  __shared__ cell best_a[W], best_b[W];
  __shared__ int overflow[W];
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) & 31;
  const std::int64_t slice_entries = std::int64_t(pb.profile_rows) * G;
  const auto* profile = reinterpret_cast<const entry_t*>(pb.d_profile);
  std::uint64_t* ring = pb.d_border + std::int64_t(blockIdx.x) * W * pb.border_columns;
  const std::int64_t tasks = std::int64_t(pb.queries) * pb.pairs;
  for (std::int64_t round = 0;; ++round) {
    if (threadIdx.x == 0)
      task = pb.use_queue ? std::int64_t(atomicAdd(pb.d_queue, 1u)) : round * gridDim.x + blockIdx.x;
    if (threadIdx.x < W) progress[threadIdx.x] = -1;
    __syncthreads();
    const std::int64_t b = task;
    if (b >= tasks) break;
    const std::int64_t q = b / pb.pairs, p = b % pb.pairs;
    const query_info qi = pb.d_queries[q];
    const pair_view pair = load_pair(pb, p);
    const std::int32_t steps = pair.columns + G - 1;
    const entry_t* query_profile = profile + qi.profile_offset / std::int64_t(sizeof(entry_t));
    lane_state st;
    for (int s = warp; s < qi.strips; s += W) {
      const pipe_link link{ring + std::int64_t((s + W - 1) % W) * pb.border_columns, &progress[(s + W - 1) % W],
                           &progress[s % W]};
      scan_strip<policy_t, true>(pb, s, qi.strips, pair, steps, query_profile + s * slice_entries,
                                 ring + std::int64_t(s % W) * pb.border_columns, st, link);
    }
    const cell a = reduce_cell<G>(st.a), c = reduce_cell<G>(st.b);
    const int over = (__any_sync(full, st.overflow_a) ? 1 : 0) | (__any_sync(full, st.overflow_b) ? 2 : 0);
    if (lane == 0) {
      best_a[warp] = a;
      best_b[warp] = c;
      overflow[warp] = over;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      cell ra = best_a[0], rb = best_b[0];
      int ov = overflow[0];
      for (int w = 1; w < W; ++w) {
        merge_cell(ra, best_a[w]);
        merge_cell(rb, best_b[w]);
        ov |= overflow[w];
      }
      if (p < pb.pairs) {
        result_cell* out = pb.d_result + 2 * (q * pb.pairs + p);
        out[0] = result_cell{ra.score, ra.i, ra.j, (ov & 1) ? flag_overflow : 0};
        out[1] = result_cell{rb.score, rb.i, rb.j, (ov & 2) ? flag_overflow : 0};
        atomicAdd(pb.d_cells_done,
                  static_cast<unsigned long long>(qi.m) * static_cast<unsigned long long>(pair.columns + pair.length_b));
      }
    }
    __syncthreads();  // task, progress and the best cells are rewritten next round
  }
}

template <typename policy_t>
__global__ void __launch_bounds__(policy_t::block_threads, policy_t::min_blocks_per_sm)
    scan_kernel(const scan_problem pb) {
  if constexpr (policy_t::groups_per_warp == 1 && !policy_t::reach) {
    if (pb.mode == profile_mode::pipelined) return scan_pipelined<policy_t>(pb);
  }
  using entry_t = profile_entry<policy_t::profile_words>;
  constexpr int G = policy_t::group_lanes;
  constexpr unsigned full = 0xffffffffu;
  extern __shared__ entry_t smem_profile[];
  __shared__ std::int64_t block_batch;

  const int warp = int(threadIdx.x) / 32;
  const int group_in_warp = (int(threadIdx.x) & 31) / G;
  const std::int64_t slice_entries = std::int64_t(pb.profile_rows) * G;  // one strip, every rank
  const auto* profile = reinterpret_cast<const entry_t*>(pb.d_profile);
  const std::int64_t global_warp = std::int64_t(blockIdx.x) * policy_t::warps_per_block + warp;
  const std::int64_t global_group = global_warp * policy_t::groups_per_warp + group_in_warp;
  std::uint64_t* border = pb.d_border + global_group * pb.border_columns;
  const std::int64_t batches = std::int64_t(pb.queries) * pb.batches_per_query;
  lane_state st;

  if (pb.mode != profile_mode::streamed) {
    const bool resident = pb.mode == profile_mode::resident;
    if (resident) {
      copy_profile(smem_profile, profile, pb.profile_bytes / std::int64_t(sizeof(entry_t)));
      __syncthreads();
    }
    const entry_t* base = resident ? smem_profile : profile;
    const std::int64_t warps = std::int64_t(gridDim.x) * policy_t::warps_per_block;
    for (std::int64_t round = 0;; ++round) {
      std::int64_t b = 0;
      if (pb.use_queue) {
        unsigned taken = 0;
        if ((threadIdx.x & 31) == 0) taken = atomicAdd(pb.d_queue, 1u);
        b = __shfl_sync(full, taken, 0);
      } else {
        b = round * warps + global_warp;
      }
      if (b >= batches) break;
      const std::int64_t q = b / pb.batches_per_query;
      const query_info qi = pb.d_queries[q];
      const std::int64_t p = pb.one_to_one ? q : (b % pb.batches_per_query) * pb.batch + group_in_warp;
      const pair_view pair = load_pair(pb, p);
      const std::int32_t steps = __reduce_max_sync(full, unsigned(pair.columns)) + G - 1;
      const entry_t* query_profile = base + qi.profile_offset / std::int64_t(sizeof(entry_t));
      for (int s = 0; s < qi.strips; ++s) {
        scan_strip<policy_t>(pb, s, qi.strips, pair, steps, query_profile + s * slice_entries, border, st);
        __syncwarp();  // the border row written by lane G − 1 is read by every lane next strip
        if constexpr (policy_t::reach)  // one group per warp: warp-uniform
          if (st.alive_first > st.alive_last) break;  // nothing below can reach the score
      }
      finish_pair<policy_t>(pb, q, p, qi.m, pair, st);
    }
  } else {
    for (std::int64_t round = 0;; ++round) {
      if (threadIdx.x == 0)
        block_batch = pb.use_queue ? std::int64_t(atomicAdd(pb.d_queue, 1u)) : round * gridDim.x + blockIdx.x;
      __syncthreads();
      const std::int64_t b = block_batch;
      if (b >= batches) break;
      const std::int64_t q = b / pb.batches_per_query;
      const query_info qi = pb.d_queries[q];
      const std::int64_t p =
          (b % pb.batches_per_query) * pb.batch + std::int64_t(warp) * policy_t::groups_per_warp + group_in_warp;
      const pair_view pair = load_pair(pb, p);
      const std::int32_t steps = __reduce_max_sync(full, unsigned(pair.columns)) + G - 1;
      const entry_t* query_profile = profile + qi.profile_offset / std::int64_t(sizeof(entry_t));
      for (int s = 0; s < qi.strips; ++s) {
        __syncthreads();  // every group is done with the previous strip's profile
        copy_profile(smem_profile, query_profile + s * slice_entries, slice_entries);
        __syncthreads();
        scan_strip<policy_t>(pb, s, qi.strips, pair, steps, smem_profile, border, st);
      }
      finish_pair<policy_t>(pb, q, p, qi.m, pair, st);
      __syncthreads();  // block_batch is rewritten by the next round
    }
  }
}

}  // namespace swat::dbsearch

#pragma once
// The persistent scan kernel: a grid sized to fill the GPU once, whose warps (or blocks) take
// pairs of targets from a device-side task queue, longest first (Chen et al. 2010: dynamic load
// balancing with a persistent kernel and an atomic queue head), until the queue is empty.
//
// Two shapes, chosen per query by the host:
//  • resident profile (query profile ≤ resident_profile_max_bytes): the block copies the whole
//    profile into shared memory once; each warp then takes groups_per_warp consecutive pairs at
//    a time and scans every strip of them on its own (no block-wide synchronisation).
//  • streamed profile (longer queries): each block takes groups_per_block consecutive pairs and
//    its groups scan them strip by strip in step, the block loading one strip of the profile
//    into shared memory before each strip.
// With use_queue = 0 the same kernel partitions the pairs statically (round r of warp/block w
// takes batch r · (warps or blocks) + w): the baseline of the task-queue measurement.
// Consecutive pairs have nearly the same length (sorted on the host), so the groups of a warp
// or block run nearly the same number of steps.

#include <cstdint>

#include "cuda/engines/dbsearch/db_policy.cuh"
#include "cuda/engines/dbsearch/db_tile.cuh"

namespace swat::dbsearch {

//! The pair `task` as the calling group sees it (idle past the last task).
__device__ inline pair_view load_pair(const scan_problem& pb, std::int64_t task) {
  pair_view v;
  if (task < pb.tasks) {
    const pair_task t = pb.d_tasks[task];
    v.residues = pb.d_residues + t.offset;
    v.columns = t.columns;
    v.length_b = t.length_b;
  }
  return v;
}

//! Copies `entries` 16-byte profile entries from global to shared memory (whole block).
template <typename entry_t>
__device__ void copy_profile(entry_t* dst, const entry_t* src, std::int64_t entries) {
  for (std::int64_t k = threadIdx.x; k < entries; k += blockDim.x) dst[k] = src[k];
}

//! Reduces the group's best cells and stores the pair's results (lane 0 of the group).
template <typename policy_t>
__device__ void finish_pair(const scan_problem& pb, std::int64_t task, const pair_view& pair, lane_state& st) {
  constexpr int G = policy_t::group_lanes;
  constexpr unsigned full = 0xffffffffu;
  const cell a = reduce_cell<G>(st.a);
  const cell b = reduce_cell<G>(st.b);
  const unsigned group_mask = ((G == 32) ? full : ((1u << G) - 1u)) << (threadIdx.x & 31 & ~(G - 1));
  const unsigned over_a = __ballot_sync(full, st.overflow_a) & group_mask;
  const unsigned over_b = __ballot_sync(full, st.overflow_b) & group_mask;
  if ((threadIdx.x & (G - 1)) == 0 && task < pb.tasks) {
    pb.d_result[2 * task] = result_cell{a.score, a.i, a.j, over_a ? flag_overflow : 0};
    pb.d_result[2 * task + 1] = result_cell{b.score, b.i, b.j, over_b ? flag_overflow : 0};
    atomicAdd(pb.d_cells_done, static_cast<unsigned long long>(pb.m) *
                                   static_cast<unsigned long long>(pair.columns + pair.length_b));
  }
  st = lane_state{};
}

template <typename policy_t>
__global__ void __launch_bounds__(policy_t::block_threads, policy_t::min_blocks_per_sm)
    scan_kernel(const scan_problem pb) {
  using entry_t = profile_entry<policy_t::profile_words>;
  constexpr int G = policy_t::group_lanes;
  constexpr unsigned full = 0xffffffffu;
  extern __shared__ entry_t smem_profile[];
  __shared__ std::int64_t block_first;

  const int warp = int(threadIdx.x) / 32;
  const int group_in_warp = (int(threadIdx.x) & 31) / G;
  const std::int64_t slice_entries = std::int64_t(pb.profile_rows) * G;  // one strip, every rank
  const auto* profile = reinterpret_cast<const entry_t*>(pb.d_profile);
  const std::int64_t global_warp = std::int64_t(blockIdx.x) * policy_t::warps_per_block + warp;
  const std::int64_t global_group = global_warp * policy_t::groups_per_warp + group_in_warp;
  std::uint64_t* border = pb.d_border + global_group * pb.border_columns;
  lane_state st;

  if (pb.resident) {
    copy_profile(smem_profile, profile, slice_entries * pb.strips);
    __syncthreads();
    const std::int64_t warps = std::int64_t(gridDim.x) * policy_t::warps_per_block;
    for (std::int64_t round = 0;; ++round) {
      std::int64_t first = 0;
      if (pb.use_queue) {
        unsigned taken = 0;
        if ((threadIdx.x & 31) == 0) taken = atomicAdd(pb.d_queue, unsigned(policy_t::groups_per_warp));
        first = __shfl_sync(full, taken, 0);
      } else {
        first = (round * warps + global_warp) * policy_t::groups_per_warp;
      }
      if (first >= pb.tasks) break;
      const std::int64_t task = first + group_in_warp;
      const pair_view pair = load_pair(pb, task);
      const std::int32_t steps = __reduce_max_sync(full, unsigned(pair.columns)) + G - 1;
      for (int s = 0; s < pb.strips; ++s) {
        scan_strip<policy_t>(pb, s, pair, steps, smem_profile + s * slice_entries, border, st);
        __syncwarp();  // the border row written by lane G − 1 is read by every lane next strip
      }
      finish_pair<policy_t>(pb, task, pair, st);
    }
  } else {
    for (std::int64_t round = 0;; ++round) {
      if (threadIdx.x == 0) {
        block_first = pb.use_queue ? std::int64_t(atomicAdd(pb.d_queue, unsigned(policy_t::groups_per_block)))
                                   : (round * gridDim.x + blockIdx.x) * policy_t::groups_per_block;
      }
      __syncthreads();
      const std::int64_t first = block_first;
      if (first >= pb.tasks) break;
      const std::int64_t task = first + std::int64_t(warp) * policy_t::groups_per_warp + group_in_warp;
      const pair_view pair = load_pair(pb, task);
      const std::int32_t steps = __reduce_max_sync(full, unsigned(pair.columns)) + G - 1;
      for (int s = 0; s < pb.strips; ++s) {
        __syncthreads();  // every group is done with the previous strip's profile
        copy_profile(smem_profile, profile + s * slice_entries, slice_entries);
        __syncthreads();
        scan_strip<policy_t>(pb, s, pair, steps, smem_profile, border, st);
      }
      finish_pair<policy_t>(pb, task, pair, st);
      __syncthreads();  // block_first is rewritten by the next round
    }
  }
}

}  // namespace swat::dbsearch

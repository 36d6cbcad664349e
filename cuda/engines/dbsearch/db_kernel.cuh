#pragma once
// The persistent scan kernel: a grid sized to fill the GPU once, whose warps (or blocks) take
// batches of pairs of targets from a device-side task queue (Chen et al. 2010: dynamic load
// balancing with a persistent kernel and an atomic queue head), longest first, until the queue
// is empty. A launch scans a batch of queries in one of two orders (scan_problem::pair_major,
// chosen by the host for the shorter tail): query-major, batch b belongs to query
// b / batches_per_query (queries longest first), so a long query is not held back by short
// ones; pair-major, batch b is query b mod queries against the (b / queries)-th batch of pairs,
// so the longest pairs of every query start first and the launch ends on short pairs.
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

//! Batch (or pipelined task) b of a launch in the launch's order: its query, and the index of its
//! batch of pairs (its pair, for pipelined tasks and batches of one pair).
__device__ inline std::int64_t query_of_batch(const scan_problem& pb, std::int64_t b) {
  return pb.pair_major ? b % pb.queries : b / pb.batches_per_query;
}
__device__ inline std::int64_t pairs_of_batch(const scan_problem& pb, std::int64_t b) {
  return pb.pair_major ? b / pb.queries : b % pb.batches_per_query;
}

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
  const cell a = policy_t::reach ? reduce_reach<G>(st.a) : reduce_cell<G>(st.a, pb.rows_first != 0);
  const cell b = policy_t::reach ? cell{} : reduce_cell<G>(st.b, pb.rows_first != 0);
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

//! Shared-memory word access by atomics only (compute-sanitizer's racecheck follows atomics on
//! shared memory; the chained pipeline's bookkeeping is read and written by different warps).
__device__ __forceinline__ int shared_load(int* p) { return atomicAdd(p, 0); }
__device__ __forceinline__ long long shared_load(long long* p) {
  return static_cast<long long>(atomicAdd(reinterpret_cast<unsigned long long*>(p), 0ull));
}
__device__ __forceinline__ void shared_store(int* p, int v) { atomicExch(p, v); }
__device__ __forceinline__ void shared_store(long long* p, long long v) {
  atomicExch(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

//! The (query, pair) tasks a pipelined block has in flight (db_kernel.cuh, scan_pipelined).
template <int W>
struct pipe_tasks {
  static constexpr int slots = 16;  //!< tasks in flight at most (≥ W: one-strip tasks)
  long long range[slots];           //!< first running strip << 24 | strips (0: none)
  long long task[slots];            //!< the task (its batch number, pipelined: one pair)
  int left[slots];                  //!< warps of the task that have not handed their best cells in
  int busy[slots];                  //!< 1 while the task runs
  int score[slots][2][W], row[slots][2][W], col[slots][2][W];  //!< each warp's best cells (A, B)
  int over[slots][W];                                         //!< each warp's overflow bits
  long long known_end;              //!< running number of the first strip no task holds yet
  int claims;                       //!< tasks the block has taken
  int finished;                     //!< 1: no task is left (known_end is final)
};

//! Waits (lane 0 of a warp) until *word == 0 or an error is recorded; false on the watchdog.
__device__ inline bool wait_zero(const scan_problem& pb, int* word) {
  ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device> error(*pb.d_error);
  const long long start = clock64();
  while (shared_load(word) != 0) {
    if (error.load(::cuda::memory_order_relaxed) != 0) return false;
    if (clock64() - start > pb.watchdog_cycles) {
      error.store(scan_error_watchdog, ::cuda::memory_order_relaxed);
      return false;
    }
    __nanosleep(32);
  }
  __threadfence_block();
  return true;
}

//! profile_mode::pipelined: the W warps of a block scan (query, pair) tasks strip by strip as one
//! chain. The block numbers the strips of its tasks one after the other (running number g: the
//! task taken k-th by the block holds g = first … first + strips − 1) and warp w scans g = w,
//! w + W, …: strip g reads ring row (g − 1) mod W (when it is not its task's first strip) and
//! writes row g mod W (pipe_link). A task's warps start on the next task as soon as they are
//! done with it, so a query of fewer strips than W warps does not leave warps idle. The warp
//! whose strip is the first without a task takes the next one from the queue (or the static
//! partition); the warps hand their best cells in per task and the last one stores the result.
//! Every wait is on a strip of smaller running number (the row above, the row's previous
//! reader, the taker of the task, the warps of a task TS tasks back), so the block never
//! deadlocks; every wait has the watchdog.
template <typename policy_t>
__device__ void scan_pipelined(const scan_problem& pb) {
  using entry_t = profile_entry<policy_t::profile_words>;
  constexpr int G = policy_t::group_lanes;
  constexpr int W = policy_t::warps_per_block;
  constexpr unsigned full = 0xffffffffu;
  static_assert(policy_t::runs_pipelined, "pipelined: one group per warp, scan mode");
  using tasks_t = pipe_tasks<W>;
  constexpr int TS = tasks_t::slots;
  __shared__ long long progress[2 * W];  // per ring row: progress, then (W words on) freed
  __shared__ tasks_t pt;
  extern __shared__ entry_t pipe_slices[];  // pb.pipe_shared_slices: W strips' profiles
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) & 31;
  if (threadIdx.x < 2 * W) progress[threadIdx.x] = -1;
  if (threadIdx.x < TS) {
    pt.range[threadIdx.x] = 0;
    pt.busy[threadIdx.x] = 0;
  }
  if (threadIdx.x == 0) {
    pt.known_end = 0;
    pt.claims = 0;
    pt.finished = 0;
  }
  __syncthreads();

  // The warp's task (slot, first running strip, strips), kept in shared memory across strips
  // (registers are the strip's); only lane 0 reads and writes them, and broadcasts.
  __shared__ int ws_slot[W], ws_strips[W];
  __shared__ long long ws_first[W];
  const auto from_lane0 = [&](int v) { return __shfl_sync(full, v, 0); };
  if (lane == 0) ws_slot[warp] = -1;
  __syncwarp();
  lane_state st;
  // Hands the warp's best cells of its task in; the last of the task's warps stores the result
  // and frees the slot.
  const auto hand_in = [&](int slot) {
    const cell a = reduce_cell<G>(st.a, pb.rows_first != 0), c = reduce_cell<G>(st.b, pb.rows_first != 0);
    const int over = (__any_sync(full, st.overflow_a) ? 1 : 0) | (__any_sync(full, st.overflow_b) ? 2 : 0);
    if (lane == 0) {
      shared_store(&pt.score[slot][0][warp], a.score);
      shared_store(&pt.row[slot][0][warp], a.i);
      shared_store(&pt.col[slot][0][warp], a.j);
      shared_store(&pt.score[slot][1][warp], c.score);
      shared_store(&pt.row[slot][1][warp], c.i);
      shared_store(&pt.col[slot][1][warp], c.j);
      shared_store(&pt.over[slot][warp], over);
      __threadfence_block();
      if (atomicSub(&pt.left[slot], 1) == 1) {
        __threadfence_block();
        cell r[2];
        int ov = 0;
        for (int w = 0; w < W; ++w) {
          for (int x = 0; x < 2; ++x)
            merge_cell(r[x],
                       cell{shared_load(&pt.score[slot][x][w]), shared_load(&pt.row[slot][x][w]),
                            shared_load(&pt.col[slot][x][w])},
                       pb.rows_first != 0);
          ov |= shared_load(&pt.over[slot][w]);
        }
        const long long b = shared_load(&pt.task[slot]);
        const std::int64_t q = query_of_batch(pb, b), p = pairs_of_batch(pb, b);
        const pair_view pair = load_pair(pb, p);
        result_cell* out = pb.d_result + 2 * (q * pb.pairs + p);
        out[0] = result_cell{r[0].score, r[0].i, r[0].j, (ov & 1) ? flag_overflow : 0};
        out[1] = result_cell{r[1].score, r[1].i, r[1].j, (ov & 2) ? flag_overflow : 0};
        atomicAdd(pb.d_cells_done, static_cast<unsigned long long>(pb.d_queries[q].m) *
                                       static_cast<unsigned long long>(pair.columns + pair.length_b));
        shared_store(&pt.range[slot], 0);
        __threadfence_block();
        shared_store(&pt.busy[slot], 0);
      }
      ws_slot[warp] = -1;
    }
    __syncwarp();
    st = lane_state{};
  };

  for (long long g = warp;; g += W) {
    {
      const int held = lane == 0 && ws_slot[warp] >= 0 && g >= ws_first[warp] + ws_strips[warp] ? ws_slot[warp] : -1;
      if (from_lane0(held) >= 0) hand_in(from_lane0(held));
    }
    // The task that holds strip g: found among the slots, or taken here when g is the first
    // strip without a task; none once the tasks are done.
    while (from_lane0(lane == 0 ? ws_slot[warp] : 0) < 0) {
      int state = 0;  // 0 wait, 1 found, 2 done, 3 error
      if (lane == 0) {
        ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device> error(*pb.d_error);
        const int fin = shared_load(&pt.finished);
        __threadfence_block();
        const long long end = shared_load(&pt.known_end);
        __threadfence_block();
        if (error.load(::cuda::memory_order_relaxed) != 0) {
          state = 3;
        } else if (g < end) {
          state = 3;  // a strip below known_end always has its task in a slot
          for (int k = 0; k < TS; ++k) {
            const long long r = shared_load(&pt.range[k]);
            const long long rf = r >> 24, rn = r & 0xffffff;
            if (rn > 0 && rf <= g && g < rf + rn) {
              ws_slot[warp] = k;
              ws_first[warp] = rf;
              ws_strips[warp] = int(rn);
              state = 1;
              break;
            }
          }
        } else if (fin) {
          state = 2;
        } else if (g == end) {  // take the next task
          const int k = shared_load(&pt.claims);
          const long long b = pb.use_queue ? static_cast<long long>(atomicAdd(pb.d_queue, 1u))
                                           : static_cast<long long>(k) * gridDim.x + blockIdx.x;
          if (b >= std::int64_t(pb.queries) * pb.pairs) {
            shared_store(&pt.finished, 1);
          } else if (wait_zero(pb, &pt.busy[k % TS])) {
            const int sl = k % TS;
            const int n = pb.d_queries[query_of_batch(pb, b)].strips;
            for (int w = 0; w < W; ++w) {
              for (int x = 0; x < 2; ++x) {
                shared_store(&pt.score[sl][x][w], 0);
                shared_store(&pt.row[sl][x][w], 0);
                shared_store(&pt.col[sl][x][w], 0);
              }
              shared_store(&pt.over[sl][w], 0);
            }
            shared_store(&pt.task[sl], b);
            shared_store(&pt.left[sl], min(n, W));
            shared_store(&pt.busy[sl], 1);
            shared_store(&pt.range[sl], (end << 24) | static_cast<long long>(n));
            shared_store(&pt.claims, k + 1);
            __threadfence_block();
            atomicMax(&pt.known_end, end + n);
          } else {
            state = 3;
          }
        } else {  // a warp with a smaller strip is taking a task
          const long long start = clock64();
          while (shared_load(&pt.known_end) == end && shared_load(&pt.finished) == 0 &&
                 error.load(::cuda::memory_order_relaxed) == 0) {
            if (clock64() - start > pb.watchdog_cycles) {
              error.store(scan_error_watchdog, ::cuda::memory_order_relaxed);
              break;
            }
            __nanosleep(32);
          }
        }
      }
      __syncwarp();
      if (__shfl_sync(full, state, 0) >= 2) break;
    }
    const int slot = from_lane0(lane == 0 ? ws_slot[warp] : 0);
    if (slot < 0) break;
    long long task = 0;
    if (lane == 0) task = shared_load(&pt.task[slot]);
    task = __shfl_sync(full, task, 0);
    const std::int64_t q = query_of_batch(pb, task), p = pairs_of_batch(pb, task);
    const query_info qi = pb.d_queries[q];
    const pair_view pair = load_pair(pb, p);
    const std::int32_t steps = pair.columns + G - 1;
    const entry_t* query_profile =
        reinterpret_cast<const entry_t*>(pb.d_profile) + qi.profile_offset / std::int64_t(sizeof(entry_t));
    const std::int64_t slice_entries = std::int64_t(pb.profile_rows) * G;
    const int s = int(g - __shfl_sync(full, lane == 0 ? ws_first[warp] : 0ll, 0));
    const entry_t* slice = query_profile + s * slice_entries;
    if (pb.pipe_shared_slices) {  // the strip's profile into the warp's part of shared memory (its last strip is done)
      entry_t* own_slice = pipe_slices + warp * slice_entries;
      __syncwarp();
      for (std::int64_t k = lane; k < slice_entries; k += 32) own_slice[k] = slice[k];
      __syncwarp();
      slice = own_slice;
    }
    const int up = int((g + W - 1) % W), own = int(g % W);
    std::uint64_t* ring = pb.d_border + std::int64_t(blockIdx.x) * W * pb.border_columns;
    pipe_link link;
    link.border_in = ring + std::int64_t(up) * pb.border_columns;
    link.progress_in = &progress[up];
    link.progress_out = &progress[own];
    link.g = g;
    scan_strip<policy_t, true>(pb, s, qi.strips, pair, steps, slice, ring + std::int64_t(own) * pb.border_columns, st,
                               link);
  }
  const int held = from_lane0(lane == 0 ? ws_slot[warp] : -1);
  if (held >= 0) hand_in(held);
}

template <typename policy_t>
__global__ void __launch_bounds__(policy_t::block_threads, policy_t::min_blocks_per_sm)
    scan_kernel(const scan_problem pb) {
  if constexpr (policy_t::runs_pipelined) {
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
      const std::int64_t q = query_of_batch(pb, b);
      const query_info qi = pb.d_queries[q];
      const std::int64_t p = pb.one_to_one ? q : pairs_of_batch(pb, b) * pb.batch + group_in_warp;
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
      const std::int64_t q = query_of_batch(pb, b);
      const query_info qi = pb.d_queries[q];
      const std::int64_t p = pairs_of_batch(pb, b) * pb.batch + std::int64_t(warp) * policy_t::groups_per_warp + group_in_warp;
      const pair_view pair = load_pair(pb, p);
      const std::int32_t steps = __reduce_max_sync(full, unsigned(pair.columns)) + G - 1;
      const entry_t* query_profile =
        reinterpret_cast<const entry_t*>(pb.d_profile) + qi.profile_offset / std::int64_t(sizeof(entry_t));
    const std::int64_t slice_entries = std::int64_t(pb.profile_rows) * G;
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

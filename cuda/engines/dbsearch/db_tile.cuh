#pragma once
// One group of G lanes scans one strip of the query against one pair of targets, score only,
// two cells per register (target A in bits 0–15, target B in bits 16–31). Recurrences of
// Gotoh 1982 as in common/traceback.hpp, with the gap states shifted by o + e
// (E~ = E + o + e, F~ = F + o + e) to save one add per cell:
//   E~(i,j) = max(E~(i,j−1) − e, H(i,j−1))                   one VIADDMNMX.S16x2
//   H0(i,j) = max(0, H(i−1,j−1) + s, E~ − o − e)              VIADDMNMX.RELU (+ add)
//   F~(i,j) = max(F~(i−1,j) − e, H0(i−1,j))                  one VIADDMNMX.S16x2 (the only chain)
//   H(i,j)  = max(H0, F~ − o − e)                              one VIADDMNMX.S16x2
// Lane l holds rows s·strip_rows + l·R + 1 … + R (R = rows_per_lane) and works on column t − l
// at step t; lane 0 takes its upper neighbour from the border row that the group's previous
// strip left in global memory (loaded G columns at a time, coalesced, handed over by shuffles),
// lane G − 1 writes the strip's last row there in place (column j is written G − 1 steps after
// it was read).
//
// Columns outside a target: before column 0 every input is H = 0 with the pad rank (scores −1),
// which keeps H = 0 and gives the E~ of a real column 0; past B's end (and past A's, while the
// other groups of the warp finish) the cells are computed with the pad rank too. Rows past m
// and columns past a target's end score −1 against everything, and a path that enters them stays
// there, so such a cell's H is below that of a real cell in a column and a row no larger (each
// step inside loses 1 on the diagonal or o + e > 0 to open a gap, scan_supports): it never beats
// the real one under either tie rule, and the best-cell test takes it unmasked (reach mode,
// which looks for an equal score, masks it).
//
// Best cell (tie rule of common/traceback.hpp: highest score, then smallest j, then smallest i):
// within a strip a lane keeps the first column whose maximum reaches the group's best so far
// (then strictly higher ones) and in it the smallest row; strips are merged with cell_beats,
// then the group reduces. With scan_problem::rows_first (the caller's targets are the rows:
// db_engine's transposed search) the rule is highest score, then smallest row, then smallest
// column: a lane also takes an equal score at a smaller row of a later column, a later strip
// (larger rows) only a higher score, and the merges compare rows first.
//
// Overflow: as long as every H so far is ≤ score_limit ≤ 32767 − max s, every sum stays
// ≤ 32767 and every value is exact; the first H above the limit is exact, beats its lane's
// best and sets the target's overflow flag (the host rescans that target at 32 bits). E~ and F~
// never go below −16384 − e (−32768 is not reached for o + e ≤ 8192, checked on the host).

#include <cstdint>

#include <cuda/atomic>

#include "common/traceback.hpp"
#include "cuda/common/packed16.cuh"
#include "cuda/engines/dbsearch/db_problem.hpp"

namespace swat::dbsearch {

using swat::cuda::byte_pair;
using swat::cuda::hi16;
using swat::cuda::lo16;
using swat::cuda::pack16;
using swat::cuda::splat16;

//! int8 profile of one lane for one target rank: R scores packed in R/4 words (16 bytes: one
//! LDS.128, conflict-free since a rank's entries of consecutive lanes are consecutive).
template <int words_v>
struct alignas(4 * words_v) profile_entry {
  std::uint32_t w[words_v];
};

//! Best cell of one target as seen by one lane.
struct cell {
  std::int32_t score = 0;
  std::int32_t i = 0;  //!< 1-based query row
  std::int32_t j = 0;  //!< 1-based target column
};

//! Keeps b in a when it beats a under the tie rule: highest score, then smallest column, then
//! smallest row; with rows_first (scan_problem::rows_first: the caller's targets are the rows)
//! smallest row, then smallest column.
__device__ __forceinline__ void merge_cell(cell& a, const cell& b, bool rows_first) {
  if (b.score > 0 && (rows_first ? cell_beats(b.score, b.j, b.i, a.score, a.j, a.i)
                                 : cell_beats(b.score, b.i, b.j, a.score, a.i, a.j)))
    a = b;
}

//! What a lane keeps of its pair across strips.
struct lane_state {
  cell a, b;              //!< best cells of targets A and B over the strips done
  bool overflow_a = false, overflow_b = false;
  //! Reach mode: the first and last columns of the border row left by the last strip where H
  //! is alive (> 0); none (first > last) ends the pair.
  std::int32_t alive_first = 0, alive_last = -1;
};


//! The pair a group works on (columns = 0: an idle group that only keeps step with its warp).
struct pair_view {
  const std::uint16_t* residues = nullptr;  //!< the pair's columns
  std::int32_t columns = 0;                 //!< length of A
  std::int32_t length_b = 0;                //!< length of B
  std::int32_t reach = 0;                   //!< reach mode: A's target score
};

//! When value beats best: best becomes (value, the smallest of the lane's rows holding it in the
//! half at bit `shift` of h, column j + 1). Columns come in order, so a higher value beats; with
//! rows_first an equal value at a smaller row does too (best.j = 0: a floor, no cell).
template <int R>
__device__ __forceinline__ void record_best(cell& best, std::int32_t value, const std::uint32_t (&h)[R], int shift,
                                            std::int32_t row0, std::int32_t j, bool rows_first) {
  if (value < best.score || value <= 0) return;
  if (value == best.score && (!rows_first || best.j == 0)) return;
  int ri = 0;
#pragma unroll
  for (int r = R - 1; r >= 0; --r)
    if (std::int32_t(std::int16_t(h[r] >> shift)) == value) ri = r;
  if (value == best.score && row0 + ri + 1 >= best.i) return;
  best = cell{value, row0 + ri + 1, j + 1};
}

//! The value above which a column's maximum goes to record_best: the best so far, or one less
//! with rows_first while a smaller row of the lane (first row row0 + 1) could still tie it.
__device__ __forceinline__ std::int32_t record_threshold(const cell& best, std::int32_t row0, bool rows_first) {
  return rows_first && best.j > 0 && best.i > row0 + 1 ? best.score - 1 : best.score;
}

//! Largest value of v over the group (every lane of the warp calls it).
template <int G>
__device__ __forceinline__ std::int32_t group_max(std::int32_t v) {
#pragma unroll
  for (int d = G / 2; d > 0; d /= 2) v = max(v, __shfl_xor_sync(0xffffffffu, v, d, G));
  return v;
}

//! Where a pipelined strip (profile_mode::pipelined) hands its last row over. Strips carry the
//! block's running number g (strips of successive pairs follow each other, db_kernel.cuh); the
//! strip above (g − 1) wrote border_in and counts its columns in progress_in, this one writes
//! border (its own ring row) and counts in progress_out: a count is g · unit + columns written
//! (unit = the launch's longest pair + 1, pipe_unit),
//! so a ring row's count only grows as later strips reuse it. Once done, the strip frees
//! border_in in freed_in ((g − 1) · unit + unit − 1), and before writing its own row it waits
//! until the row's last reader (strip g − W + 1) freed it (freed_out ≥ (g − W) · unit + unit − 1);
//! a task's last strip, whose row nobody reads, frees its row at once. A row's freed word sits
//! W words after its progress word (W = the policy's warps per block). (Within one task the
//! chain of waits alone would order them; across tasks a first strip waits on nothing.)
struct pipe_link {
  const std::uint64_t* border_in = nullptr;
  long long* progress_in = nullptr;
  long long* progress_out = nullptr;
  long long g = 0;  //!< the strip's running number in its block
};

//! One strip's count unit: above the launch's longest pair (border_columns), so a row's count
//! only grows as later strips reuse it, whatever the targets' lengths.
__device__ __forceinline__ long long pipe_unit(const scan_problem& pb) { return pb.border_columns + 1; }

//! The progress word, read by an atomic (relaxed; with the fence after it an acquire). Atomic
//! read-modify-writes rather than ld.acquire / st.release: compute-sanitizer's racecheck
//! follows the former on shared memory and reports the latter as races.
__device__ __forceinline__ long long read_progress(long long* progress) {
  return static_cast<long long>(atomicAdd(reinterpret_cast<unsigned long long*>(progress), 0ull));
}

//! Spins until *progress ≥ need, then fences (block scope): with the writer's fence before its
//! atomicMax (publish_progress) the border row's columns below need are visible. On the
//! watchdog's limit it records scan_error_watchdog and returns (the results are then void; the
//! host throws); it also returns at once once any warp recorded an error, so that a stuck strip
//! costs one watchdog period, not one per strip waiting behind it.
__device__ inline void wait_progress(const scan_problem& pb, long long* progress, long long need) {
  if (read_progress(progress) < need) {
    ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device> error(*pb.d_error);
    const long long start = clock64();
    while (read_progress(progress) < need) {
      if (error.load(::cuda::memory_order_relaxed) != 0) break;
      if (clock64() - start > pb.watchdog_cycles) {
        error.store(scan_error_watchdog, ::cuda::memory_order_relaxed);
        break;
      }
    }
  }
  __threadfence_block();
}

//! Publishes count (a release: the fence orders this thread's border stores before it).
__device__ __forceinline__ void publish_progress(long long* progress, long long count) {
  __threadfence_block();
  atomicMax(progress, count);
}

//! Scans strip s (of strips) of the pair with the calling group. steps (warp-uniform) ≥
//! columns + G − 1; slice is this strip's profile, [profile_rows][G] entries (shared or global
//! memory); border is the group's slot (piped: this strip's ring row, the one above in pipe).
template <typename policy_t, bool piped = false>
__device__ void scan_strip(const scan_problem& pb, int s, int strips, const pair_view& pair, std::int32_t steps,
                           const profile_entry<policy_t::profile_words>* slice, std::uint64_t* border,
                           lane_state& st, const pipe_link& pipe = {}) {
  constexpr int G = policy_t::group_lanes;
  constexpr int R = policy_t::rows_per_lane;
  constexpr unsigned full = 0xffffffffu;
  static_assert(!policy_t::reach || G == 32, "reach mode: one group per warp (its early exits are warp-wide)");
  const int lane = int(threadIdx.x) & (G - 1);
  const std::int32_t row0 = s * policy_t::strip_rows + lane * R;  // rows row0 + 1 … row0 + R
  const profile_entry<policy_t::profile_words>* const lane_slice = slice + lane;  // [rank · G]: the lane's scores
  const std::uint32_t neg_goe = splat16(-pb.gap_open_extend), neg_ge = splat16(-pb.gap_extend);
  const std::uint32_t minus_inf = splat16(minus_infinity16);
  const std::uint32_t pad = std::uint32_t(pb.profile_rows - 1);
  // A column's two ranks travel as profile offsets (rank · G entries, A in bits 0–15, B in 16–31).
  const std::uint32_t pad2 = (pad | (pad << 16)) * G;
  const bool write_border = s + 1 < strips;
  const bool border_writer = write_border && lane == G - 1;  // hands the strip's last row down
  const std::int32_t columns = pair.columns, length_b = pair.length_b;
  const std::uint64_t* const border_in = piped ? pipe.border_in : border;
  [[maybe_unused]] const long long unit = piped ? pipe_unit(pb) : 0;
  [[maybe_unused]] const long long count_base = piped ? pipe.g * unit : 0;
  static_assert(!piped || (G == 32 && !policy_t::reach), "pipelined strips: one group per warp, no reach mode");
  [[maybe_unused]] const std::uint32_t reach2 = pack16(pair.reach, -1);  // B never matches: H ≥ 0
  // Reach mode, pruned (exact: db_align.hpp). Every cell on a path of score S from the origin
  // has H ≥ 1 there (what follows it on the path is a local alignment that does not start at
  // the origin, so it scores < S), and a path through a cell with H ≤ 0 ends below S. So the
  // strip starts at the first alive column of the border above (to its left every input is
  // dead), reads the border only up to its last alive column, and stops when every lane's cells
  // were dead for two steps (a lane's inputs come from its own last step and its upper
  // neighbour's last two) past that column; a dead border ends the pair (db_kernel.cuh).
  const std::int32_t floor = policy_t::reach && pair.reach <= reach_anchored_max ? -pair.reach : 0;
  [[maybe_unused]] const std::uint32_t floor2 = splat16(floor);
  const std::int32_t t_begin = policy_t::reach && s > 0 ? st.alive_first : 0;
  const std::int32_t border_last = policy_t::reach ? (s > 0 ? st.alive_last : -1) : columns - 1;
  [[maybe_unused]] std::int32_t alive_first = INT32_MAX, alive_last = -1;  // of this strip's border (lane G − 1)
  [[maybe_unused]] bool dead_before = false;

  if constexpr (piped) {
    if (!write_border) {
      if (lane == 0) publish_progress(pipe.progress_out + policy_t::warps_per_block, count_base + unit - 1);  // nobody reads this row
    } else {  // the row's last reader (strip g − W + 1) is done with it
      wait_progress(pb, pipe.progress_out + policy_t::warps_per_block,
                    (pipe.g - policy_t::warps_per_block) * unit + unit - 1);
    }
  }
  std::uint32_t h[R], e[R];  // H and E~ of the lane's rows, previous column
#pragma unroll
  for (int r = 0; r < R; ++r) {
    h[r] = policy_t::reach ? floor2 : 0u;
    e[r] = minus_inf;
  }
  // H of the row above, previous column (diag): the origin H(0, 0) = 0 for the first strip's
  // lane 0, else (reach mode) a dead cell left of the strip's first column.
  std::uint32_t up_prev = policy_t::reach && (s > 0 || lane > 0) ? floor2 : 0u;
  std::uint32_t out_h = policy_t::reach ? floor2 : 0u, out_f = minus_inf;  // last row's H and F~ after the last step
  std::uint32_t out_t = pad2;                       // the last step's column: its ranks' offsets
  std::uint32_t ch_h = 0, ch_f = minus_inf, ch_t = pad2;  // chunk: lane k holds column t0 + k
  // Cells below the group's best so far cannot win: this strip records, per target, the first
  // column reaching at least that best (an equal score in a smaller column wins the tie), then
  // strictly higher ones. A high threshold keeps the rare best-cell branch rare on long queries.
  // With rows_first an equal score in this strip (larger rows) never wins: the floor is the best.
  const bool rows_first = pb.rows_first != 0;
  const std::int32_t below = rows_first ? 0 : 1;
  const std::int32_t floor_a = policy_t::reach ? 0 : max(group_max<G>(st.a.score) - below, 0);
  const std::int32_t floor_b = policy_t::reach ? 0 : max(group_max<G>(st.b.score) - below, 0);
  std::uint32_t best2 = pack16(floor_a, floor_b);  // thresholds of A and B (record_threshold, packed)
  cell strip_a{floor_a, 0, 0}, strip_b{floor_b, 0, 0};  // j = 0: nothing found in this strip

  // The next G columns' ranks and upper border (warp-uniform), from column t on.
  const auto load_chunk = [&](std::int32_t t) {
    const std::int32_t c = t + lane;
    ch_h = policy_t::reach ? floor2 : 0u;  // row 0 (reach: anchored, only H(0, 0) = 0)
    ch_f = minus_inf;
    ch_t = pad2;
    if constexpr (piped) {  // the strip above has written these G columns (or all of its row)
      if (s > 0 && t < columns) wait_progress(pb, pipe.progress_in, count_base - unit + min(t + G, columns));
    }
    if (c < columns) {
      const std::uint32_t ranks = pair.residues[c];
      ch_t = ((ranks & 0xffu) | ((ranks >> 8) << 16)) * G;
      if (s > 0 && c <= border_last) {
        const std::uint64_t b = border_in[c];
        ch_h = std::uint32_t(b);
        ch_f = std::uint32_t(b >> 32);
      }
    }
  };
  // Column t − lane of every lane (k: t's place in its chunk); true: the strip ends here (reach mode).
  const auto step = [&](std::int32_t t, int k) -> bool {
    std::uint32_t vh = __shfl_up_sync(full, out_h, 1, G);
    std::uint32_t vf = __shfl_up_sync(full, out_f, 1, G);
    std::uint32_t vt = __shfl_up_sync(full, out_t, 1, G);
    const std::uint32_t xh = __shfl_sync(full, ch_h, k, G);
    const std::uint32_t xf = __shfl_sync(full, ch_f, k, G);
    const std::uint32_t xt = __shfl_sync(full, ch_t, k, G);
    if (lane == 0) {
      vh = xh;
      vf = xf;
      vt = xt;
    }

    const profile_entry<policy_t::profile_words> pa = lane_slice[vt & 0xffffu];
    const profile_entry<policy_t::profile_words> pb_ = lane_slice[vt >> 16];
    // H0 = max(0, diag + s, E) first, independent across rows; then the F~ chain down the rows
    // runs on H0 alone (one op per row on the critical path): opening from an H that came from
    // F is never better than extending that F (o ≥ 0), so max(H − o − e, F − e) equals
    // max(H0 − o − e, F − e) and H = max(H0, F~ − o − e) is exact.
    std::uint32_t h0[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const std::uint32_t dsum = __vadd2(r == 0 ? up_prev : h[r - 1], byte_pair(pa.w[r / 4], pb_.w[r / 4], r % 4));
      e[r] = __viaddmax_s16x2(e[r], neg_ge, h[r]);
      if constexpr (policy_t::reach)
        h0[r] = __vmaxs2(__viaddmax_s16x2(e[r], neg_goe, dsum), floor2);
      else
        h0[r] = __viaddmax_s16x2_relu(e[r], neg_goe, dsum);
    }
    std::uint32_t fup = vf;
    std::uint32_t colmax = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      fup = __viaddmax_s16x2(fup, neg_ge, r == 0 ? vh : h0[r - 1]);
      h[r] = __viaddmax_s16x2(fup, neg_goe, h0[r]);
      if (r % 2 == 1) colmax = __vimax3_s16x2(colmax, h[r - 1], h[r]);
    }
    const std::uint32_t hup = h[R - 1];
    up_prev = vh;
    out_h = hup;
    out_f = fup;
    out_t = vt;

    const std::int32_t j = t - lane;  // 0-based column of this step
    if constexpr (policy_t::reach) {
      colmax &= j < length_b ? 0xffffffffu : (j < columns ? 0x0000ffffu : 0u);
      if ((__vcmpeq2(colmax, reach2) & 0xffffu) != 0) {  // target A reached its score here
        int ri = 0;
#pragma unroll
        for (int r = 0; r < R; ++r)
          if (lo16(h[r]) == pair.reach) ri = r;
        st.a = cell{pair.reach, max(st.a.i, row0 + ri + 1), max(st.a.j, j + 1)};
      }
    } else if (__vmaxs2(colmax, best2) != best2) {  // a target beat this strip's best (smallest j first)
      record_best<R>(strip_a, lo16(colmax), h, 0, row0, j, rows_first);
      record_best<R>(strip_b, hi16(colmax), h, 16, row0, j, rows_first);
      best2 = pack16(record_threshold(strip_a, row0, rows_first), record_threshold(strip_b, row0, rows_first));
    }

    if (border_writer && unsigned(j) < unsigned(columns)) {
      border[j] = std::uint64_t(hup) | (std::uint64_t(fup) << 32);
      if constexpr (piped) {  // every G columns and the last: the strip below may read them (release)
        if ((j + 1) % G == 0 || j + 1 == columns) publish_progress(pipe.progress_out, count_base + j + 1);
      }
      if constexpr (policy_t::reach) {
        if (lo16(hup) > 0) {
          alive_first = min(alive_first, j);
          alive_last = j;
        }
      }
    }
    if constexpr (policy_t::reach) {
      // colmax ≥ 0 holds the lane's largest H of target A in this column (0: all dead).
      const bool dead = __all_sync(full, lo16(colmax) == 0);
      if (dead && dead_before && t > border_last) return true;
      dead_before = dead;
    }
    return false;
  };
  if constexpr (G == 32) {  // one loop per chunk (width 32: 7 % faster on DNA, 2 % slower at width 16)
    for (std::int32_t t0 = t_begin; t0 < steps; t0 += G) {
      load_chunk(t0);
      bool stop = false;
      const int chunk_steps = min(G, steps - t0);
      for (int k = 0; k < chunk_steps && !stop; ++k) stop = step(t0 + k, k);
      if (stop) break;
    }
  } else {
    for (std::int32_t t = t_begin; t < steps; ++t) {
      const int k = int((t - t_begin) & (G - 1));
      if (k == 0) load_chunk(t);
      if (step(t, k)) break;
    }
  }

  if constexpr (piped) {  // the row above is read: its next writer may have it
    __syncwarp();
    if (s > 0 && lane == 0)  // (g − 1) · unit + unit − 1
      publish_progress(pipe.progress_in + policy_t::warps_per_block, count_base - 1);
  }
  if constexpr (policy_t::reach) {
    st.alive_first = __shfl_sync(full, alive_first, G - 1, G);
    st.alive_last = __shfl_sync(full, alive_last, G - 1, G);
    return;
  }
  if (strip_a.j > 0) {
    st.overflow_a = st.overflow_a || strip_a.score > pb.score_limit;
    merge_cell(st.a, strip_a, rows_first);
  }
  if (strip_b.j > 0) {
    st.overflow_b = st.overflow_b || strip_b.score > pb.score_limit;
    merge_cell(st.b, strip_b, rows_first);
  }
}

//! Group-wide largest row and column of the reach mode (every lane of the warp calls it).
template <int G>
__device__ cell reduce_reach(cell c) {
  return cell{group_max<G>(c.score), group_max<G>(c.i), group_max<G>(c.j)};
}

//! Group-wide best cell under the tie rule (every lane of the warp calls it).
template <int G>
__device__ cell reduce_cell(cell c, bool rows_first) {
  constexpr unsigned full = 0xffffffffu;
#pragma unroll
  for (int d = G / 2; d > 0; d /= 2) {
    cell o;
    o.score = __shfl_xor_sync(full, c.score, d, G);
    o.i = __shfl_xor_sync(full, c.i, d, G);
    o.j = __shfl_xor_sync(full, c.j, d, G);
    merge_cell(c, o, rows_first);
  }
  return c;
}

}  // namespace swat::dbsearch

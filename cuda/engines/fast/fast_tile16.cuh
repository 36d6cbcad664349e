#pragma once
// Packed 16-bit fill of one strip (score only): every register holds two cells, the same row
// offset of two stacked halves of the strip. Lane l owns rows top0 + 1 … top0 + R of the top
// half (bits 0–15) and the same rows 32·R further down in the bottom half (bits 16–31).
//
// Skew: at step t the top half of lane l is on column t − l and the bottom half on t − 32 − l,
// so the first row of the bottom half in lane 0 needs, at step t, the last top-half row of
// lane 31 from step t − 1: one rotating __shfl_sync per value feeds both halves (lane 0 takes
// the strip's upper border in its top half and lane 31's top half in its bottom half). The two
// halves form one 64-lane wavefront; columns outside [0, n) ("virtual" columns before the start
// and after the end) are computed but harmless: before the start every input is H = 0 with a
// pad residue (rank pb.ranks, an extra profile row) that scores −1, which keeps H = 0 and gives
// the same E as a real column 0; after the end nothing is written and the best cell ignores them.
//
// Shifted gap states (one add fewer per cell): E~ = E + o + e and F~ = F + o + e, so
//   E~(i,j) = max(E~(i,j−1) − e, H(i,j−1))                    one VIADDMNMX.S16x2
//   F~(i,j) = max(F~(i−1,j) − e, H(i−1,j))                    one VIADDMNMX.S16x2
//   H(i,j)  = max(0, H(i−1,j−1) + s, max(E~, F~) − o − e)      VIMNMX + VIADDMNMX.RELU (+ add)
// The border row between strips holds H | F~ << 16 per column (4 bytes). The strip's last row
// (lane 31's bottom half) is stored one step after it is made, from the values lane 31 hands on,
// so column j of it is stored at step j + 64 (policy_t::last_row_lag): the 32 steps of a chunk
// store one whole 32-column chunk of the row.
//
// Chunks of 32 steps: everything that is not the cells (the upper border's next chunk behind its
// ready flag, the store and release of the row's chunk, the best score published, the rebase)
// runs once per 32 steps between two chunks; a step is the shuffles, the profile loads, the
// cells and the gate of the bookkeeping.
//
// Best cell (columns-first rule): a half that beats its best at a step stores its lane's 16 H of
// that step (d_snapshot, one store of 64 bytes) and keeps the score and column; the row, the
// smallest of that column with the score, is read from the stored H once, at the strip's end.
// The path of a similar pair crosses every strip, and there the lane on it beats its best at
// almost every step: a row search there held the strip back, and every strip below it waits on
// it in turn. The rows-first rule (transposed fills) keeps the search at the step: there a later
// column's cell of the same score may win by its row.
//
// Relative scores (pb.relative16, the default where the scheme allows it): every value of the warp
// is held relative to a warp-uniform 32-bit base b (absolute = relative + b), so that no score
// overflows, with the instructions of the absolute fill. Two cells next to each other (a row or a
// column apart) differ by at most g = o + e + max s (E(i,j) ≥ H(i,j−1) − o − e and, by induction
// over the rows, H(i,j) ≤ H(i,j−1) + g), and the warp's cells at one step are at most 1023 rows
// and 63 columns apart: they lie within D = 1087·g of its largest H (with the border cell above
// the first row). Every 32 steps (t ≡ 31 mod 32, at the end of a chunk of steps, so that each
// 32-column chunk of the border row the strip writes has one base) the warp takes
// its largest H: above rebase_high the base goes up so that it is rebase_mid; with b > 0 and below
// rebase_low = D + 32·g it goes down likewise (not below 0). So while b > 0 the largest H is ≥ D and
// every cell's H is ≥ 0 relative, i.e. ≥ b > 0 absolute: no cell is 0, and the fill's floor at
// relative 0 (its ReLU) never binds a true value; the largest stays below rebase_high + 32·g, so
// nothing passes 32767 (rebase_levels_of: o + e + max s ≤ 26). E~ ≥ H(i,j−1) and F~ ≥ H(i−1,j)
// after their first step, inside the same range. The border row keeps relative values with each
// chunk's base (strip_border::base); the strip below adds the difference of the bases to what it
// reads (its first row is next to that row: within 32·g). The best cell is kept in absolute scores.
//
// Overflow (relative16 = 0): with T = pb.score_limit ≤ 32767 − max s, as long as every H computed so far is ≤ T
// every sum above stays ≤ 32767 and every value is exact; the first H above T is therefore
// computed exactly, exceeds its lane's best, and is seen by the best-cell check, which raises
// fast_error_overflow (the host reruns the pair at 32 bits); every warp polls the error word
// every 512 columns, so an overflow stops the whole fill early. Below: −16384 − e and
// −16384 − o − e stay above −32768 for o + e ≤ 8192 (scheme check on the host).

#include "cuda/common/packed16.cuh"
#include "cuda/engines/fast/fast_tile.cuh"

namespace swat::fast {

// Packed 16-bit helpers (cuda/common/packed16.cuh): the top half of the strip sits in bits 0–15
// (lo16), the bottom half in bits 16–31 (hi16).
using swat::cuda::byte_pair;
using swat::cuda::splat16;
using swat::cuda::pack16;
__device__ __forceinline__ std::int32_t top16(std::uint32_t x) { return swat::cuda::lo16(x); }
__device__ __forceinline__ std::int32_t bottom16(std::uint32_t x) { return swat::cuda::hi16(x); }

//! Strips wait for each other through per-strip ready flags (the default): strip s waits, with a
//! device-scope acquire, for strip s − 1 to publish the columns it needs, and publishes its own
//! border columns with a release store every 32 columns. Warps never wait for the whole grid.
struct flag_sync {
  //! An overflow may stop the strip at once (nothing else waits for this warp but flags).
  static constexpr bool can_stop_early = true;
  long long waited = 0;  //!< clock64 cycles spent on flags by this warp

  //! The strip's step at loop index u is u − offset().
  __device__ std::int32_t offset() const { return 0; }
  //! Loop bound for a strip of `steps` steps.
  __device__ std::int32_t end(std::int32_t steps) const { return steps; }

  //! Waits until strip s − 1 published `need` columns; false when the fill is abandoned.
  //! The first strip of a band waits at system scope (its flag is written from the band above,
  //! maybe on another GPU), and the last one publishes there (fast_problem::band_ready).
  __device__ bool wait(const fast_problem& pb, int s, std::uint32_t need) {
    if (band_entry(pb, s)) return wait_band_entry(pb, need, &waited);
    return wait_ready(pb, pb.d_ready + (s - 1), need, &waited);
  }
  //! Publishes the first `columns` columns of strip s's border row (lane 31 only).
  __device__ void publish(const fast_problem& pb, int s, std::uint32_t columns) const {
    publish_ready(pb, s, columns, pb.band_ready != nullptr && s + 1 == pb.strip_last);
  }
  //! Called after every loop index; false stops the strip.
  __device__ bool after_step(std::int32_t) { return true; }
  //! Called once at the end of a completed strip.
  __device__ void finish(const fast_problem& pb) const { add_wait_cycles(pb, waited); }
};

//! Fills strip s with the calling warp; prof holds this warp's two profiles (top half, then
//! bottom half; ranks × 32 entries each); sync_t says how strips wait for each other
//! (flag_sync, or barrier_sync of fast_barrier_kernel.cuh, whose offset is a multiple of 32).
//! s ≥ pb.strips (barrier_sync only, with an offset past the round's end) runs the loop without
//! steps, passing every barrier.
template <typename policy_t, typename sync_t>
__device__ void fill_strip16(const fast_problem& pb, int s, profile_entry<policy_t::profile_words>* prof,
                             sync_t& sync) {
  constexpr int R = policy_t::rows_per_thread;
  constexpr int lag = policy_t::last_row_lag;  // column j of the last row is stored at step j + lag
  static_assert(lag % 32 == 0 && R == 16, "chunks of steps store whole chunks of the last row");
  constexpr unsigned full = 0xffffffffu;
  const std::uint32_t pad = std::uint32_t(pb.ranks);  // target rank of columns outside [0, n)
  const int lane = int(threadIdx.x & 31);
  const std::int64_t top0 = std::int64_t(s) * policy_t::strip_rows + lane * R;
  const std::int64_t bottom0 = top0 + 32 * R;
  const std::uint32_t neg_goe = splat16(-pb.gap_open_extend), neg_ge = splat16(-pb.gap_extend);
  const std::uint32_t minus_inf = splat16(fast_minus_infinity16);
  const std::int32_t n = pb.n;

  const int rows = policy_t::profile_rows(pb.ranks);  // ranks and the pad rank
  const profile_entry<policy_t::profile_words>* prof_top = prof + lane;
  const profile_entry<policy_t::profile_words>* prof_bottom = prof + std::size_t(rows) * 32 + lane;
  const bool idle = s >= pb.strips;  // barrier_sync: a warp without a strip this round (no steps)
  if (!idle) {
    load_profile<R>(pb, top0, prof, rows);
    load_profile<R>(pb, bottom0, prof + std::size_t(rows) * 32, rows);
  }

  std::uint32_t h[R], e[R];  // H and E~ of both halves
#pragma unroll
  for (int r = 0; r < R; ++r) {
    h[r] = 0;
    e[r] = minus_inf;
  }
  std::uint32_t up_prev = 0;                       // H of the row above, previous column (diag)
  std::uint32_t out_h = 0, out_f = minus_inf;      // last row's H and F~ after the last step
  std::uint32_t out_t = pad | (pad << 16);         // target ranks of the last step
  const std::uint32_t border_none = std::uint32_t(minus_inf & 0xffff0000u);  // H = 0, F~ = −inf
  std::uint32_t ch_hf = border_none, ch_t = pad;   // border chunk: lane k holds column start + k
  std::uint32_t next_t = lane < n ? pb.d_target[lane] : pad;  // the next chunk's target ranks
  std::uint32_t chunk_hf = 0;                      // chunk of the last row being made: column ≡ lane
  std::uint32_t best2 = 0;                         // both halves' best scores (packed, relative)
  // Bookkeeping gate: a half enters it only above its own best and at or above floor_best, the
  // largest best any warp published (a cell with that score exists, so no cell below it is the
  // best cell). On a similar pair every cell left of the path rises column after column but stays
  // below the strip above's cells: the gate keeps those steps out of the bookkeeping.
  std::int32_t floor_best = 0;                     // absolute
  std::uint32_t gate2 = 0;                         // max(best2, floor_best − 1), relative, packed
  std::int32_t published = 0;                      // the warp's best it published last
  std::int32_t seen = 0;                           // the published best read at a chunk's start
  const bool rows_first = pb.rows_first != 0;
  std::int32_t best_top = 0, top_i = 0, top_j = 0, best_bottom = 0, bottom_i = 0, bottom_j = 0;  // absolute
  std::int32_t top_rel = 0, bottom_rel = 0;        // columns-first: the bests as stored (relative)
  uint4* snap = idle ? nullptr : pb.d_snapshot + std::size_t(s) * 256 + lane;  // [half][word][lane]
  bool overflow = false;
  const bool relative = pb.relative16 != 0;
  std::int32_t base = 0;          // warp-uniform: absolute = relative + base
  // The gate of best2: a half enters above it (rows_first: also at its own best, for a smaller row;
  // never at 0, which is no cell), and never below floor_best.
  const auto gate_of = [&](std::uint32_t b2) {
    const std::uint32_t own = rows_first ? __vmaxs2(__vsubss2(b2, splat16(1)), splat16(max(-32768, -base))) : b2;
    return __vmaxs2(own, splat16(max(-32768, min(32767, floor_best - 1 - base))));
  };
  // Special rows (fast_problem::d_special): this strip's last row, kept for the traceback.
  special_cell* special = nullptr;
  if (pb.d_special && s + 1 < pb.strips && (s + 1) % pb.special_strips == 0)
    special = pb.d_special + std::size_t((s + 1) / pb.special_strips - 1) * std::size_t(n);
  std::int32_t special_max = 0;
  ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device> error(*pb.d_error);

  const strip_border in = band_entry(pb, s) ? pb.band_in : pb.border[(s + 1) & 1];
  const strip_border out = border_out_of(pb, s);
  const bool write_border = s + 1 < pb.strips;
  const std::int32_t steps = n + lag;  // n < 2^31 - 1024; the last chunk runs past it, harmlessly
  const std::int32_t u_end = sync.end(steps);
  for (std::int32_t u0 = 0; u0 < u_end; u0 += 32) {
    const std::int32_t t0 = u0 - sync.offset();  // this strip's first step of the chunk (flag_sync: u0)
    // One call site of after_step per chunk for every warp: a barrier_sync's __syncthreads must be
    // reached through the same code by the whole block (also by warps outside their strip).
    if (t0 >= 0 && t0 < steps) {  // warp-uniform
      if constexpr (sync_t::can_stop_early) {
        // Strips ahead of an overflow never wait on a flag: they stop here instead of running on.
        const bool stop = overflow || ((t0 & 511) == 0 && error.load(::cuda::memory_order_relaxed) != 0);
        if (__any_sync(full, stop)) return;
      }
      // The upper border's chunk of columns t0 … t0 + 31 (lane k: column t0 + k).
      ch_hf = border_none;
      ch_t = next_t;
      if (t0 < n && s > 0) {
        const std::uint32_t need = std::uint32_t(t0 < n - 32 ? t0 + 32 : n);
        if (!sync.wait(pb, s, need)) return;
        if (t0 + lane < n) {
          ch_hf = std::uint32_t(in.h[t0 + lane]);
          if (relative) {  // from the chunk's base to this warp's
            const std::int32_t d = in.base[t0 >> 5] - base;
            ch_hf = __vaddss2(ch_hf, splat16(max(-32767, min(32767, d))));
          }
        }
      }
      next_t = t0 + 32 + lane < n ? pb.d_target[t0 + 32 + lane] : pad;
      if (pb.d_best_so_far)  // read at the chunk's start, used at its end: its latency hides
        seen = ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device>(*pb.d_best_so_far)
                   .load(::cuda::memory_order_relaxed);

      std::uint32_t colmax = 0;
      // Not unrolled: with three warps a scheduler at different steps of the loop, a body of 2
      // or 4 steps no longer stays in the instruction cache (the 1.46 Mb pair: 0.79 s rolled,
      // 1.03 s by 2, 1.16 s by 4; bench/results/fast_chunks_h100.txt).
#pragma unroll 1
      for (int k = 0; k < 32; ++k) {
        const std::int32_t t = t0 + k;
        const int from = (lane + 31) & 31;
        // The strip's last row made at the step before (lane 31's bottom half, column t − lag).
        const std::uint32_t last_row = __shfl_sync(full, __byte_perm(out_h, out_f, 0x7632), 31);
        std::uint32_t vh = __shfl_sync(full, out_h, from);
        std::uint32_t vf = __shfl_sync(full, out_f, from);
        std::uint32_t vt = __shfl_sync(full, out_t, from);
        const std::uint32_t xhf = __shfl_sync(full, ch_hf, k);
        const std::uint32_t xt = __shfl_sync(full, ch_t, k);
        if (lane == 0) {  // top half: the border; bottom half: lane 31's top half
          vh = __byte_perm(xhf, vh, 0x5410);
          vf = __byte_perm(xhf, vf, 0x5432);
          vt = __byte_perm(xt, vt, 0x5410);
        }

        const profile_entry<policy_t::profile_words> pt = prof_top[(vt & 0xffffu) * 32];
        const profile_entry<policy_t::profile_words> pbm = prof_bottom[(vt >> 16) * 32];
        // H without F first (hx = max(0, diagonal + s, E~ − o − e)), then F~ down the column from
        // hx: F~(i) = max(F~(i−1) − e, H(i−1)) = max(F~(i−1) − e, hx(i−1)), because the F~ part of
        // H(i−1) is F~(i−1) − o − e < F~(i−1) − e. One instruction per row on the column's serial
        // chain instead of three; H = max(hx, F~ − o − e).
        std::uint32_t fup = __viaddmax_s16x2(vf, neg_ge, vh);
        std::uint32_t hx[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const std::uint32_t dsum = __vadd2(r == 0 ? up_prev : h[r - 1], byte_pair(pt.w[r / 4], pbm.w[r / 4], r % 4));
          e[r] = __viaddmax_s16x2(e[r], neg_ge, h[r]);
          hx[r] = __viaddmax_s16x2_relu(e[r], neg_goe, dsum);
        }
        colmax = 0;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          if (r > 0) fup = __viaddmax_s16x2(fup, neg_ge, hx[r - 1]);
          h[r] = __viaddmax_s16x2(fup, neg_goe, hx[r]);
          if (r % 2 == 1) colmax = __vimax3_s16x2(colmax, h[r - 1], h[r]);
        }
        up_prev = vh;
        out_h = h[R - 1];
        out_f = fup;
        out_t = vt;
        if (lane == k) chunk_hf = last_row;

        if (__vmaxs2(colmax, gate2) != gate2) {  // a half beat its best and the floor (first column: smallest j)
          const std::int32_t jt = t - lane, jb = t - 32 - lane;
          const std::int32_t rt = top16(colmax), rb = bottom16(colmax);
          const std::int32_t ct = rt + base, cb = rb + base;
          if (rows_first) {  // an equal score in a smaller row of a later column wins too
            if ((ct > best_top || (ct == best_top && ct > 0)) && jt >= 0 && jt < n) {
              int ri = 0;
#pragma unroll
              for (int r = R - 1; r >= 0; --r)
                if (top16(h[r]) == rt) ri = r;
              if (ct > best_top || std::int32_t(top0 + ri + 1) < top_i) {
                best_top = ct;
                top_i = std::int32_t(top0 + ri + 1);
                top_j = jt + 1;
              }
            }
            if ((cb > best_bottom || (cb == best_bottom && cb > 0)) && jb >= 0 && jb < n) {
              int ri = 0;
#pragma unroll
              for (int r = R - 1; r >= 0; --r)
                if (bottom16(h[r]) == rb) ri = r;
              if (cb > best_bottom || std::int32_t(bottom0 + ri + 1) < bottom_i) {
                best_bottom = cb;
                bottom_i = std::int32_t(bottom0 + ri + 1);
                bottom_j = jb + 1;
              }
            }
          } else {  // the column's H now, its row later
            if (ct > best_top && jt >= 0 && jt < n) {
#pragma unroll
              for (int w = 0; w < R / 4; ++w) snap[w * 32] = make_uint4(h[4 * w], h[4 * w + 1], h[4 * w + 2], h[4 * w + 3]);
              best_top = ct;
              top_rel = rt;
              top_j = jt + 1;
            }
            if (cb > best_bottom && jb >= 0 && jb < n) {
#pragma unroll
              for (int w = 0; w < R / 4; ++w)
                snap[(R / 4 + w) * 32] = make_uint4(h[4 * w], h[4 * w + 1], h[4 * w + 2], h[4 * w + 3]);
              best_bottom = cb;
              bottom_rel = rb;
              bottom_j = jb + 1;
            }
          }
          best2 = pack16(max(-32768, min(32767, best_top - base)), max(-32768, min(32767, best_bottom - base)));
          gate2 = gate_of(best2);
          if (!relative && max(best_top, best_bottom) > pb.score_limit && !overflow) {
            overflow = true;
            raise_error(pb, fast_error_overflow);
          }
        }
      }

      // The last row's chunk of columns t0 − lag … t0 − lag + 31, made in this chunk of steps:
      // stored by the warp at once (128 coalesced bytes), then published.
      if (write_border && t0 >= lag && t0 - lag < n) {
        const std::int32_t c0 = t0 - lag, c = c0 + lane;
        if (c < n) {
          out.h[c] = std::int32_t(chunk_hf);
          if (special) {  // absolute H and F = F~ − o − e of the strip's last row
            const std::int32_t hh = top16(chunk_hf) + base;
            special[c] = special_cell{hh, bottom16(chunk_hf) + base - pb.gap_open_extend};
            special_max = max(special_max, hh);
          }
        }
        if (relative && lane == 0) out.base[c0 >> 5] = base;  // one base per chunk: rebases come after
        __syncwarp();  // the lanes' stores before lane 31's release
        if (lane == 31) sync.publish(pb, s, std::uint32_t(min(c0 + 32, n)));
      }

      // The gate's floor: this warp's best, published, and the largest published by any warp.
      const std::int32_t mine = __reduce_max_sync(full, std::uint32_t(max(best_top, best_bottom)));
      if (mine > published && pb.d_best_so_far) {
        if (lane == 0) atomicMax(pb.d_best_so_far, mine);
        published = mine;
      }
      floor_best = max(floor_best, max(mine, seen));
      // Rebase (relative scores), from the largest H of the chunk's last step.
      if (relative) {
        const std::int32_t high = __reduce_max_sync(full, max(top16(colmax), bottom16(colmax)));
        std::int32_t delta = 0;
        if (high > pb.rebase_high) delta = high - pb.rebase_mid;
        else if (base > 0 && high < pb.rebase_low) delta = max(high - pb.rebase_mid, -base);
        if (delta != 0) {
          const std::uint32_t d = splat16(delta);
#pragma unroll
          for (int r = 0; r < R; ++r) {
            h[r] = __vsubss2(h[r], d);
            e[r] = __vmaxs2(__vsubss2(e[r], d), minus_inf);
          }
          up_prev = __vsubss2(up_prev, d);
          out_h = __vsubss2(out_h, d);
          out_f = __vmaxs2(__vsubss2(out_f, d), minus_inf);
          base += delta;
          best2 = pack16(max(-32768, min(32767, best_top - base)), max(-32768, min(32767, best_bottom - base)));
        }
      }
      gate2 = gate_of(best2);
    }
    if (!sync.after_step(u0 + 31)) return;
  }

  if (idle) return;
  if (!rows_first) {  // the rows of the bests: the smallest row of the stored column with the score
    if (best_top > 0) {
      int ri = 0;
#pragma unroll
      for (int w = R / 4 - 1; w >= 0; --w) {
        const uint4 v = snap[w * 32];
        if (top16(v.w) == top_rel) ri = 4 * w + 3;
        if (top16(v.z) == top_rel) ri = 4 * w + 2;
        if (top16(v.y) == top_rel) ri = 4 * w + 1;
        if (top16(v.x) == top_rel) ri = 4 * w;
      }
      top_i = std::int32_t(top0 + ri + 1);
    }
    if (best_bottom > 0) {
      int ri = 0;
#pragma unroll
      for (int w = R / 4 - 1; w >= 0; --w) {
        const uint4 v = snap[(R / 4 + w) * 32];
        if (bottom16(v.w) == bottom_rel) ri = 4 * w + 3;
        if (bottom16(v.z) == bottom_rel) ri = 4 * w + 2;
        if (bottom16(v.y) == bottom_rel) ri = 4 * w + 1;
        if (bottom16(v.x) == bottom_rel) ri = 4 * w;
      }
      bottom_i = std::int32_t(bottom0 + ri + 1);
    }
  }
  // The lane's two halves, then the warp, under the tie rule.
  std::int32_t best = best_top, best_i = top_i, best_j = top_j;
  if (best_bottom > 0 && cell_beats_as(rows_first, best_bottom, bottom_i, bottom_j, best, best_i, best_j)) {
    best = best_bottom;
    best_i = bottom_i;
    best_j = bottom_j;
  }
  if (special) {
    special_max = __reduce_max_sync(full, special_max);
    if (lane == 31) atomicMax(pb.d_special_max + ((s + 1) / pb.special_strips - 1), special_max);
  }
  sync.finish(pb);
  reduce_and_store_best<false>(pb, s, best, best_i, best_j, 0);
}

}  // namespace swat::fast

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
// The border row between strips holds H | F~ << 16 per column (4 bytes).
//
// Relative scores (pb.relative16, the default where the scheme allows it): every value of the warp
// is held relative to a warp-uniform 32-bit base b (absolute = relative + b), so that no score
// overflows, with the instructions of the absolute fill. Two cells next to each other (a row or a
// column apart) differ by at most g = o + e + max s (E(i,j) ≥ H(i,j−1) − o − e and, by induction
// over the rows, H(i,j) ≤ H(i,j−1) + g), and the warp's cells at one step are at most 1023 rows
// and 63 columns apart: they lie within D = 1086·g of its largest H. Every 32 steps (t ≡ 30 mod
// 32, so that each 32-column chunk of the border row the strip writes has one base) the warp takes
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
//! (flag_sync, or barrier_sync of fast_barrier_kernel.cuh). s ≥ pb.strips (barrier_sync only,
//! with an offset past the round's end) runs the loop without steps, passing every barrier.
template <typename policy_t, typename sync_t>
__device__ void fill_strip16(const fast_problem& pb, int s, profile_entry<policy_t::profile_words>* prof,
                             sync_t& sync) {
  constexpr int R = policy_t::rows_per_thread;
  constexpr unsigned full = 0xffffffffu;
  const std::uint32_t pad = std::uint32_t(pb.ranks);  // target rank of columns outside [0, n)
  const int lane = int(threadIdx.x & 31);
  const std::int64_t top0 = std::int64_t(s) * policy_t::strip_rows + lane * R;
  const std::int64_t bottom0 = top0 + 32 * R;
  const std::uint32_t neg_goe = splat16(-pb.gap_open_extend), neg_ge = splat16(-pb.gap_extend);
  const std::uint32_t minus_inf = splat16(fast_minus_infinity16);
  const std::int32_t n = pb.n;

  profile_entry<policy_t::profile_words>* prof_top = prof;
  const int rows = policy_t::profile_rows(pb.ranks);  // ranks and the pad rank
  profile_entry<policy_t::profile_words>* prof_bottom = prof + std::size_t(rows) * 32;
  const bool idle = s >= pb.strips;  // barrier_sync: a warp without a strip this round (no steps)
  if (!idle) {
    load_profile<R>(pb, top0, prof_top, rows);
    load_profile<R>(pb, bottom0, prof_bottom, rows);
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
  std::uint32_t chunk_hf = 0;                      // chunk of the border row written: column ≡ lane
  std::uint32_t best2 = 0;                         // both halves' best scores (packed, relative)
  // Bookkeeping gate: a half enters it only above its own best and at or above floor_best, the
  // largest best any warp published (a cell with that score exists, so no cell below it is the
  // best cell). On a similar pair every cell left of the path rises column after column but stays
  // below the strip above's cells: the gate keeps those steps out of the bookkeeping.
  std::int32_t floor_best = 0;                     // absolute
  std::uint32_t gate2 = 0;                         // max(best2, floor_best − 1), relative, packed
  std::int32_t published = 0;                      // the warp's best it published last
  std::int32_t seen = 0;                           // the published best read at t ≡ 14 (mod 32)
  const bool rows_first = pb.rows_first != 0;
  std::int32_t best_top = 0, top_i = 0, top_j = 0, best_bottom = 0, bottom_i = 0, bottom_j = 0;  // absolute
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
  const std::int32_t steps = n + 63;  // n < 2^31 - 1024
  const std::int32_t u_end = sync.end(steps);
  for (std::int32_t u = 0; u < u_end; ++u) {
    const std::int32_t t = u - sync.offset();  // this strip's step (flag_sync: t = u)
    // One call site of after_step for every warp and step: a barrier_sync's __syncthreads must be
    // reached through the same code by the whole block (also by warps outside their strip).
    if (t >= 0 && t < steps) {
      if ((t & 31) == 0) {  // warp-uniform: next chunk of the upper border
        if constexpr (sync_t::can_stop_early) {
          // Strips ahead of an overflow never wait on a flag: they stop here instead of running on.
          const bool stop = overflow || ((t & 511) == 0 && error.load(::cuda::memory_order_relaxed) != 0);
          if (__any_sync(full, stop)) return;
        }
        const std::int32_t c = t + lane;
        ch_hf = border_none;
        ch_t = pad;
        if (t < n) {
          if (s > 0) {
            const std::uint32_t need = std::uint32_t(t < n - 32 ? t + 32 : n);
            if (!sync.wait(pb, s, need)) return;
            if (c < n) {
              ch_hf = std::uint32_t(in.h[c]);
              if (relative) {  // from the chunk's base to this warp's
                const std::int32_t d = in.base[t >> 5] - base;
                ch_hf = __vaddss2(ch_hf, splat16(max(-32767, min(32767, d))));
              }
            }
          }
          if (c < n) ch_t = pb.d_target[c];
        }
      }
      const int k = int(t & 31);
      const int from = (lane + 31) & 31;
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

      const profile_entry<policy_t::profile_words> pt = prof_top[(vt & 0xffffu) * 32 + lane];
      const profile_entry<policy_t::profile_words> pbm = prof_bottom[(vt >> 16) * 32 + lane];
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
      std::uint32_t colmax = 0;
  #pragma unroll
      for (int r = 0; r < R; ++r) {
        if (r > 0) fup = __viaddmax_s16x2(fup, neg_ge, hx[r - 1]);
        h[r] = __viaddmax_s16x2(fup, neg_goe, hx[r]);
        if (r % 2 == 1) colmax = __vimax3_s16x2(colmax, h[r - 1], h[r]);
      }
      const std::uint32_t hup = h[R - 1];
      up_prev = vh;
      out_h = hup;
      out_f = fup;
      out_t = vt;

      if (__vmaxs2(colmax, gate2) != gate2) {  // a half beat its best and the floor (first column: smallest j)
        const std::int32_t jt = t - lane, jb = t - 32 - lane;
        const std::int32_t rt = top16(colmax), rb = bottom16(colmax);
        const std::int32_t ct = rt + base, cb = rb + base;
        // rows_first: an equal score in a smaller row of a later column wins too
        if ((ct > best_top || (rows_first && ct == best_top && ct > 0)) && jt >= 0 && jt < n) {
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
        if ((cb > best_bottom || (rows_first && cb == best_bottom && cb > 0)) && jb >= 0 && jb < n) {
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
        best2 = pack16(max(-32768, min(32767, best_top - base)), max(-32768, min(32767, best_bottom - base)));
        gate2 = gate_of(best2);
        if (!relative && max(best_top, best_bottom) > pb.score_limit && !overflow) {
          overflow = true;
          raise_error(pb, fast_error_overflow);
        }
      }

      // The strip's last row (lane 31's bottom half, column t − 63) goes to lane (column mod 32)
      // of chunk_hf; a whole chunk is stored by the warp at once (128 coalesced bytes), then
      // published. Every branch here is warp-uniform: no lane-31-only path on every step.
      if (write_border) {
        const std::int32_t jb = t - 63;
        if (jb >= 0 && jb < n) {
          const std::uint32_t v = __shfl_sync(full, __byte_perm(hup, fup, 0x7632), 31);  // H | F~ << 16
          if (lane == (jb & 31)) chunk_hf = v;
          if ((jb & 31) == 31 || jb + 1 == n) {
            const std::int32_t c = (jb & ~31) + lane;
            if (c <= jb) {
              out.h[c] = std::int32_t(chunk_hf);
              if (special) {  // absolute H and F = F~ − o − e of the strip's last row
                const std::int32_t hh = top16(chunk_hf) + base;
                special[c] = special_cell{hh, bottom16(chunk_hf) + base - pb.gap_open_extend};
                special_max = max(special_max, hh);
              }
            }
            // One base per chunk: every column of a chunk was made between two rebases (t ≡ 30).
            if (relative && lane == 0) out.base[jb >> 5] = base;
            __syncwarp();  // the lanes' stores before lane 31's release
            if (lane == 31) sync.publish(pb, s, std::uint32_t(jb + 1));
          }
        }
      }

      if ((t & 31) == 30) {  // warp-uniform, every 32 steps at t ≡ 30 (mod 32)
        // The gate's floor: this warp's best, published, and the largest published by any warp.
        const std::int32_t mine = __reduce_max_sync(full, std::uint32_t(max(best_top, best_bottom)));
        if (mine > published && pb.d_best_so_far) {
          if (lane == 0) atomicMax(pb.d_best_so_far, mine);
          published = mine;
        }
        floor_best = max(floor_best, max(mine, seen));
        // Rebase (relative scores).
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
            ch_hf = __vsubss2(ch_hf, d);
            base += delta;
            best2 = pack16(max(-32768, min(32767, best_top - base)), max(-32768, min(32767, best_bottom - base)));
          }
        }
        gate2 = gate_of(best2);
      } else if ((t & 31) == 14 && pb.d_best_so_far) {  // read half a chunk ahead: its latency hides
        seen = ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device>(*pb.d_best_so_far)
                   .load(::cuda::memory_order_relaxed);
      }
    }
    if (!sync.after_step(u)) return;
  }

  // The lane's two halves, then the warp, under the tie rule.
  std::int32_t best = best_top, best_i = top_i, best_j = top_j;
  if (best_bottom > 0 && cell_beats_as(rows_first, best_bottom, bottom_i, bottom_j, best, best_i, best_j)) {
    best = best_bottom;
    best_i = bottom_i;
    best_j = bottom_j;
  }
  if (idle) return;
  if (special) {
    special_max = __reduce_max_sync(full, special_max);
    if (lane == 31) atomicMax(pb.d_special_max + ((s + 1) / pb.special_strips - 1), special_max);
  }
  sync.finish(pb);
  reduce_and_store_best<false>(pb, s, best, best_i, best_j, 0);
}

}  // namespace swat::fast

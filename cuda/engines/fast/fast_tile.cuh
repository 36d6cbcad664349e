#pragma once
// One warp fills one strip of the DP matrix in registers (recurrences of Gotoh 1982 as written
// in common/traceback.hpp):
//   E(i,j) = max(H(i,j-1) - o - e, E(i,j-1) - e)     kept per row in the thread (horizontal)
//   F(i,j) = max(H(i-1,j) - o - e, F(i-1,j) - e)     chained down the thread's rows, then to
//                                                    the next lane by __shfl_up_sync
//   H(i,j) = max(0, H(i-1,j-1) + s(q_i,t_j), E(i,j), F(i,j))
// Lane l holds rows row0 + l·R + 1 … + R (R = rows_per_thread) and works on column t − l at
// step t. Lane 0 takes its upper neighbour from the border row the previous strip wrote
// (chunks of 32 columns behind a device-scope acquire on that strip's ready flag); lane 31
// writes the strip's last row and publishes it with a release store every 32 columns.
// DPX: E and F are one __viaddmax_s32 each, H one __vimax3_s32_relu (VIADDMNMX / VIMNMX3).
//
// Best cell: per lane the first column whose maximum beats the lane's best (strictly, so the
// smallest j wins) and in it the smallest row; the warp then reduces with cell_beats. Rows past
// m (padding of the last strip) score −1 against everything: such a cell's H is always below a
// real cell's H in a column ≤ j, so it never wins.
//
// Origins (policy::with_origins): the cell where the reference's walk from a cell/state stops,
// propagated with the same recurrences as in engine/cpu_kernels.hpp, packed (i << 32) | j.

#include <cuda/atomic>

#include <cstdint>

#include "common/traceback.hpp"
#include "cuda/engines/fast/fast_problem.cuh"

namespace swat::fast {

//! int8 profile of one lane for one target rank: R scores packed in R/4 words.
template <int words_v>
struct alignas(words_v == 3 ? 4 : 4 * words_v) profile_entry {
  std::uint32_t w[words_v];
};

//! Sign-extended byte k of x (k a compile-time constant after unrolling: one PRMT/SGXT).
__device__ __forceinline__ std::int32_t signed_byte(std::uint32_t x, int k) {
  return std::int32_t(static_cast<std::int8_t>(x >> (8 * k)));
}

__device__ __forceinline__ std::uint64_t pack_cell(std::int64_t i, std::int64_t j) {
  return (std::uint64_t(i) << 32) | std::uint64_t(j);
}

//! Records `code` in pb.d_error unless an error is already recorded (the first one wins, so an
//! overflow never hides a watchdog and the reverse).
__device__ inline void raise_error(const fast_problem& pb, std::int32_t code) {
  ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device> error(*pb.d_error);
  std::int32_t none = 0;
  error.compare_exchange_strong(none, code, ::cuda::memory_order_relaxed);
}

//! The banded fill's progress counter (fast_problem::band_beat, which must be set).
__device__ inline std::uint32_t band_beat_of(const fast_problem& pb) {
  return ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_system>(*pb.band_beat)
      .load(::cuda::memory_order_relaxed);
}

//! Moves the banded fill's progress word after `columns` published columns of a strip: every
//! 2^16 columns and at the row's end. The band counts its beats in its own device memory (the
//! word after its error word) and stores (band number, count) into the shared word with
//! a plain system-scope store: read-modify-write atomics on host memory are not available over
//! PCIe, and the waiters only need to see the word change.
__device__ inline void band_heartbeat(const fast_problem& pb, std::uint32_t columns) {
  if (pb.band_beat && ((columns & 0xffffu) == 0 || columns == std::uint32_t(pb.n))) {
    const std::uint32_t k = ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device>(
                                *(reinterpret_cast<std::uint32_t*>(pb.d_error) + 1))
                                .fetch_add(1u, ::cuda::memory_order_relaxed);
    ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_system>(*pb.band_beat)
        .store((std::uint32_t(pb.band_index) << 24) | ((k + 1) & 0xffffffu), ::cuda::memory_order_relaxed);
  }
}

//! Publishes the first `columns` columns of strip s's border row (release): on the strip's own
//! flag, or for a band's last strip (band_end) on the next band's flag at system scope (maybe
//! on another GPU); then moves the band progress word.
__device__ inline void publish_ready(const fast_problem& pb, int s, std::uint32_t columns, bool band_end) {
  if (band_end) {
    ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_system> flag(*pb.band_ready);
    flag.store(columns, ::cuda::memory_order_release);
  } else {
    ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device> flag(pb.d_ready[s]);
    flag.store(columns, ::cuda::memory_order_release);
  }
  band_heartbeat(pb, columns);
}

//! Spins until ready ≥ need (device-scope acquire). False when the watchdog fired or another
//! warp reported an error; every lane of the warp returns the same answer. waited (optional)
//! grows by the clock64 cycles this lane spun.
template <::cuda::thread_scope scope = ::cuda::thread_scope_device>
__device__ inline bool wait_ready(const fast_problem& pb, std::uint32_t* ready, std::uint32_t need,
                                  long long* waited = nullptr) {
  ::cuda::atomic_ref<std::uint32_t, scope> flag(*ready);
  ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device> error(*pb.d_error);
  bool ok = true;
  if (flag.load(::cuda::memory_order_acquire) < need) {
    const long long began = clock64();
    long long start = began;  // of the watchdog's current period
    bool beat_seen = false;   // the progress word is read only once a period expires (it may be
    std::uint32_t beat = 0;   // in host memory): the first expiry starts a second period
    for (;;) {
      if (flag.load(::cuda::memory_order_acquire) >= need) break;
      if (error.load(::cuda::memory_order_relaxed) != 0) {
        ok = false;
        break;
      }
      if (clock64() - start > pb.watchdog_cycles) {
        if (pb.band_beat) {  // bands at once: fine while some band moved in this period
          const std::uint32_t now = band_beat_of(pb);
          if (!beat_seen || now != beat) {
            beat_seen = true;
            beat = now;
            start = clock64();
            continue;
          }
        }
        raise_error(pb, fast_error_watchdog);
        ok = false;
        break;
      }
      __nanosleep(64);
    }
    if (waited) *waited += clock64() - began;
  }
  return __all_sync(0xffffffffu, ok);
}

//! wait_ready for the first strip of a band (system scope: the band above may be on another
//! GPU); false also when the band above stopped on an error (band_poison), which it records.
//! Warp-uniform: every lane calls wait_ready (its __all_sync needs the whole warp).
__device__ inline bool wait_band_entry(const fast_problem& pb, std::uint32_t need, long long* waited) {
  ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_system> flag(*pb.band_in_ready);
  if (!wait_ready<::cuda::thread_scope_system>(pb, pb.band_in_ready, need, waited)) return false;
  const std::uint32_t seen = flag.load(::cuda::memory_order_acquire);
  const bool poisoned = seen >= band_poison;
  if (poisoned) raise_error(pb, std::int32_t(seen & 0xfu));
  return __all_sync(0xffffffffu, !poisoned);
}

//! After a band's strips (kernel level): when the band stopped on an error, the warp that owns
//! its last strip poisons the next band's flag so that it stops too.
__device__ inline void poison_next_band(const fast_problem& pb, int warp, int warps, int last) {
  if (pb.band_ready == nullptr || (last - 1 - pb.strip_first) % warps != warp || (threadIdx.x & 31) != 0) return;
  const std::int32_t error = ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device>(*pb.d_error)
                                 .load(::cuda::memory_order_relaxed);
  if (error != 0)
    ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_system>(*pb.band_ready)
        .store(band_poison | std::uint32_t(error & 0xf), ::cuda::memory_order_release);
}

//! Adds the warp's flag-wait cycles (lane 0's count) to pb.d_wait_cycles when measured.
__device__ inline void add_wait_cycles(const fast_problem& pb, long long waited) {
  if (pb.d_wait_cycles && (threadIdx.x & 31) == 0 && waited > 0)
    atomicAdd(pb.d_wait_cycles, static_cast<unsigned long long>(waited));
}

//! Reduces the lanes' best cells of strip s under the tie rule (cell_beats) and stores the
//! strip's best (lane 0). best_o: origin of the lane's best (with origins only).
template <bool origins>
__device__ void reduce_and_store_best(const fast_problem& pb, int s, std::int32_t best, std::int32_t best_i,
                                      std::int32_t best_j, std::uint64_t best_o) {
  constexpr unsigned full = 0xffffffffu;
#pragma unroll
  for (int d = 16; d > 0; d /= 2) {
    const std::int32_t os = __shfl_xor_sync(full, best, d);
    const std::int32_t oi = __shfl_xor_sync(full, best_i, d);
    const std::int32_t oj = __shfl_xor_sync(full, best_j, d);
    [[maybe_unused]] std::uint64_t oo = 0;
    if constexpr (origins) oo = __shfl_xor_sync(full, best_o, d);
    if (os > 0 && cell_beats_as(pb.rows_first != 0, os, oi, oj, best, best_i, best_j)) {
      best = os;
      best_i = oi;
      best_j = oj;
      if constexpr (origins) best_o = oo;
    }
  }
  if ((threadIdx.x & 31) == 0) pb.d_best[s] = strip_best{best, best_i, best_j, 0, best_o};
}

//! Builds the calling lane's profile: prof[a * 32 + lane] holds s(q_{row0+r+1}, a) for
//! r = 0..R-1 as int8, for target ranks a < rows (ranks ≥ pb.ranks score −1). Call with the
//! whole warp.
template <int R>
__device__ void load_profile(const fast_problem& pb, std::int64_t row0, profile_entry<R / 4>* prof, int rows) {
  const int lane = int(threadIdx.x & 31);
  __syncwarp();
  std::uint8_t q[R];
#pragma unroll
  for (int r = 0; r < R; ++r) q[r] = pb.d_query[row0 + r];
  for (int a = 0; a < rows; ++a) {
    profile_entry<R / 4> pe;
#pragma unroll
    for (int w = 0; w < R / 4; ++w) {
      std::uint32_t word = 0;
#pragma unroll
      for (int k = 0; k < 4; ++k)
        word |= std::uint32_t(std::uint8_t(pb.d_table[q[4 * w + k] * fast_table_stride + a])) << (8 * k);
      pe.w[w] = word;
    }
    prof[a * 32 + lane] = pe;
  }
  __syncwarp();
}

//! Fills strip s with the calling warp; prof is this warp's shared profile (ranks × 32 entries).
template <typename policy_t>
__device__ void fill_strip(const fast_problem& pb, int s,
                           profile_entry<policy_t::profile_words>* prof) {
  constexpr int R = policy_t::rows_per_thread;
  constexpr bool origins = policy_t::with_origins;
  constexpr unsigned full = 0xffffffffu;
  const int lane = int(threadIdx.x & 31);
  const std::int64_t row0 = std::int64_t(s) * policy_t::strip_rows + lane * R;  // rows row0+1..
  const std::int32_t goe = pb.gap_open_extend, ge = pb.gap_extend;
  const std::int32_t n = pb.n;

  load_profile<R>(pb, row0, prof, pb.ranks);

  std::int32_t h[R], e[R];
  [[maybe_unused]] std::uint64_t oh[R], oe[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    h[r] = 0;
    e[r] = fast_minus_infinity;
    if constexpr (origins) {
      oh[r] = pack_cell(row0 + r + 1, 0);
      oe[r] = 0;
    }
  }
  // Upper neighbour of the lane's first row: H(row0, j-1) kept from the last step.
  std::int32_t up_h_prev = 0;
  [[maybe_unused]] std::uint64_t up_oh_prev = pack_cell(row0, 0);
  // Last row of the lane after its last step (handed to lane + 1).
  std::int32_t out_h = 0, out_f = fast_minus_infinity, out_t = 0;
  [[maybe_unused]] std::uint64_t out_oh = 0, out_of = 0;
  // Border chunk (lane k holds column chunk_start + k).
  std::int32_t ch_h = 0, ch_f = fast_minus_infinity, ch_t = 0;
  [[maybe_unused]] std::uint64_t ch_oh = 0, ch_of = 0;
  // Best cell of the lane.
  std::int32_t best = 0, best_i = 0, best_j = 0;
  [[maybe_unused]] std::uint64_t best_o = 0;
  long long waited = 0;  // cycles spent on ready flags

  const bool band_start = band_entry(pb, s);
  const bool band_end = pb.band_ready != nullptr && s + 1 == pb.strip_last;
  const strip_border in = band_start ? pb.band_in : pb.border[(s + 1) & 1];
  const strip_border out = border_out_of(pb, s);
  const bool write_border = s + 1 < pb.strips;
  // Special rows (fast_problem::d_special): this strip's last row, kept for the traceback.
  special_cell* special = nullptr;
  if constexpr (!origins) {
    if (pb.d_special && write_border && (s + 1) % pb.special_strips == 0)
      special = pb.d_special + std::size_t((s + 1) / pb.special_strips - 1) * std::size_t(n);
  }
  std::int32_t special_max = 0;
  const std::int32_t steps = n + 31;  // n < 2^31 - 1024
  for (std::int32_t t = 0; t < steps; ++t) {
    if ((t & 31) == 0 && t < n) {  // warp-uniform: next chunk of the upper border
      const std::int32_t c = t + lane;
      if (s > 0) {
        const std::uint32_t need = std::uint32_t(t < n - 32 ? t + 32 : n);
        const bool ok = band_start ? wait_band_entry(pb, need, &waited) : wait_ready(pb, pb.d_ready + (s - 1), need, &waited);
        if (!ok) return;
        if (c < n) {
          ch_h = in.h[c];
          ch_f = in.f[c];
          if constexpr (origins) {
            ch_oh = in.oh[c];
            ch_of = in.of[c];
          }
        }
      } else if constexpr (origins) {
        ch_oh = pack_cell(0, c + 1);
      }
      if (c < n) ch_t = pb.d_target[c];
    }
    const int k = int(t & 31);
    std::int32_t vh = __shfl_up_sync(full, out_h, 1);
    std::int32_t vf = __shfl_up_sync(full, out_f, 1);
    std::int32_t vt = __shfl_up_sync(full, out_t, 1);
    const std::int32_t xh = __shfl_sync(full, ch_h, k);
    const std::int32_t xf = __shfl_sync(full, ch_f, k);
    const std::int32_t xt = __shfl_sync(full, ch_t, k);
    [[maybe_unused]] std::uint64_t voh = 0, vof = 0;
    if constexpr (origins) {
      voh = __shfl_up_sync(full, out_oh, 1);
      vof = __shfl_up_sync(full, out_of, 1);
      const std::uint64_t xoh = __shfl_sync(full, ch_oh, k);
      const std::uint64_t xof = __shfl_sync(full, ch_of, k);
      if (lane == 0) voh = xoh, vof = xof;
    }
    if (lane == 0) vh = xh, vf = xf, vt = xt;
    const std::int32_t jj = t - lane;  // 0-based column; DP column jj + 1
    if (jj < 0 || jj >= n) continue;

    const profile_entry<policy_t::profile_words> pe = prof[vt * 32 + lane];
    std::int32_t diag = up_h_prev, hup = vh, fup = vf;
    [[maybe_unused]] std::uint64_t odiag = up_oh_prev, ohup = voh, ofup = vof;
    [[maybe_unused]] const std::uint64_t self0 = pack_cell(row0 + 1, std::int64_t(jj) + 1);
    std::int32_t colmax = 0;
    // Score-only: all diagonal sums and E first, so that the old h[r] dies before the new one
    // is born (in-place registers, no moves at the loop end).
    [[maybe_unused]] std::int32_t dsum[R];
    if constexpr (!origins) {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        dsum[r] = (r == 0 ? diag : h[r - 1]) + signed_byte(pe.w[r / 4], r % 4);
        e[r] = __viaddmax_s32(e[r], -ge, h[r] - goe);
      }
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if constexpr (!origins) {
        const std::int32_t f = __viaddmax_s32(fup, -ge, hup - goe);
        h[r] = __vimax3_s32_relu(dsum[r], e[r], f);
        hup = h[r];
        fup = f;
      } else {
        const std::int32_t sc = signed_byte(pe.w[r / 4], r % 4);
        const std::int32_t e_open = h[r] - goe, e_ext = e[r] - ge;
        const std::int32_t f_open = hup - goe, f_ext = fup - ge;
        oe[r] = e_open >= e_ext ? oh[r] : oe[r];
        e[r] = max(e_open, e_ext);
        const std::uint64_t of = f_open >= f_ext ? ohup : ofup;
        const std::int32_t f = max(f_open, f_ext);
        const std::int32_t d = diag + sc;
        const std::int32_t hn = __vimax3_s32_relu(d, e[r], f);
        std::uint64_t o = hn == d ? odiag : hn == e[r] ? oe[r] : of;
        o = hn == 0 ? self0 + (std::uint64_t(r) << 32) : o;
        diag = h[r];
        odiag = oh[r];
        h[r] = hn;
        oh[r] = o;
        hup = hn;
        fup = f;
        ohup = o;
        ofup = of;
      }
      if (r % 2 == 1) colmax = __vimax3_s32(colmax, h[r - 1], h[r]);
    }
    up_h_prev = vh;
    out_h = hup;
    out_f = fup;
    out_t = vt;
    if constexpr (origins) {
      up_oh_prev = voh;
      out_oh = ohup;
      out_of = ofup;
    }
    // First column (smallest j) of the lane reaching this score, and in it the smallest row; with
    // rows_first (score variants) also an equal score in a smaller row of a later column.
    if (colmax > best || (!origins && pb.rows_first && colmax == best && colmax > 0)) {
      int ri = 0;
      [[maybe_unused]] std::uint64_t o = 0;
#pragma unroll
      for (int r = R - 1; r >= 0; --r)
        if (h[r] == colmax) {
          ri = r;
          if constexpr (origins) o = oh[r];
        }
      if (colmax > best || std::int32_t(row0 + ri + 1) < best_i) {
        best = colmax;
        best_i = std::int32_t(row0 + ri + 1);
        best_j = jj + 1;
        if constexpr (origins) best_o = o;
      }
    }
    if (lane == 31 && write_border) {
      out.h[jj] = hup;
      out.f[jj] = fup;
      if constexpr (origins) {
        out.oh[jj] = ohup;
        out.of[jj] = ofup;
      }
      if (special) {
        special[jj] = special_cell{hup, fup};
        special_max = max(special_max, hup);
      }
      if (((jj + 1) & 31) == 0 || jj + 1 == n) {
        publish_ready(pb, s, std::uint32_t(jj + 1), band_end);
      }
    }
  }

  if (special && lane == 31) atomicMax(pb.d_special_max + ((s + 1) / pb.special_strips - 1), special_max);
  add_wait_cycles(pb, waited);
  reduce_and_store_best<origins>(pb, s, best, best_i, best_j, best_o);
}

}  // namespace swat::fast

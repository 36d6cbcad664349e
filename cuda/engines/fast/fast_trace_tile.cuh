#pragma once
// One warp fills one strip of a traceback sub-problem (same layout, recurrences and ready flags
// as fill_strip in fast_tile.cuh: lane l holds rows row0 + l·R + 1 … + R, column t − l at step
// t), in one of two modes:
//   crossing (codes_v = false): 32-bit crossing pointers (fast_trace_types.hpp) propagated like
//     the origins of fill_strip, reset on the top row of every band of band_strips strips; the
//     last strip of a band stores H, F and both pointers of its last row as a checkpoint row;
//     the best cell (tie rule) with its pointer, and the pointers of one end cell.
//   codes (codes_v = true): the 4-bit code of every cell (make_code of common/traceback.hpp),
//     8 codes of a lane in one word per step: word (s·(n + 31) + t)·32 + lane, nibble r (so a
//     warp stores 128 contiguous bytes per step).
// The top border row holds H = 0, F = −inf except at start_col (start_h, start_f), or, with
// d_top, the H and F of a special row (columns 1..n; the corner H(0, 0) is 0 either way).

#include <cuda/atomic>

#include <cstdint>

#include "cuda/engines/fast/fast_tile.cuh"
#include "cuda/engines/fast/fast_trace_problem.cuh"

namespace swat::fast {

//! Tunables of the traceback fills: 8 rows per thread (256-row strips), 4 warps per block.
struct trace_policy {
  static constexpr int rows_per_thread = 8;                              //!< rows per thread
  static constexpr int warps_per_block = 4;                              //!< warps per block
  static constexpr int block_threads = 32 * warps_per_block;             //!< threads per block
  static constexpr int strip_rows = 32 * rows_per_thread;                //!< rows per strip
  static constexpr int min_blocks_per_sm = 4;                            //!< launch bounds
  static constexpr int profile_words = rows_per_thread / 4;              //!< int8 profile words
};

//! Columns between two progress updates of a strip (power of two; mapped host memory).
inline constexpr std::int32_t trace_progress_columns = 1 << 16;

//! Adds `columns` strip columns to the progress count. The count lives in device memory
//! (device-scope add); the new total is then *stored* into the mapped host word that the host
//! polls: a read-modify-write atomic on host memory is not atomic over PCIe (no host-native
//! atomics) and compute-sanitizer rejects it. Stores of two warps may land out of order; the
//! host keeps the largest value it has seen.
__device__ inline void report_progress(const trace_problem& tp, unsigned long long columns) {
  ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device> count(*tp.d_progress_count);
  const unsigned long long total = count.fetch_add(columns, ::cuda::memory_order_relaxed) + columns;
  *static_cast<volatile unsigned long long*>(tp.d_progress) = total;
}

template <bool codes_v>
__device__ void trace_strip(const trace_problem& tp, int s,
                            profile_entry<trace_policy::profile_words>* prof) {
  constexpr int R = trace_policy::rows_per_thread;
  constexpr bool cross = !codes_v;
  constexpr unsigned full = 0xffffffffu;
  const fast_problem& pb = tp.base;
  const int lane = int(threadIdx.x & 31);
  const std::int64_t row0 = std::int64_t(s) * trace_policy::strip_rows + lane * R;
  const std::int32_t goe = pb.gap_open_extend, ge = pb.gap_extend;
  const std::int32_t n = pb.n;
  const bool band_top = cross && (s % tp.band_strips) == 0;
  // A band of a fill cut over several GPUs (fast_trace.hpp, make_banded_trace_backend): its
  // first strip reads the row above from the band above (band_entry), its last strip hands its
  // row to the band below (band_end) and keeps it as the last checkpoint row, since the row the
  // device bands meet on is a checkpoint row of the whole fill.
  const bool band_end = cross && pb.band_ready != nullptr && s + 1 == pb.strips;
  const bool band_bottom = cross && (s % tp.band_strips) == tp.band_strips - 1 && (s + 1 < pb.strips || band_end);
  checkpoint_entry* ck = cross ? tp.d_ck + std::size_t(s / tp.band_strips) * std::size_t(n) : nullptr;
  // End-cell capture: lane and row of DP row m in this strip.
  const std::int64_t end_row = std::int64_t(pb.m) - 1 - row0;  // row index r in this lane
  const bool end_lane = cross && tp.end_col > 0 && end_row >= 0 && end_row < R;

  load_profile<R>(pb, row0, prof, pb.ranks);

  std::int32_t h[R], e[R];
  [[maybe_unused]] std::uint32_t oh[R], oe[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    h[r] = 0;
    e[r] = fast_minus_infinity;
    oh[r] = ptr_stop;  // H(i, 0) = 0: the walk stops in column 0
    oe[r] = 0;
  }
  std::int32_t up_h_prev = 0;
  [[maybe_unused]] std::uint32_t up_oh_prev = (band_top && lane == 0) ? 0u : ptr_stop;
  std::int32_t out_h = 0, out_f = fast_minus_infinity, out_t = 0;
  [[maybe_unused]] std::uint32_t out_oh = 0, out_of = 0;
  std::int32_t ch_h = 0, ch_f = fast_minus_infinity, ch_t = 0;
  [[maybe_unused]] std::uint32_t ch_oh = 0, ch_of = 0;
  [[maybe_unused]] std::int32_t best = 0, best_i = 0, best_j = 0;
  [[maybe_unused]] std::uint32_t best_o = 0;
  long long waited = 0;  // cycles spent on ready flags

  const int ib = (s + 1) & 1, ob = s & 1;
  const strip_border in = pb.border[ib];
  const strip_border out = pb.border[ob];
  const bool write_border = s + 1 < pb.strips || band_end;
  const strip_border out_row = band_end ? pb.band_out : out;
  const bool entry = cross && band_entry(pb, s);
  const strip_border in_row = entry ? pb.band_in : in;
  const std::int32_t steps = n + 31;
  for (std::int32_t t = 0; t < steps; ++t) {
    if ((t & 31) == 0 && t < n) {  // warp-uniform: next chunk of the upper border
      if (lane == 0 && tp.d_progress && t > 0 && (t & (trace_progress_columns - 1)) == 0) {
        report_progress(tp, trace_progress_columns);
      }
      const std::int32_t c = t + lane;
      if (s > 0 || entry) {
        const std::uint32_t need = std::uint32_t(t < n - 32 ? t + 32 : n);
        const bool ok = entry ? wait_band_entry(pb, need, &waited) : wait_ready(pb, pb.d_ready + (s - 1), need, &waited);
        if (!ok) return;
        if (c < n) {
          ch_h = in_row.h[c];
          ch_f = in_row.f[c];
          if constexpr (cross) {
            if (!entry) {  // (the band's first strip is a band top: its markers are set below)
              ch_oh = tp.ph[ib][c];
              ch_of = tp.pf[ib][c];
            }
          }
        }
      } else if (tp.d_top) {  // the top border is a special row of the score fill
        if (c < n) {
          const special_cell top = tp.d_top[c];
          ch_h = top.h;
          ch_f = top.f;
        }
      } else {
        ch_h = c + 1 == tp.start_col ? tp.start_h : 0;
        ch_f = c + 1 == tp.start_col ? tp.start_f : fast_minus_infinity;
      }
      if constexpr (cross) {
        if (band_top) {  // landing markers of the band's top row
          ch_oh = std::uint32_t(c + 1);
          ch_of = std::uint32_t(c + 1) | ptr_state_f;
        }
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
    [[maybe_unused]] std::uint32_t voh = 0, vof = 0;
    if constexpr (cross) {
      voh = __shfl_up_sync(full, out_oh, 1);
      vof = __shfl_up_sync(full, out_of, 1);
      const std::uint32_t xoh = __shfl_sync(full, ch_oh, k);
      const std::uint32_t xof = __shfl_sync(full, ch_of, k);
      if (lane == 0) voh = xoh, vof = xof;
    }
    if (lane == 0) vh = xh, vf = xf, vt = xt;
    const std::int32_t jj = t - lane;  // 0-based column; DP column jj + 1
    if (jj < 0 || jj >= n) continue;

    const profile_entry<trace_policy::profile_words> pe = prof[vt * 32 + lane];
    std::int32_t diag = up_h_prev, hup = vh, fup = vf;
    [[maybe_unused]] std::uint32_t odiag = up_oh_prev, ohup = voh, ofup = vof;
    [[maybe_unused]] const std::uint32_t self0 = ptr_stop | std::uint32_t(jj + 1);
    [[maybe_unused]] std::uint32_t word = 0, end_ph = 0, end_pf = 0;
    [[maybe_unused]] const bool at_end = end_lane && jj + 1 == tp.end_col;
    std::int32_t colmax = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const std::int32_t sc = signed_byte(pe.w[r / 4], r % 4);
      const std::int32_t e_open = h[r] - goe, e_ext = e[r] - ge;
      const std::int32_t f_open = hup - goe, f_ext = fup - ge;
      const std::int32_t en = max(e_open, e_ext);
      const std::int32_t f = max(f_open, f_ext);
      const std::int32_t d = diag + sc;
      const std::int32_t hn = __vimax3_s32_relu(d, en, f);
      if constexpr (cross) {
        oe[r] = e_open >= e_ext ? oh[r] : oe[r];
        const std::uint32_t of = f_open >= f_ext ? ohup : ofup;
        std::uint32_t o = hn == d ? odiag : hn == en ? oe[r] : of;
        o = hn == 0 ? self0 : o;
        if (at_end && r == end_row) end_ph = o, end_pf = of;
        odiag = oh[r];
        oh[r] = o;
        ohup = o;
        ofup = of;
      } else {
        const std::uint32_t src = hn == 0 ? code_zero : hn == d ? code_diag : hn == en ? code_e : code_f;
        const std::uint32_t code = src | (e_open >= e_ext ? code_e_open : 0u) | (f_open >= f_ext ? code_f_open : 0u);
        word |= code << (4 * r);
      }
      diag = h[r];
      e[r] = en;
      h[r] = hn;
      hup = hn;
      fup = f;
      if constexpr (cross)
        if (r % 2 == 1) colmax = __vimax3_s32(colmax, h[r - 1], h[r]);
    }
    up_h_prev = vh;
    out_h = hup;
    out_f = fup;
    out_t = vt;
    if constexpr (cross) {
      up_oh_prev = voh;
      out_oh = ohup;
      out_of = ofup;
      if (at_end) tp.d_end[0] = end_ph, tp.d_end[1] = end_pf;
      if (colmax > best) {  // first column (smallest j) of the lane reaching this score
        int ri = 0;
        std::uint32_t o = 0;
#pragma unroll
        for (int r = R - 1; r >= 0; --r)
          if (h[r] == colmax) ri = r, o = oh[r];
        best = colmax;
        best_i = std::int32_t(row0 + ri + 1);
        best_j = jj + 1;
        best_o = o;
      }
      if (lane == 31 && band_bottom) ck[jj] = checkpoint_entry{hup, fup, ohup, ofup};
    } else {
      tp.d_codes[(std::size_t(s) * std::size_t(n + 31) + std::size_t(t)) * 32 + std::size_t(lane)] = word;
    }
    if (lane == 31 && write_border) {
      out_row.h[jj] = hup;
      out_row.f[jj] = fup;
      if constexpr (cross) {
        if (!band_end) {  // the band below starts a band of the whole fill: it sets its own markers
          tp.ph[ob][jj] = ohup;
          tp.pf[ob][jj] = ofup;
        }
      }
      if (((jj + 1) & 31) == 0 || jj + 1 == n) {
        publish_ready(pb, s, std::uint32_t(jj + 1), band_end);
      }
    }
  }

  if constexpr (cross) {
#pragma unroll
    for (int d = 16; d > 0; d /= 2) {
      const std::int32_t os = __shfl_xor_sync(full, best, d);
      const std::int32_t oi = __shfl_xor_sync(full, best_i, d);
      const std::int32_t oj = __shfl_xor_sync(full, best_j, d);
      const std::uint32_t oo = __shfl_xor_sync(full, best_o, d);
      if (os > 0 && cell_beats(os, oi, oj, best, best_i, best_j)) best = os, best_i = oi, best_j = oj, best_o = oo;
    }
    if (lane == 0) pb.d_best[s] = strip_best{best, best_i, best_j, 0, best_o};
  }
  add_wait_cycles(pb, waited);
  if (lane == 0 && tp.d_progress) {
    report_progress(tp, (unsigned long long)(n - ((n - 1) & ~(trace_progress_columns - 1))));
  }
}

//! Persistent traceback fill: warp w takes strips w, w + W, … in order (co-resident grid).
template <bool codes_v>
__global__ void __launch_bounds__(trace_policy::block_threads, trace_policy::min_blocks_per_sm)
    trace_fill_kernel(trace_problem tp) {
  extern __shared__ std::uint8_t smem_raw[];
  auto* prof = reinterpret_cast<profile_entry<trace_policy::profile_words>*>(smem_raw) +
               std::size_t(threadIdx.x / 32) * std::size_t(tp.base.ranks) * 32;
  const int warps = int(gridDim.x) * trace_policy::warps_per_block;
  const int warp = int(blockIdx.x) * trace_policy::warps_per_block + int(threadIdx.x / 32);
  for (int s = warp; s < tp.base.strips; s += warps) {
    if (__any_sync(0xffffffffu, *static_cast<volatile std::int32_t*>(tp.base.d_error) != 0)) break;
    trace_strip<codes_v>(tp, s, prof);
  }
  poison_next_band(tp.base, warp, warps, tp.base.strips);  // a band stopped by an error stops the next
}

//! Codes fills of up to trace_batch_max bands in one launch (a walk's bands ahead): band b takes
//! blocks [b · blocks_per_band, (b + 1) · blocks_per_band), whose warps take its strips as the
//! persistent kernel's do. The bands share nothing but the launch (and the scheme's profile size).
inline constexpr int trace_batch_max = 8;
struct trace_batch {
  trace_problem p[trace_batch_max];
  int count;
  int blocks_per_band;
};
static_assert(sizeof(trace_batch) <= 4096, "trace_batch exceeds the classic kernel parameter limit");

__global__ void __launch_bounds__(trace_policy::block_threads, trace_policy::min_blocks_per_sm)
    trace_codes_batch_kernel(const __grid_constant__ trace_batch batch) {
  extern __shared__ std::uint8_t smem_raw[];
  const int band = int(blockIdx.x) / batch.blocks_per_band;
  const trace_problem& tp = batch.p[band];
  auto* prof = reinterpret_cast<profile_entry<trace_policy::profile_words>*>(smem_raw) +
               std::size_t(threadIdx.x / 32) * std::size_t(tp.base.ranks) * 32;
  const int warps = batch.blocks_per_band * trace_policy::warps_per_block;
  const int warp = (int(blockIdx.x) % batch.blocks_per_band) * trace_policy::warps_per_block + int(threadIdx.x / 32);
  for (int s = warp; s < tp.base.strips; s += warps) {
    if (__any_sync(0xffffffffu, *static_cast<volatile std::int32_t*>(tp.base.d_error) != 0)) break;
    trace_strip<true>(tp, s, prof);
  }
  poison_next_band(tp.base, warp, warps, tp.base.strips);
}

}  // namespace swat::fast

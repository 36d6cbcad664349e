#pragma once
// Block-level work of one FFT pass: load a tile (global -> shared, Stockham twiddles), the
// in-tile sub-stages (radix 16/8/4/2 in registers, shared memory between them), store (shared ->
// global, coalesced). Index math: fft_index.hpp (shared with the CPU executor).

#include <cstdint>

#include "cuda/studies/fft/fft_index.hpp"

namespace swat::fft::detail {

//! Interleaved complex value (re, im) of real_t.
template <typename real_t>
struct alignas(2 * sizeof(real_t)) cplx {
  real_t re;
  real_t im;
};

template <typename real_t>
__device__ __forceinline__ cplx<real_t> operator+(cplx<real_t> a, cplx<real_t> b) {
  return {a.re + b.re, a.im + b.im};
}
template <typename real_t>
__device__ __forceinline__ cplx<real_t> operator-(cplx<real_t> a, cplx<real_t> b) {
  return {a.re - b.re, a.im - b.im};
}
template <typename real_t>
__device__ __forceinline__ cplx<real_t> operator*(cplx<real_t> a, cplx<real_t> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

//! e^{sign 2 pi i num / den} for 0 <= num < den, den a power of two (argument exact in real_t).
template <typename real_t>
__device__ __forceinline__ cplx<real_t> unit_root(int sign, long long num, long long den) {
  real_t s;
  real_t c;
  const real_t x = static_cast<real_t>(2 * sign * num) / static_cast<real_t>(den);
  if constexpr (sizeof(real_t) == 4) {
    sincospif(x, &s, &c);
  } else {
    sincospi(x, &s, &c);
  }
  return {c, s};
}

//! e^{sign 2 pi i m / 16} for a compile-time m (after unrolling) in 0..15.
template <typename real_t>
__device__ __forceinline__ cplx<real_t> root16(int m, int sign) {
  const double c16[16] = {1.0, 0.92387953251128675613, 0.70710678118654752440,
                          0.38268343236508977173, 0.0, -0.38268343236508977173,
                          -0.70710678118654752440, -0.92387953251128675613, -1.0,
                          -0.92387953251128675613, -0.70710678118654752440,
                          -0.38268343236508977173, 0.0, 0.38268343236508977173,
                          0.70710678118654752440, 0.92387953251128675613};
  return {static_cast<real_t>(c16[m & 15]), static_cast<real_t>(sign * c16[(m + 12) & 15])};
}

//! Radix-2 Stockham FFT of radix_v (<= 16) points held in registers.
template <int radix_v, typename real_t>
__device__ __forceinline__ void fft_registers(cplx<real_t>* v, int sign) {
#pragma unroll
  for (int s = 0; (1 << s) < radix_v; ++s) {
    const int ns = 1 << s;
    cplx<real_t> t[radix_v];
#pragma unroll
    for (int j = 0; j < radix_v / 2; ++j) {
      const int k = j % ns;
      const cplx<real_t> a = v[j];
      cplx<real_t> b = v[j + radix_v / 2];
      if (k != 0) b = b * root16<real_t>(k * (16 / (2 * ns)), sign);
      const int d = (j / ns) * 2 * ns + k;
      t[d] = a + b;
      t[d + ns] = a - b;
    }
#pragma unroll
    for (int j = 0; j < radix_v; ++j) v[j] = t[j];
  }
}

//! One in-tile sub-stage of radix 2^q_v over seqs sequences of 2^log_r points in place in
//! shared memory (reads all, __syncthreads, writes all). Every thread holds 16 points.
template <int q_v, int threads_v, typename real_t>
__device__ __forceinline__ void inner_stage(cplx<real_t>* sm, int seqs, int log_r, int ns_log,
                                            int stride, int sign) {
  constexpr int radix = 1 << q_v;
  constexpr int per_thread = points_per_thread / radix;
  const int per_seq_log = log_r - q_v;
  const int total = seqs << per_seq_log;
  cplx<real_t> v[points_per_thread];
#pragma unroll
  for (int b = 0; b < per_thread; ++b) {
    const int g = static_cast<int>(threadIdx.x) + b * threads_v;
    if (g < total) {
      const int s = g >> per_seq_log;
      const int j = g & ((1 << per_seq_log) - 1);
#pragma unroll
      for (int i = 0; i < radix; ++i) v[b * radix + i] = sm[smem_index(s, inner_read(j, i, log_r, q_v), stride)];
      const int k = j & ((1 << ns_log) - 1);
      if (k != 0) {
        const cplx<real_t> w = unit_root<real_t>(sign, k, 1LL << (ns_log + q_v));
        cplx<real_t> wi = w;
#pragma unroll
        for (int i = 1; i < radix; ++i) {
          v[b * radix + i] = v[b * radix + i] * wi;
          wi = wi * w;
        }
      }
      fft_registers<radix>(v + b * radix, sign);
    }
  }
  __syncthreads();
#pragma unroll
  for (int b = 0; b < per_thread; ++b) {
    const int g = static_cast<int>(threadIdx.x) + b * threads_v;
    if (g < total) {
      const int s = g >> per_seq_log;
      const int j = g & ((1 << per_seq_log) - 1);
#pragma unroll
      for (int i = 0; i < radix; ++i) sm[smem_index(s, inner_write(j, i, ns_log, q_v), stride)] = v[b * radix + i];
    }
  }
  __syncthreads();
}

//! Everything a pass needs on the device (trivially copyable).
template <typename real_t>
struct pass_args {
  pass_geometry g;        //!< sizes of the pass
  long long tiles;        //!< tiles of the pass
  const cplx<real_t>* src;  //!< input buffer of the pass
  cplx<real_t>* dst;      //!< output buffer of the pass
  real_t scale;           //!< factor applied on store (1/N on the last inverse pass)
};

//! Runs tile t of a pass: load + twiddle, all inner sub-stages, scaled store.
template <int threads_v, typename real_t>
__device__ void fft_pass_tile(const pass_args<real_t>& a, long long t, int sign, cplx<real_t>* sm) {
  const pass_geometry& g = a.g;
  const tile_origin o = tile_start(g, t);
  const int stride = seq_stride(g.log_r);
  const int elems = o.batches << (g.col_log + g.log_r);
  const long long twiddle_den = 1LL << (g.ns_log + g.log_r);
  for (int e = static_cast<int>(threadIdx.x); e < elems; e += threads_v) {
    const load_slot s = load_map(g, o, e);
    cplx<real_t> x = a.src[s.src];
    if (s.exponent != 0) x = x * unit_root<real_t>(sign, s.exponent, twiddle_den);
    sm[smem_index(s.seq, s.r, stride)] = x;
  }
  __syncthreads();
  const int seqs = o.batches << g.col_log;
  for (int ns_log = 0; ns_log < g.log_r;) {
    const int q = g.log_r - ns_log < max_thread_radix_log2 ? g.log_r - ns_log : max_thread_radix_log2;
    switch (q) {
      case 1: inner_stage<1, threads_v>(sm, seqs, g.log_r, ns_log, stride, sign); break;
      case 2: inner_stage<2, threads_v>(sm, seqs, g.log_r, ns_log, stride, sign); break;
      case 3: inner_stage<3, threads_v>(sm, seqs, g.log_r, ns_log, stride, sign); break;
      default: inner_stage<4, threads_v>(sm, seqs, g.log_r, ns_log, stride, sign); break;
    }
    ns_log += q;
  }
  for (int e = static_cast<int>(threadIdx.x); e < elems; e += threads_v) {
    const store_slot s = store_map(g, o, e);
    cplx<real_t> x = sm[smem_index(s.seq, s.r, stride)];
    x.re *= a.scale;
    x.im *= a.scale;
    a.dst[s.dst] = x;
  }
  __syncthreads();
}

}  // namespace swat::fft::detail

#pragma once
// Index arithmetic of one FFT pass, shared by the device tiles (fft_tile.cuh) and the CPU
// executor (fft_plan.cpp), so that a CI test without a device checks the very mapping the
// kernels use. Plain C++; SWAT_FFT_HD marks the functions __host__ __device__ under nvcc.

#include <cstdint>

#if defined(__CUDACC__)
#define SWAT_FFT_HD __host__ __device__ __forceinline__
#else
#define SWAT_FFT_HD inline
#endif

namespace swat::fft::detail {

//! Tunables per precision (one place): tile of 2^tile_log2 points in shared memory,
//! 2^column_log2 consecutive butterflies per tile (128-byte global segments), threads per
//! block = tile points / 16 (every thread holds 16 points in the radix-16 sub-stages).
struct fft_policy {
  int tile_log2;      //!< points per tile (log2)
  int column_log2;    //!< consecutive butterflies per tile in multi-pass plans (log2)
  int block_threads;  //!< threads per block
};
inline constexpr fft_policy fp32_policy{12, 4, 256};  //!< 4096 x 8 B = 32 KiB tile
inline constexpr fft_policy fp64_policy{11, 3, 128};  //!< 2048 x 16 B = 32 KiB tile
//! Points each thread holds during an in-tile sub-stage.
inline constexpr int points_per_thread = 16;
//! Largest in-register radix (log2).
inline constexpr int max_thread_radix_log2 = 4;

//! What a tile of one pass needs to know (trivially copyable kernel argument).
struct pass_geometry {
  int log_n;        //!< transform size (log2)
  int log_r;        //!< radix of the pass (log2)
  int ns_log;       //!< Stockham Ns (log2)
  int col_log;      //!< butterflies per tile (log2)
  int bat_log;      //!< transforms per tile (log2), 0 in multi-pass plans
  long long batch;  //!< transforms in total
};

//! Shared-memory row stride of one sequence of 2^log_r points: R plus one pad point per 16
//! and one more, so column-wise and stride-16 accesses spread over the banks.
SWAT_FFT_HD int seq_stride(int log_r) {
  const int r = 1 << log_r;
  return r >= 16 ? r + r / 16 + 1 : r;
}
//! Shared-memory index of point i of sequence s.
SWAT_FFT_HD int smem_index(int s, int i, int stride) { return s * stride + i + (i >> 4); }
//! Shared-memory points a tile of this pass occupies (sequences x stride).
SWAT_FFT_HD int tile_smem_points(const pass_geometry& g) {
  return (1 << (g.col_log + g.bat_log)) * seq_stride(g.log_r);
}

//! First transform and first butterfly j of tile t.
struct tile_origin {
  long long b0;   //!< first transform
  long long j0;   //!< first butterfly index inside the transform
  int batches;    //!< transforms present in this tile (tail tile may hold fewer)
};
SWAT_FFT_HD tile_origin tile_start(const pass_geometry& g, long long t) {
  tile_origin o{};
  if (g.bat_log > 0 || g.log_r == g.log_n) {
    o.b0 = t << g.bat_log;
    o.j0 = 0;
    const long long left = g.batch - o.b0;
    o.batches = left < (1LL << g.bat_log) ? static_cast<int>(left) : (1 << g.bat_log);
  } else {
    const long long per_b = 1LL << (g.log_n - g.log_r - g.col_log);
    o.b0 = t / per_b;
    o.j0 = (t % per_b) << g.col_log;
    o.batches = 1;
  }
  return o;
}

//! Load mapping of element e of a tile (c fastest, then r, then transform p): global source
//! offset, sequence in the tile, point r and the twiddle exponent r * (j mod Ns) taken modulo
//! Ns * R (the twiddle is e^{sign 2 pi i exponent / (Ns R)}).
struct load_slot {
  long long src;       //!< element offset in the source buffer
  int seq;             //!< sequence (p * C + c) in the tile
  int r;               //!< point inside the sequence
  long long exponent;  //!< twiddle exponent, 0 <= exponent < Ns * R
};
SWAT_FFT_HD load_slot load_map(const pass_geometry& g, const tile_origin& o, int e) {
  const int c = e & ((1 << g.col_log) - 1);
  const int r = (e >> g.col_log) & ((1 << g.log_r) - 1);
  const int p = e >> (g.col_log + g.log_r);
  const long long j = o.j0 + c;
  load_slot s{};
  s.src = (o.b0 + p) * (1LL << g.log_n) + j + (static_cast<long long>(r) << (g.log_n - g.log_r));
  s.seq = (p << g.col_log) + c;
  s.r = r;
  const long long ns_mask = (1LL << g.ns_log) - 1;
  s.exponent = (static_cast<long long>(r) * (j & ns_mask)) & ((1LL << (g.ns_log + g.log_r)) - 1);
  return s;
}

//! Store mapping of element e (ordered so that consecutive e are consecutive addresses):
//! destination offset, sequence and point. Stockham: out[(j / Ns) Ns R + j mod Ns + r Ns].
struct store_slot {
  long long dst;  //!< element offset in the destination buffer
  int seq;        //!< sequence in the tile
  int r;          //!< point inside the sequence
};
SWAT_FFT_HD store_slot store_map(const pass_geometry& g, const tile_origin& o, int e) {
  const int cp_log = g.ns_log < g.col_log ? g.ns_log : g.col_log;
  const int a = e & ((1 << cp_log) - 1);
  const int r = (e >> cp_log) & ((1 << g.log_r) - 1);
  const int rest = e >> (cp_log + g.log_r);
  const int grp = rest & ((1 << (g.col_log - cp_log)) - 1);
  const int p = rest >> (g.col_log - cp_log);
  const int c = (grp << cp_log) + a;
  const long long j = o.j0 + c;
  store_slot s{};
  s.dst = (o.b0 + p) * (1LL << g.log_n) + ((j >> g.ns_log) << (g.ns_log + g.log_r)) +
          (j & ((1LL << g.ns_log) - 1)) + (static_cast<long long>(r) << g.ns_log);
  s.seq = (p << g.col_log) + c;
  s.r = r;
  return s;
}

//! In-tile sub-stage: butterfly k of 2^q points over a sequence of R = 2^log_r points with
//! inner Ns = 2^ns_log reads points j + i R/2^q and writes (j / Ns) Ns 2^q + j mod Ns + i Ns.
SWAT_FFT_HD int inner_read(int j, int i, int log_r, int q) { return j + (i << (log_r - q)); }
//! Write position of output i of butterfly j (see inner_read).
SWAT_FFT_HD int inner_write(int j, int i, int ns_log, int q) {
  return ((j >> ns_log) << (ns_log + q)) + (j & ((1 << ns_log) - 1)) + (i << ns_log);
}

}  // namespace swat::fft::detail

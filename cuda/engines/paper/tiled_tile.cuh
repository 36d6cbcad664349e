#pragma once
// The tiled wavefront (Xiao, Aji & Feng 2009 §5.1.3): a block computes whole tiles of
// tile × tile cells, one grid step per tile-diagonal D = ti + tj. Inside a tile the cells follow
// the simple wavefront in shared memory (rolling local anti-diagonals, __syncthreads between
// them); only the tile's borders go through global memory:
//   row buffer of tile column tj: [0] corner H(top − 1, left − 1), [1..T] H and F of the bottom
//     row of the last tile computed in that column (read by the tile below at D + 1);
//   column buffer of tile row ti: [1..T] H and E of the right column (read at D + 1).
// A tile reads its borders into shared memory before it overwrites them, and no other tile of
// the same step touches the same column/row slot, so one grid barrier per step suffices.
// Codes are staged one byte per cell in shared memory and stored packed, coalesced, into the
// tile's 128-byte aligned chunk.

#include <cstdint>

#include "cuda/engines/paper/code_layout.hpp"
#include "cuda/engines/paper/sw_problem.cuh"

namespace swat::paper {

//! Tunables of the tiled engine.
struct tiled_policy {
  static constexpr int max_threads = 128;  //!< threads per block at most (the paper's 128)
  //! Threads per block for a tile edge: one thread per tile row, whole warps, ≤ max_threads.
  static constexpr int threads_for(int tile) {
    const int t = (tile + 31) / 32 * 32;
    return t < max_threads ? t : max_threads;
  }
  //! Dynamic shared memory for a tile edge (bytes): 3 rolling diagonals of H/E/F, 4 borders,
  //! staged codes.
  static constexpr int smem_bytes(int tile) {
    return (9 + 4) * (tile + 1) * 4 + (tile * tile + 1) / 2 * 2 + 16;
  }
};
static_assert(tiled_policy::smem_bytes(max_tile) <= 48 * 1024, "tile smem over 48 KB");

//! Work of one grid step of the tiled engine (one tile-diagonal).
class tiled_algo {
 public:
  static constexpr int block_threads = tiled_policy::max_threads;

  //! matrix: substitution scores staged in shared memory; smem: the tile's dynamic shared memory.
  __device__ tiled_algo(const sw_problem& p, const std::int32_t* matrix, std::int32_t* smem)
      : p_(p), matrix_(matrix) {
    const int w = p.tile + 1;
    dh_ = smem;
    de_ = dh_ + 3 * w;
    df_ = de_ + 3 * w;
    top_h_ = df_ + 3 * w;
    top_f_ = top_h_ + w;
    left_h_ = top_f_ + w;
    left_e_ = left_h_ + w;
    codes_ = reinterpret_cast<std::uint8_t*>(left_e_ + w);
  }

  //! Grid steps of the fill: tile-diagonals.
  __host__ __device__ static std::int64_t steps(const sw_problem& p) {
    return p.tiles_m + p.tiles_n - 1;
  }

  //! Computes every tile of tile-diagonal step (block-uniform loop over the grid's tiles).
  __device__ void step(std::int64_t step, best_cell& best) const {
    const std::int64_t lo = step - (p_.tiles_n - 1) > 0 ? step - (p_.tiles_n - 1) : 0;
    const std::int64_t hi = step < p_.tiles_m - 1 ? step : p_.tiles_m - 1;
    for (std::int64_t ti = lo + blockIdx.x; ti <= hi; ti += gridDim.x)
      tile(ti, step - ti, best);
  }

 private:
  __device__ void tile(std::int64_t ti, std::int64_t tj, best_cell& best) const {
    const int T = p_.tile;
    const int w = T + 1;
    const std::int64_t i0 = ti * T, j0 = tj * T;  // DP row/column before the tile
    const int R = static_cast<int>(p_.m - i0 < T ? p_.m - i0 : T);
    const int C = static_cast<int>(p_.n - j0 < T ? p_.n - j0 : T);
    std::int32_t* row_h = p_.d_row_h + tj * w;
    std::int32_t* row_f = p_.d_row_f + tj * w;
    std::int32_t* col_h = p_.d_col_h + ti * w;
    std::int32_t* col_e = p_.d_col_e + ti * w;
    for (int x = threadIdx.x; x <= T; x += blockDim.x) {  // borders into shared memory
      top_h_[x] = ti > 0 ? row_h[x] : 0;
      top_f_[x] = ti > 0 && x > 0 ? row_f[x] : neg_inf;
      left_h_[x] = tj > 0 && x > 0 ? col_h[x] : 0;
      left_e_[x] = tj > 0 && x > 0 ? col_e[x] : neg_inf;
    }
    __syncthreads();
    if (threadIdx.x == 0) left_h_[0] = top_h_[0];  // corner, also the diagonal of (1, 1)
    __syncthreads();
    const std::uint8_t* q = p_.d_query + i0;
    const std::uint8_t* t = p_.d_target + j0;
    for (int delta = 2; delta <= R + C; ++delta) {  // local anti-diagonals r + c
      const int s0 = delta % 3, s1 = (delta - 1) % 3, s2 = (delta - 2) % 3;
      for (int r = threadIdx.x + 1; r <= R; r += blockDim.x) {
        const int c = delta - r;
        if (c < 1 || c > C) continue;
        const std::int32_t left_h = c == 1 ? left_h_[r] : dh_[s1 * w + r];
        const std::int32_t left_e = c == 1 ? left_e_[r] : de_[s1 * w + r];
        const std::int32_t up_h = r == 1 ? top_h_[c] : dh_[s1 * w + r - 1];
        const std::int32_t up_f = r == 1 ? top_f_[c] : df_[s1 * w + r - 1];
        const std::int32_t diag_h = r == 1 ? top_h_[c - 1] : c == 1 ? left_h_[r - 1] : dh_[s2 * w + r - 1];
        const std::int32_t s = matrix_[__ldg(q + r - 1) * 32 + __ldg(t + c - 1)];
        const cell_value v = gotoh_cell(left_h, left_e, up_h, up_f, diag_h, s, p_.gap_oe, p_.gap_e);
        dh_[s0 * w + r] = v.h;
        de_[s0 * w + r] = v.e;
        df_[s0 * w + r] = v.f;
        codes_[(r - 1) * T + (c - 1)] = v.code;
        keep_best(best, v.h, i0 + r, j0 + c);
        if (r == R) {
          row_h[c] = v.h;
          row_f[c] = v.f;
        }
        if (c == C) {
          col_h[r] = v.h;
          col_e[r] = v.e;
        }
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) row_h[0] = left_h_[R];  // corner of the tile below
    std::uint8_t* out = p_.d_codes + ((ti * p_.tiles_n + tj) * p_.chunk_cells >> 1);
    const int pairs = (T * T + 1) / 2;
    for (int x = threadIdx.x; x < pairs; x += blockDim.x) {
      const int c0 = 2 * x, c1 = 2 * x + 1;
      const std::uint8_t lo_code = codes_[c0];
      const std::uint8_t hi_code = c1 < T * T ? codes_[c1] : 0;
      out[x] = static_cast<std::uint8_t>((lo_code & 0xF) | ((hi_code & 0xF) << 4));
    }
    __syncthreads();  // shared memory is reused by the next tile
  }

  const sw_problem& p_;
  const std::int32_t* matrix_;
  std::int32_t *dh_, *de_, *df_, *top_h_, *top_f_, *left_h_, *left_e_;
  std::uint8_t* codes_;
};

}  // namespace swat::paper

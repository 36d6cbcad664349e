#pragma once
// One anti-diagonal of the diagonal-major engines (Xiao, Aji & Feng 2009 §5.1.1–5.1.2): the
// cells i = lo(d)..hi(d) of anti-diagonal d = i + j are spread over every thread of the grid;
// H, E and F of diagonals d−1 and d−2 are read from rolling diagonal-major slots in global
// memory and those of d written to the third. layout_t says where a diagonal starts in its slot:
//   simple_layout    — the packed diagonal-major matrix: the start of d keeps the misalignment
//                      it would have in one array of all diagonals back to back;
//   coalesced_layout — every start aligned to 128 bytes (codes: the 256-cell aligned layout).
// Codes are stored two per byte: lanes 2k and 2k+1 of a warp hold neighbouring cells, the even
// lane packs its odd neighbour's code (one shuffle) and stores the byte.

#include <cstdint>

#include "cuda/engines/paper/sw_problem.cuh"

namespace swat::paper {

//! "simple": diagonal-major, unaligned starts.
struct simple_layout {
  static constexpr bool aligned = false;
};
//! "coalesced": diagonal-major, starts aligned to 128 bytes.
struct coalesced_layout {
  static constexpr bool aligned = true;
};

//! Tunables of the diagonal engines.
struct diagonal_policy {
  static constexpr int block_threads = 256;  //!< threads per block (multiple of 32)
};

//! Work of one grid step of a diagonal engine (one anti-diagonal).
template <typename layout_t>
class diagonal_algo {
 public:
  static constexpr int block_threads = diagonal_policy::block_threads;
  static_assert(block_threads % 32 == 0, "whole warps only");

  //! matrix: the substitution scores staged in shared memory (matrix_entries int32).
  __device__ diagonal_algo(const sw_problem& p, const std::int32_t* matrix) : p_(p), matrix_(matrix) {}

  //! Grid steps of the fill: anti-diagonals 2..m+n.
  __host__ __device__ static std::int64_t steps(const sw_problem& p) { return p.m + p.n - 1; }

  //! Computes anti-diagonal d = step + 2 with all threads of the grid; best collects this
  //! thread's best cell.
  __device__ void step(std::int64_t step, best_cell& best) const {
    const std::int64_t d = step + 2;
    const std::int64_t lo = d - p_.n > 1 ? d - p_.n : 1;
    const std::int64_t hi = d - 1 < p_.m ? d - 1 : p_.m;
    const std::int64_t len = hi - lo + 1;
    const std::int64_t start = p_.d_starts[d];
    std::int32_t* h0 = slot(p_.d_h, d);
    std::int32_t* e0 = slot(p_.d_e, d);
    std::int32_t* f0 = slot(p_.d_f, d);
    const std::int32_t* h1 = d >= 3 ? slot(p_.d_h, d - 1) : nullptr;
    const std::int32_t* e1 = d >= 3 ? slot(p_.d_e, d - 1) : nullptr;
    const std::int32_t* f1 = d >= 3 ? slot(p_.d_f, d - 1) : nullptr;
    const std::int32_t* h2 = d >= 4 ? slot(p_.d_h, d - 2) : nullptr;
    const unsigned lane = threadIdx.x % 32u;
    const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
    const std::int64_t warp_base = std::int64_t(blockIdx.x) * blockDim.x + (threadIdx.x - lane);
    for (std::int64_t kb = warp_base; kb < len; kb += threads) {  // warp-uniform loop
      const std::int64_t k = kb + lane;
      const bool active = k < len;
      std::uint8_t code = 0;
      if (active) {
        const std::int64_t i = lo + k, j = d - i;
        const bool has_left = j > 1, has_up = i > 1;
        const std::int32_t left_h = has_left ? h1[i] : 0;
        const std::int32_t left_e = has_left ? e1[i] : neg_inf;
        const std::int32_t up_h = has_up ? h1[i - 1] : 0;
        const std::int32_t up_f = has_up ? f1[i - 1] : neg_inf;
        const std::int32_t diag_h = has_left && has_up ? h2[i - 1] : 0;
        const std::int32_t s = matrix_[__ldg(p_.d_query + i - 1) * 32 + __ldg(p_.d_target + j - 1)];
        const cell_value v = gotoh_cell(left_h, left_e, up_h, up_f, diag_h, s, p_.gap_oe, p_.gap_e);
        h0[i] = v.h;
        e0[i] = v.e;
        f0[i] = v.f;
        code = v.code;
        keep_best(best, v.h, i, j);
      }
      const std::uint8_t odd = static_cast<std::uint8_t>(__shfl_down_sync(0xffffffffu, code, 1));
      if (active && (lane & 1u) == 0) {
        const std::uint8_t hi_nibble = k + 1 < len ? odd : 0;
        p_.d_codes[(start + k) >> 1] = static_cast<std::uint8_t>(code | (hi_nibble << 4));
      }
    }
  }

 private:
  //! Slot of diagonal d, offset so that element i sits at the layout's position. Computed in
  //! registers (no load on the step's critical path).
  __device__ std::int32_t* slot(std::int32_t* base, std::int64_t d) const {
    const std::int64_t lo = d - p_.n > 1 ? d - p_.n : 1;
    std::int64_t shift;
    if constexpr (layout_t::aligned) {
      shift = (-lo) & (line_words - 1);  // first cell of d on a 128-byte boundary
    } else {
      shift = (packed_start(d) - lo) & (line_words - 1);  // misalignment of the packed matrix
    }
    return base + (d % rolling_slots) * p_.slot_words + shift;
  }
  //! Cells of anti-diagonals 2..d−1 of the m × n matrix: where d starts when all diagonals are
  //! stored back to back: Σ_{i=1}^{K} min(n, d−1−i) with K = min(m, d−2).
  __device__ std::int64_t packed_start(std::int64_t d) const {
    const std::int64_t k = d - 2 < p_.m ? d - 2 : p_.m;
    std::int64_t a = d - 1 - p_.n;  // rows i ≤ a see the full n columns
    a = a < 0 ? 0 : (a > k ? k : a);
    return a * p_.n + (k - a) * (d - 1) - (k * (k + 1) / 2 - a * (a + 1) / 2);
  }
  const sw_problem& p_;
  const std::int32_t* matrix_;
};

}  // namespace swat::paper

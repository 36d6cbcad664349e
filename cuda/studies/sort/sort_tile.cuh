#pragma once
// Block-level work of the bitonic sort: tile steps in shared memory (local sort, local merge),
// with the first step loading from the caller's arrays (encode + sentinel padding) and the
// last step storing back (decode, first n only); and the global compare-exchange of one stride.
// Schedule and encoding: sort_index.hpp (shared with the CPU executor).

#include <cstdint>

#include "cuda/studies/sort/sort_index.hpp"

namespace swat::sort::detail {

//! Everything the kernel needs (trivially copyable kernel argument).
template <typename word_t>
struct sort_args {
  word_t* d_work;                  //!< P padded words (scratch)
  const std::uint32_t* d_keys_in;  //!< caller's keys (bits of u32 / i32 / f32)
  std::uint32_t* d_keys_out;       //!< sorted keys (may equal d_keys_in)
  const std::uint32_t* d_vals_in;  //!< pairs: caller's values
  std::uint32_t* d_vals_out;       //!< pairs: values in key order
  long long n;                     //!< items
  int p_log;                       //!< P = 2^p_log words
  int t_log;                       //!< policy tile (log2)
  int steps;                       //!< steps of the schedule
  int kind;                        //!< key_kind
  bool descending;                 //!< order
};

//! Compare-exchange of a and b so that a <= b when up (a >= b otherwise).
template <typename word_t>
__device__ __forceinline__ void order_pair(word_t& a, word_t& b, bool up) {
  const word_t lo = a < b ? a : b;
  const word_t hi = a < b ? b : a;
  a = up ? lo : hi;
  b = up ? hi : lo;
}

//! Padded word i built from the caller's arrays (sentinel beyond n).
template <typename word_t>
__device__ __forceinline__ word_t load_input(const sort_args<word_t>& a, long long i) {
  if (i >= a.n) return ~word_t{0};
  const word_t k = encode_key(a.d_keys_in[i], a.kind, a.descending);
  if constexpr (sizeof(word_t) == 8) {
    const std::uint32_t v = a.d_vals_in[i];
    return (k << 32) | (a.descending ? ~v : v);
  } else {
    return k;
  }
}

//! Writes word w back to item i (< n) of the caller's arrays.
template <typename word_t>
__device__ __forceinline__ void store_output(const sort_args<word_t>& a, long long i, word_t w) {
  if constexpr (sizeof(word_t) == 8) {
    a.d_keys_out[i] = decode_key(static_cast<std::uint32_t>(w >> 32), a.kind, a.descending);
    const auto v = static_cast<std::uint32_t>(w);
    a.d_vals_out[i] = a.descending ? ~v : v;
  } else {
    a.d_keys_out[i] = decode_key(static_cast<std::uint32_t>(w), a.kind, a.descending);
  }
}

//! Strides j_first .. 0 of merge size k_log inside the tile starting at word base.
template <int threads_v, typename word_t>
__device__ __forceinline__ void tile_merge(word_t* sm, int t_log, long long base, int k_log, int j_first) {
  const int comparators = 1 << (t_log - 1);
  for (int j_log = j_first; j_log >= 0; --j_log) {
    for (int c = static_cast<int>(threadIdx.x); c < comparators; c += threads_v) {
      const int i = static_cast<int>(comparator_low(c, j_log));
      order_pair(sm[i], sm[i + (1 << j_log)], ascending_at(base + i, k_log));
    }
    __syncthreads();
  }
}

//! Tile step st on tile t: load (from input on step 0), merge in shared memory, store (to the
//! caller's arrays on the last step).
template <int threads_v, typename word_t>
__device__ void tile_step(const sort_args<word_t>& a, const sort_step& st, long long t, bool first,
                          bool last, word_t* sm) {
  const int t_log = tile_log(a.p_log, a.t_log);
  const int words = 1 << t_log;
  const long long base = t << t_log;
  for (int i = static_cast<int>(threadIdx.x); i < words; i += threads_v)
    sm[i] = first ? load_input(a, base + i) : a.d_work[base + i];
  __syncthreads();
  if (st.kind == step_local_sort) {
    for (int k_log = 1; k_log <= t_log; ++k_log) tile_merge<threads_v>(sm, t_log, base, k_log, k_log - 1);
  } else {
    tile_merge<threads_v>(sm, t_log, base, st.k_log, st.j_log);
  }
  for (int i = static_cast<int>(threadIdx.x); i < words; i += threads_v) {
    if (!last) {
      a.d_work[base + i] = sm[i];
    } else if (base + i < a.n) {
      store_output(a, base + i, sm[i]);
    }
  }
  __syncthreads();
}

//! Global step of levels_v strides 2^j_log .. 2^(j_log - levels_v + 1) (all >= tile) over all
//! P words: each thread loads a group of 2^levels_v words, runs the strides in registers and
//! stores them back; groups block-stride (consecutive threads touch consecutive words).
template <int levels_v, int threads_v, typename word_t>
__device__ void global_group_step(const sort_args<word_t>& a, int k_log, int j_log) {
  constexpr int m_count = 1 << levels_v;
  const int low = j_log - levels_v + 1;
  const long long groups = 1LL << (a.p_log - levels_v);
  const long long stride = static_cast<long long>(gridDim.x) * threads_v;
  for (long long g = blockIdx.x * static_cast<long long>(threads_v) + threadIdx.x; g < groups; g += stride) {
    const long long first = group_first(g, j_log, levels_v);
    const bool up = ascending_at(first, k_log);
    word_t v[m_count];
#pragma unroll
    for (int m = 0; m < m_count; ++m) v[m] = a.d_work[first + (static_cast<long long>(m) << low)];
#pragma unroll
    for (int l = levels_v - 1; l >= 0; --l) {
#pragma unroll
      for (int m = 0; m < m_count; ++m)
        if ((m & (1 << l)) == 0) order_pair(v[m], v[m + (1 << l)], up);
    }
#pragma unroll
    for (int m = 0; m < m_count; ++m) a.d_work[first + (static_cast<long long>(m) << low)] = v[m];
  }
}

//! Global step st (1 to global_levels strides).
template <int threads_v, typename word_t>
__device__ void global_step(const sort_args<word_t>& a, const sort_step& st) {
  static_assert(global_levels == 3, "global_step dispatches levels 1..3");
  switch (st.levels) {
    case 1: global_group_step<1, threads_v>(a, st.k_log, st.j_log); break;
    case 2: global_group_step<2, threads_v>(a, st.k_log, st.j_log); break;
    default: global_group_step<3, threads_v>(a, st.k_log, st.j_log); break;
  }
}

}  // namespace swat::sort::detail

#pragma once
// Step schedule and key encoding of the bitonic sort, shared by the device kernels
// (sort_tile.cuh) and the host planner / CPU executor (sort_plan.cpp). Plain C++;
// SWAT_SORT_HD marks the functions __host__ __device__ under nvcc.
//
// Bitonic network (Batcher 1968) over P = 2^p words: for k = 2, 4, ..., P and j = k/2, ..., 1,
// word i (with i & j == 0) is compare-exchanged with i + j, ascending when (i & k) == 0. With
// tiles of T = 2^t words in shared memory the schedule is
//   step 0:            local sort  (every k <= T inside each tile)
//   for k = 2T .. P:   global steps over the strides j >= T, up to global_levels strides per
//                      step (each thread holds 2^levels words in registers, so one pass over
//                      memory and one grid barrier cover up to 3 strides), then
//                      one local merge (all strides j < T of this k inside each tile).

#include <cstdint>

#if defined(__CUDACC__)
#define SWAT_SORT_HD __host__ __device__ __forceinline__
#else
#define SWAT_SORT_HD inline
#endif

namespace swat::sort::detail {

//! Tunables per word type (one place): tile of 2^tile_log2 words, threads per block.
struct sort_policy {
  int tile_log2;          //!< words per shared-memory tile (log2)
  int block_threads;      //!< threads per block
  int min_blocks_per_sm;  //!< __launch_bounds__ occupancy floor (register budget)
};
inline constexpr sort_policy u32_policy{13, 512, 2};  //!< 8192 x 4 B = 32 KiB
inline constexpr sort_policy u64_policy{12, 512, 2};  //!< 4096 x 8 B = 32 KiB
//! Most strides >= tile fused into one global step (2^3 = 8 words per thread).
inline constexpr int global_levels = 3;

//! What one step does.
enum step_kind : int {
  step_local_sort = 0,   //!< all k <= tile inside each tile
  step_global = 1,       //!< one stride j >= tile over the whole array
  step_local_merge = 2,  //!< strides j < tile of one k inside each tile
};

//! One step of the schedule.
struct sort_step {
  int kind;    //!< step_kind
  int k_log;   //!< merge size k (log2); local sort: largest k (log2)
  int j_log;   //!< first (largest) stride (log2)
  int levels;  //!< global steps: strides j_log, j_log - 1, ... (levels of them); else 0
};

//! Global steps of merge size 2^kb over strides kb-1 .. t_log.
SWAT_SORT_HD int global_steps_of(int kb, int t_log) {
  return (kb - t_log + global_levels - 1) / global_levels;
}

//! Tile size (log2) for P = 2^p_log words with policy tile 2^t_log.
SWAT_SORT_HD int tile_log(int p_log, int t_log) { return p_log < t_log ? p_log : t_log; }

//! Steps of the schedule for P = 2^p_log words (0 words: p_log = 0 gives one trivial step).
SWAT_SORT_HD int step_count(int p_log, int t_log) {
  int steps = 1;
  for (int kb = t_log + 1; kb <= p_log; ++kb) steps += global_steps_of(kb, t_log) + 1;
  return steps;
}

//! Step s (0-based) of the schedule.
SWAT_SORT_HD sort_step step_at(int s, int p_log, int t_log) {
  const int tl = tile_log(p_log, t_log);
  if (s == 0) return {step_local_sort, tl, tl - 1, 0};
  int left = s - 1;
  for (int kb = t_log + 1; kb <= p_log; ++kb) {
    const int globals = global_steps_of(kb, t_log);
    if (left < globals) {
      const int j = kb - 1 - global_levels * left;
      const int levels = j - t_log + 1 < global_levels ? j - t_log + 1 : global_levels;
      return {step_global, kb, j, levels};
    }
    if (left == globals) return {step_local_merge, kb, t_log - 1, 0};
    left -= globals + 1;
  }
  return {step_local_merge, p_log, t_log - 1, 0};  // not reached for s < step_count
}

//! Word index of comparator c of stride 2^j_log (the lower word; its partner is + 2^j_log).
SWAT_SORT_HD long long comparator_low(long long c, int j_log) {
  const long long lo = c & ((1LL << j_log) - 1);
  return ((c >> j_log) << (j_log + 1)) | lo;
}
//! First word of register group g of a global step (strides j_log .. j_log - levels + 1): the
//! group's words are first + m * 2^(j_log - levels + 1) for m < 2^levels.
SWAT_SORT_HD long long group_first(long long g, int j_log, int levels) {
  const int low = j_log - levels + 1;
  return ((g >> low) << (j_log + 1)) | (g & ((1LL << low) - 1));
}
//! True when the comparator at word i of merge size 2^k_log sorts ascending.
SWAT_SORT_HD bool ascending_at(long long i, int k_log) { return ((i >> k_log) & 1) == 0; }

//! Key types as the device sees them (all sorted as order-preserving u32 bit patterns).
enum key_kind : int { key_u32 = 0, key_i32 = 1, key_f32 = 2 };

//! Order-preserving u32 of a key's bits (f32: IEEE 754 totalOrder, -0 < +0, NaN by sign at the
//! ends); descending inverts all bits so that one ascending network serves both orders.
SWAT_SORT_HD std::uint32_t encode_key(std::uint32_t bits, int kind, bool descending) {
  std::uint32_t e = bits;
  if (kind == key_i32) e = bits ^ 0x80000000u;
  if (kind == key_f32) e = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  return descending ? ~e : e;
}
//! Inverse of encode_key.
SWAT_SORT_HD std::uint32_t decode_key(std::uint32_t e, int kind, bool descending) {
  if (descending) e = ~e;
  if (kind == key_i32) return e ^ 0x80000000u;
  if (kind == key_f32) return (e & 0x80000000u) ? (e & 0x7fffffffu) : ~e;
  return e;
}

}  // namespace swat::sort::detail

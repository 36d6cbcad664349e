#pragma once
// Tunables of the fast engine (one place): rows per thread, warps per block, chunk of columns
// between two ready flags. A warp owns a strip of 32 × rows_per_thread query rows; the target
// streams through it one column per step, skewed by one column per lane (lane l works on
// column t − l at step t).

#include <cstdint>

namespace swat::fast {

//! Compile-time policy of one fill variant.
//! rows_per_thread_v: query rows (cells per column) held in registers by one thread.
//! origins_v: also propagate the origin cell of every H/E/F (exact begin, Gotoh 1982 walk).
//! packed16_v: two 16-bit cells per register (fast_tile16.cuh): a strip is two stacked halves
//!   of 32 × rows_per_thread rows, the lower one 32 columns behind the upper one.
template <int rows_per_thread_v, bool origins_v, bool packed16_v = false>
struct fast_policy {
  static constexpr int rows_per_thread = rows_per_thread_v;  //!< rows (cells) per thread and half
  static constexpr bool with_origins = origins_v;            //!< origins propagated
  static constexpr bool packed16 = packed16_v;               //!< int16x2 cells (no origins)
  static constexpr int halves = packed16_v ? 2 : 1;          //!< row halves per strip
  //! Packed 16-bit fill: steps between the strip's first row on column j and the store of
  //! column j of its last row (63 columns of skew, and the store one step later: a multiple of
  //! 32, so that the chunks of the row it stores are the chunks of steps). A strip runs
  //! n + last_row_lag steps.
  static constexpr int last_row_lag = 64;
  static constexpr int warp_threads = 32;                    //!< threads per warp
  static constexpr int warps_per_block = 4;                  //!< warps (strips in flight) per block
  static constexpr int block_threads = warp_threads * warps_per_block;  //!< threads per block
  static constexpr int strip_rows = halves * warp_threads * rows_per_thread;  //!< rows per strip
  static constexpr int chunk_columns = warp_threads;  //!< columns per ready flag / border load
  //! Blocks per SM the register allocation must allow (__launch_bounds__): 4 × 128 threads.
  static constexpr int min_blocks_per_sm = 4;
  static constexpr int profile_words = rows_per_thread / 4;  //!< 32-bit words of int8 scores
  //! Profile rows for a scheme of `ranks` target ranks: the packed fill also looks up a pad
  //! rank (= ranks, scores −1) on columns outside the matrix.
  __host__ __device__ static constexpr int profile_rows(int ranks) { return ranks + (packed16_v ? 1 : 0); }
  static_assert(rows_per_thread % 4 == 0 && rows_per_thread >= 4 && rows_per_thread <= 16,
                "rows_per_thread: 4, 8, 12 or 16 (int8 profile packed in 32-bit words)");
  static_assert(!(packed16_v && origins_v), "the packed 16-bit fill is score-only");
};

//! Score-only variant: 16 rows per thread, no origins.
using score_policy = fast_policy<16, false>;
//! Variant with origins (exact begin for align()): 8 rows per thread.
using origin_policy = fast_policy<8, true>;
//! Packed 16-bit score-only variant: 2 × 32 × 16 = 1024 rows per strip.
using score16_policy = fast_policy<16, false, true>;

}  // namespace swat::fast

#pragma once
// Device view of one fast fill: sequences, int8 substitution table, strip borders, ready flags,
// per-strip best cells and the watchdog (plain struct, passed by value to the kernel).

#include <vector_types.h>

#include <cstdint>

#include "common/traceback.hpp"
#include "cuda/engines/fast/fast_trace_types.hpp"

namespace swat::fast {

//! Stand-in for −infinity in E and F (same value as the reference).
inline constexpr std::int32_t fast_minus_infinity = -(1 << 29);
//! −infinity of the packed 16-bit fill (E~ and F~ start there; −16384 − e stays above −32768).
inline constexpr std::int32_t fast_minus_infinity16 = -(1 << 14);
//! Relative 16-bit scores (fast_tile16.cuh, top): the levels of the warp's largest H between
//! which its base stays, from the scheme's largest step between two neighbouring cells.
struct rebase_levels {
  std::int32_t low = 0;   //!< D + 32 steps (D: the most two of the warp's cells differ): below it (base > 0) the base goes down
  std::int32_t mid = 0;   //!< where a rebase puts the largest H
  std::int32_t high = 0;  //!< above it the base goes up
  bool fits = false;      //!< the levels leave room (o + e + max s ≤ 26)
};
inline rebase_levels rebase_levels_of(std::int32_t gap_open_extend, std::int32_t max_score) {
  const std::int32_t step = gap_open_extend + max_score;  // |H(i,j) − H(i,j±1 or i±1,j)| ≤ step
  rebase_levels r;
  if (max_score < 0 || step <= 0 || step > 1000) return r;
  // D = 1087·step (the warp's cells at one step and the border cell above its first row are at
  // most 1024 rows and 63 columns apart), and the largest H may fall by 32·step before the next
  // look: the base goes down below D + 32·step, so the largest stays ≥ D.
  r.low = 1119 * step;
  r.high = 32767 - 32 * step - max_score - 64;  // 32 steps of growth, one more score, a margin
  r.mid = (r.low + r.high) / 2;
  r.fits = r.high - r.low >= 2000;  // o + e + max s ≤ 26
  return r;
}
//! Error words of a fill.
inline constexpr std::int32_t fast_error_watchdog = 1;
inline constexpr std::int32_t fast_error_overflow = 2;
//! Stride (ranks) of the int8 substitution table: 32 × 32 bytes.
inline constexpr int fast_table_stride = 32;

//! Best cell of one strip (tie rule of common/traceback.hpp) and, with origins, its origin
//! packed as (i << 32) | j (DP indices).
struct strip_best {
  std::int32_t score;
  std::int32_t query_end;   //!< DP row i (1-based), 0 when score = 0
  std::int32_t target_end;  //!< DP column j (1-based), 0 when score = 0
  std::int32_t pad;
  std::uint64_t origin;     //!< packed origin (with origins only)
};

//! Strip-border row kept between two consecutive strips (two rows, used alternately).
struct strip_border {
  std::int32_t* h;   //!< H of the strip's last row, n entries (packed 16-bit fill: H | F~ << 16)
  std::int32_t* f;   //!< F of the strip's last row, n entries
  std::uint64_t* oh; //!< origins of H (with origins only)
  std::uint64_t* of; //!< origins of F (with origins only)
  //! Packed 16-bit fill with relative scores (fast_problem::relative16): the base of every 32
  //! columns of the row (its values are relative to it), ⌈n / 32⌉ entries.
  std::int32_t* base;
};

//! Everything the fill kernel reads and writes.
struct fast_problem {
  const std::uint8_t* d_query;    //!< query ranks padded to strips × strip_rows with pad_rank
  const std::uint8_t* d_target;   //!< target ranks, n entries
  const std::int8_t* d_table;     //!< substitution table [a * 32 + b] (a query, b target rank)
  std::int32_t m;                 //!< query length (rows)
  std::int32_t n;                 //!< target length (columns)
  std::int32_t strips;            //!< ⌈m / strip_rows⌉
  std::int32_t ranks;             //!< target ranks in use (profile rows)
  std::int32_t gap_open_extend;   //!< o + e (cost of a gap's first residue)
  std::int32_t gap_extend;        //!< e
  strip_border border[2];         //!< border rows, strip s writes border[s & 1]
  std::uint32_t* d_ready;         //!< per strip: columns of its border row published (flag)
  strip_best* d_best;             //!< per strip: best cell
  std::int32_t* d_error;          //!< 0 = fine, 1 = watchdog fired, 2 = 16-bit overflow
  std::int32_t score_limit;       //!< packed 16-bit fill: a best above this is an overflow
  //! Packed 16-bit fill: 1 = scores held relative to a warp base that follows them (no overflow;
  //! fast_tile16.cuh), 0 = absolute scores up to score_limit.
  std::int32_t relative16;
  std::int32_t rebase_low, rebase_mid, rebase_high;  //!< rebase_levels_of the scheme (relative16)
  //! Score fills of a transposed pair (the target as the query): the best cell under the
  //! rows-first tie rule (smallest row, then column), the original's columns-first rule.
  std::int32_t rows_first;
  //! Packed 16-bit fill: the largest best score any warp has published (device-scope atomicMax,
  //! zeroed by the host). A cell below it is not the best cell: lanes skip its bookkeeping.
  std::int32_t* d_best_so_far;
  long long watchdog_cycles;      //!< spin limit (clock64 cycles) before d_error is set
  unsigned long long* d_wait_cycles;  //!< null, or sum over warps of clock64 cycles spent waiting on flags
  //! Band of a fill cut into bands of strips (fast_bands.hpp; 0 and 0 = strips for a whole
  //! fill): this launch fills strips [strip_first, strip_last).
  std::int32_t strip_first;
  std::int32_t strip_last;
  //! Band hand-over: when band_ready is set, strip strip_last − 1 writes its border row to
  //! band_out and publishes it on band_ready with a system-scope release (the next band's row
  //! and flag: on its GPU, or in mapped host memory); strip strip_first > 0 reads its upper
  //! border from band_in and waits on band_in_ready with a system-scope acquire.
  strip_border band_out;
  std::uint32_t* band_ready;
  strip_border band_in;
  std::uint32_t* band_in_ready;
  //! Banded fills: one progress word (mapped host memory, shared by every band) that each strip
  //! changes every 2^16 published columns and at its end (system-scope store; the band counts
  //! its beats in the word after its error word, d_error[1]). A wait whose watchdog expires
  //! while the word moved starts its watchdog again: a band may wait for the whole of the bands
  //! above it, not only for one chunk of columns, and its waits end in an error only once
  //! nothing anywhere has moved for the watchdog's time (at most twice that time: the word is
  //! first read at the first expiry).
  std::uint32_t* band_beat;
  //! The band's number (its low 8 bits tag its stores into band_beat; 0 for a whole fill).
  std::int32_t band_index;
  //! Special rows (score32 whole fills only; null: none): strip s with (s + 1) a multiple of
  //! special_strips and s + 1 < strips stores H and F of its last row, DP row (s + 1)·strip_rows,
  //! as special row (s + 1) / special_strips − 1 (n entries), and raises that row's largest H in
  //! d_special_max (zeroed by the host).
  special_cell* d_special;
  std::int32_t special_strips;
  std::int32_t* d_special_max;
  //! Packed 16-bit fill (columns-first tie rule): per strip, its lanes' H of the step at which
  //! each half last took a new best (fast_tile16.cuh: the row is found once, at the strip's end),
  //! 256 entries (half, word of 4 rows, lane).
  uint4* d_snapshot;
};

//! Several whole fills in one launch of the packed 16-bit fill (fast_kernel.cuh,
//! fast_fill_batch_kernel). The problems are sorted by strips, most first, and the batch's strips
//! go level by level: strip g is strip s of problem g − level_first[s], for the s with
//! level_first[s] ≤ g < level_first[s + 1] (level s holds strip s of every problem with more
//! than s strips, a prefix of them). Every pair's chain of strips thus moves on at once, not one
//! pair after the other. Warps take strips by ticket (d_next) as they finish one, so a warp whose
//! strips are short (a narrow pair) takes more of them. Each pair has its own problem (sequences, borders, flags, bests, best so
//! far); all share one error word (problems[p].d_error), so an error anywhere stops the batch.
struct fast_batch {
  const fast_problem* problems;     //!< pairs problems, in device memory
  const std::int32_t* level_first;  //!< levels + 1 strip numbers, in device memory
  std::int32_t pairs;
  std::int32_t levels;              //!< the most strips of a problem
  std::int32_t strips;              //!< level_first[levels]: every strip of the batch
  std::int32_t ranks;               //!< every problem's ranks (the profile's rows)
  std::int32_t* d_error;            //!< the shared error word
  std::int32_t* d_next;             //!< the next strip no warp has taken (zeroed by the host)
};

//! cell_beats, or with rows_first its transpose (the higher score, then the smaller row, then the
//! smaller column): the best cell of a transposed fill is the original's best cell transposed.
#if defined(__CUDACC__)
__host__ __device__
#endif
inline bool cell_beats_as(bool rows_first, std::int32_t score, std::int64_t i, std::int64_t j, std::int32_t best_score,
                          std::int64_t best_i, std::int64_t best_j) {
  return rows_first ? cell_beats(score, j, i, best_score, best_j, best_i) : cell_beats(score, i, j, best_score, best_i, best_j);
}

//! A band's ready flag at or above this carries the error (low 4 bits) that stopped the band
//! above: the band below stops too instead of waiting for its watchdog.
inline constexpr std::uint32_t band_poison = 0xfffffff0u;

//! True when strip s is the first of a band below another band (it reads band_in).
#if defined(__CUDACC__)
__host__ __device__
#endif
inline bool band_entry(const fast_problem& pb, int s) {
  return pb.band_in_ready != nullptr && s == pb.strip_first;
}

//! Where strip s writes its border row.
#if defined(__CUDACC__)
__host__ __device__
#endif
inline strip_border border_out_of(const fast_problem& pb, int s) {
  return pb.band_ready && s + 1 == pb.strip_last ? pb.band_out : pb.border[s & 1];
}

}  // namespace swat::fast

#pragma once
// Device view of one database scan (plain struct, no CUDA types: the host fills it and passes
// it by value to the kernel). A batch of queries against every pair of targets of one chunk of
// the prepared database.

#include <cstdint>

namespace swat::dbsearch {

//! −infinity of the packed 16-bit scan (E~ and F~ start there; −16384 − e stays above −32768).
inline constexpr std::int32_t minus_infinity16 = -(1 << 14);
//! Reach mode (db_align.hpp): cells are anchored at the origin (no restart at 0; values
//! clamped below at a floor ≤ −S, which keeps −16384 − e above −32768) while the target score
//! S ≤ this; larger scores run as plain local H (floor 0), which prunes less.
inline constexpr std::int32_t reach_anchored_max = 16000;
//! result_cell::flags bit: the 16-bit scan saturated for this target (rerun it at 32 bits).
inline constexpr std::int32_t flag_overflow = 1;

//! Two targets scanned together: their columns lie in d_residues[offset … offset + columns)
//! as rank A | rank B << 8 (B's ranks past its end and a missing B are the pad rank).
struct pair_task {
  std::uint32_t offset;   //!< first column in d_residues
  std::int32_t columns;   //!< columns of the pair = length of A (≥ length of B)
  std::int32_t length_b;  //!< length of B (0 when the pair holds one target)
  std::int32_t reach;     //!< reach mode: the score whose cells are looked for (A only)
};

//! Best cell of one target (tie rule of common/traceback.hpp) and flags; in reach mode the
//! largest row and column (1-based) where H equals the target score, score = that score when
//! some cell reached it, else 0.
struct result_cell {
  std::int32_t score;
  std::int32_t query_end;   //!< 1-based DP row, 0 when score = 0
  std::int32_t target_end;  //!< 1-based DP column, 0 when score = 0
  std::int32_t flags;       //!< flag_overflow
};

//! One query of the batch: its int8 profile, strip-major (byte (s · profile_rows + a) ·
//! strip_rows + row − s · strip_rows of it is s(q_row, a) for target rank a; rows past m and the
//! pad rank a = profile_rows − 1 score −1), at profile_offset bytes into scan_problem::d_profile.
struct query_info {
  std::int64_t profile_offset;  //!< bytes, a multiple of 16
  std::int32_t m;               //!< query length (rows)
  std::int32_t strips;          //!< ⌈m / strip_rows⌉
};

//! Where the kernel reads the query profiles from.
enum class profile_mode : std::int32_t {
  resident = 0,  //!< every profile of the batch copied to shared memory once; warp batches
  streamed = 1,  //!< the block loads one strip of its query's profile at a time; block batches
  global = 2,    //!< read through L1 from global memory; warp batches (few pairs per query)
  //! One (query, pair) per block (G = 32: one group per warp): warp w takes strips w, w + W, …
  //! of the query (W warps), each strip a few columns behind the one above, handed over through
  //! a ring of W border rows in global memory and a progress word per row in shared memory;
  //! each warp copies its strip's profile into its own W-th of the dynamic shared memory
  //! (scan_problem::pipe_shared_slices; else through L1). For few, long pairs: the warps of a
  //! block share one pair.
  pipelined = 3,
};

//! scan_problem::d_error codes.
inline constexpr std::int32_t scan_error_watchdog = 1;

//! Everything the scan kernel reads and writes.
struct scan_problem {
  const std::int8_t* d_profile;     //!< the batch's profiles, one after the other
  const query_info* d_queries;      //!< the batch's queries (longest first)
  std::int32_t queries;             //!< queries in the batch
  std::int32_t pairs;               //!< pairs of targets per query (the chunk's)
  std::int32_t batch;               //!< pairs handed out together (a warp's or a block's groups)
  std::int32_t batches_per_query;   //!< ⌈pairs / batch⌉ (pairs of one query: pipelined, batch = 1)
  std::int32_t profile_rows;        //!< target ranks + 1 (the pad rank)
  profile_mode mode;                //!< where profiles are read from
  std::int64_t profile_bytes;       //!< bytes of the whole batch's profiles (resident: copied to shared memory)
  std::int32_t gap_open_extend;     //!< o + e (cost of a gap's first residue)
  std::int32_t gap_extend;          //!< e
  std::int32_t score_limit;         //!< a best above this saturates 16 bits (≤ 32767 − max score)
  const std::uint16_t* d_residues;  //!< columns of every pair of the chunk
  const pair_task* d_tasks;         //!< the chunk's pairs, longest first
  std::uint64_t* d_border;          //!< per group slot: border_columns entries (H | F~ << 32, int16x2 each)
  std::int64_t border_columns;      //!< columns of one slot (≥ the longest pair)
  result_cell* d_result;            //!< 2 per (query, pair): index 2 · (q · pairs + p) for A, + 1 for B
  std::uint32_t* d_queue;           //!< next batch to hand out (task-queue mode)
  std::int32_t use_queue;           //!< 1: batches come from d_queue; 0: static partition
  std::int32_t one_to_one;          //!< 1: query q is scanned against pair q only (results at 2q)
  unsigned long long* d_cells_done; //!< DP cells finished (progress)
  std::int32_t* d_error;            //!< 0, or scan_error_watchdog (pipelined: a strip waited too long)
  long long watchdog_cycles;        //!< spin limit of a pipelined strip on the one above (clock64)
  std::int32_t pipe_shared_slices;  //!< pipelined: 1 when the dynamic shared memory holds one strip's
                                    //!< profile per warp (profile_rows · strip_rows bytes each)
  std::int32_t pair_major;          //!< 0: batch b is query b / batches_per_query, pairs from (b mod that) · batch;
                                    //!< 1: query b mod queries, pairs from (b / queries) · batch (db_kernel.cuh)
  std::int32_t rows_first;          //!< 1: ties go to the smallest row, then the smallest column
                                    //!< (the caller's targets are the rows: scan_options::rows_first)
};

}  // namespace swat::dbsearch

#pragma once
// Device view of one database scan (plain struct, no CUDA types: the host fills it and passes
// it by value to the kernel). One query against every pair of targets of the prepared database.

#include <cstdint>

namespace swat::dbsearch {

//! −infinity of the packed 16-bit scan (E~ and F~ start there; −16384 − e stays above −32768).
inline constexpr std::int32_t minus_infinity16 = -(1 << 14);
//! result_cell::flags bit: the 16-bit scan saturated for this target (rerun it at 32 bits).
inline constexpr std::int32_t flag_overflow = 1;

//! Two targets scanned together: their columns lie in d_residues[offset … offset + columns)
//! as rank A | rank B << 8 (B's ranks past its end and a missing B are the pad rank).
struct pair_task {
  std::uint32_t offset;   //!< first column in d_residues
  std::int32_t columns;   //!< columns of the pair = length of A (≥ length of B)
  std::int32_t length_b;  //!< length of B (0 when the pair holds one target)
  std::int32_t pad;
};

//! Best cell of one target (tie rule of common/traceback.hpp) and flags.
struct result_cell {
  std::int32_t score;
  std::int32_t query_end;   //!< 1-based DP row, 0 when score = 0
  std::int32_t target_end;  //!< 1-based DP column, 0 when score = 0
  std::int32_t flags;       //!< flag_overflow
};

//! Everything the scan kernel reads and writes.
struct scan_problem {
  //! int8 query profile, strip-major: byte (s · profile_rows + a) · strip_rows + row − s · strip_rows
  //! is s(q_row, a) for target rank a; rows past m and the pad rank (a = profile_rows − 1) score −1.
  const std::int8_t* d_profile;
  std::int32_t m;                 //!< query length (rows)
  std::int32_t strips;            //!< ⌈m / strip_rows⌉
  std::int32_t profile_rows;      //!< target ranks + 1 (the pad rank)
  std::int32_t resident;          //!< 1: the whole profile sits in shared memory
  std::int32_t gap_open_extend;   //!< o + e (cost of a gap's first residue)
  std::int32_t gap_extend;        //!< e
  std::int32_t score_limit;       //!< a best above this saturates 16 bits (≤ 32767 − max score)
  std::int32_t tasks;             //!< pairs to scan
  const std::uint16_t* d_residues;  //!< columns of every pair
  const pair_task* d_tasks;       //!< pairs, longest first
  std::uint64_t* d_border;        //!< per group slot: border_columns entries (H | F~ << 32, int16x2 each)
  std::int64_t border_columns;    //!< columns of one slot (≥ the longest pair)
  result_cell* d_result;          //!< 2 per task: A then B
  std::uint32_t* d_queue;         //!< next task to hand out (task-queue mode)
  std::int32_t use_queue;         //!< 1: groups take tasks from d_queue; 0: static partition
  unsigned long long* d_cells_done;  //!< DP cells finished (progress)
};

}  // namespace swat::dbsearch

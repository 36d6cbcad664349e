#pragma once
// Tunables of the database-search scan (one place). A group of `group_lanes` lanes owns one
// pair of targets, packed in the two 16-bit halves of every register (target A in bits 0–15,
// target B in bits 16–31); the group's lanes hold a strip of group_lanes × rows_per_lane query
// rows and the pair's columns stream through it, skewed by one column per lane. The query is
// covered strip after strip by the same group (the strip's last row is kept in a border row
// in global memory), so the group never waits for another group.

#include <cstdint>

namespace swat::dbsearch {

//! Compile-time policy of one scan kernel.
//! group_lanes_v: lanes per pair (8, 16 or 32). Fewer lanes waste fewer steps on the wavefront's
//!   fill and drain (group_lanes − 1 steps per strip) but need more strips for a long query.
//! rows_per_lane_v: query rows per lane (16 or 32): more rows spread the per-step work
//!   (shuffles, loads, bookkeeping) over more cells but take more registers.
//! reach_v: instead of the best cell, record the largest row and column where H equals the
//!   pair's target score (the reverse pass of the hit alignments, db_align.hpp).
//! warps_v: warps per block, 0 for the shape's own (below). The 32-lane, 32-row kernel also
//!   comes with 12 as well: a group per pair only, without the pipelined launches.
//! The second block size of the 32-lane, 32-row kernel (warps_v below).
inline constexpr int wide_block_warps = 12;

template <int group_lanes_v, int rows_per_lane_v = 16, bool reach_v = false, int warps_v = 0>
struct scan_policy {
  static constexpr bool reach = reach_v;                              //!< reach mode
  static constexpr int group_lanes = group_lanes_v;                   //!< lanes per pair
  static constexpr int rows_per_lane = rows_per_lane_v;               //!< query rows per lane
  static constexpr int warp_threads = 32;                             //!< threads per warp
  static constexpr int groups_per_warp = warp_threads / group_lanes;  //!< pairs in flight per warp
  //! Warps per block (one block per SM): 32-row lanes take 150–250 registers, so 8 warps, or 12
  //! at 16 lanes (150 registers: 57,600 of the SM's 65,536; three warps per scheduler instead of
  //! two made the ×50 protein scan 8 % faster on the H100; 12 warps of 8 lanes were 30 % slower,
  //! bench/results/db_warps_ab_h100.csv). The 32-lane kernels run pipelined launches too, which
  //! take about 250 registers at 32 rows; their 12-warp kernel (warps_v) does not, and fits 150.
  static constexpr int warps_per_block =
      warps_v != 0 ? warps_v : rows_per_lane_v > 16 ? (group_lanes_v == 16 ? 12 : 8) : 16;
  //! Whether the kernel runs profile_mode::pipelined launches (one group per warp).
  static constexpr bool runs_pipelined = groups_per_warp == 1 && !reach_v && warps_v == 0;
  static constexpr int block_threads = warp_threads * warps_per_block;  //!< threads per block
  static constexpr int groups_per_block = groups_per_warp * warps_per_block;  //!< pairs per block
  static constexpr int strip_rows = group_lanes * rows_per_lane;      //!< query rows per strip
  static constexpr int profile_words = rows_per_lane / 4;             //!< 32-bit words of int8 scores
  //! Blocks per SM the register allocation must allow (__launch_bounds__).
  static constexpr int min_blocks_per_sm = 1;
  static_assert(group_lanes == 8 || group_lanes == 16 || group_lanes == 32, "group_lanes: 8, 16 or 32");
  static_assert(rows_per_lane == 16 || rows_per_lane == 32, "rows_per_lane: 16 or 32");
  static_assert(warps_v == 0 || (warps_v == wide_block_warps && group_lanes == 32 && rows_per_lane == 32 && !reach),
                "warps_v: wide_block_warps at 32 lanes x 32 rows only");
};

//! Shared memory above which the whole query profile is not kept resident in a block (bytes):
//! beyond it the block streams the profile strip by strip (all its groups in step).
inline constexpr std::int64_t resident_profile_max_bytes = 200 * 1024;

}  // namespace swat::dbsearch

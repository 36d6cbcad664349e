#pragma once
// Host side of one scan launch: the grid shape for a query (resident or streamed profile,
// occupancy × SMs blocks) and the launch itself, one instantiation file per group width.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "cuda/engines/dbsearch/db_problem.hpp"

namespace swat::dbsearch {

//! Grid of one scan.
struct launch_shape {
  int blocks = 0;               //!< occupancy × SMs
  int groups_per_block = 0;     //!< pairs in flight per block
  int strip_rows = 0;           //!< query rows per strip
  std::size_t smem_bytes = 0;   //!< dynamic shared memory (the profile or one strip of it)
  bool resident = false;        //!< whole profile in shared memory
};

//! Shape for group width G and R rows per lane on `device` for a query of m rows and profile_rows profile rows
//! (resident profile when it fits resident_profile_max_bytes and the SM, else streamed).
template <int G, int R>
launch_shape plan_launch(int device, std::int64_t m, int profile_rows);

//! Launches the scan kernel of group width G, R rows per lane (pb.resident must match shape.resident).
template <int G, int R>
void launch_scan(const scan_problem& pb, const launch_shape& shape, cudaStream_t stream);

//! Calls fn.template operator()<G, R>() for the runtime group width (8, 16 or 32) and rows per
//! lane (16 or 32); throws std::invalid_argument otherwise. The one place a runtime shape
//! becomes template arguments.
template <typename fn_t>
decltype(auto) with_shape(int group_lanes, int rows_per_lane, fn_t&& fn) {
  if (rows_per_lane != 16 && rows_per_lane != 32)
    throw std::invalid_argument("dbsearch: rows per lane must be 16 or 32");
  const bool wide = rows_per_lane == 32;
  switch (group_lanes) {
    case 8: return wide ? fn.template operator()<8, 32>() : fn.template operator()<8, 16>();
    case 16: return wide ? fn.template operator()<16, 32>() : fn.template operator()<16, 16>();
    case 32: return wide ? fn.template operator()<32, 32>() : fn.template operator()<32, 16>();
    default: throw std::invalid_argument("dbsearch: group lanes must be 8, 16 or 32");
  }
}

}  // namespace swat::dbsearch

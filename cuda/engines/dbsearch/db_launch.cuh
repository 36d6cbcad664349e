#pragma once
// Host side of one scan launch: the shape of a kernel on the device (occupancy × SMs blocks)
// and the launch itself, one instantiation file per shape.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "cuda/common/device_context.hpp"
#include "cuda/engines/dbsearch/db_plan.hpp"
#include "cuda/engines/dbsearch/db_problem.hpp"

namespace swat::dbsearch {

//! The shape of the kernel with G lanes per pair and R rows per lane (reach: the reverse pass of
//! db_align.hpp) and W warps per block (0: the shape's own; scan_policy) on `dev` (current for
//! the calling thread) with smem_bytes of dynamic shared memory (a resident profile, or one strip
//! of it). The device's SM count and shared-memory limit come from `dev`. Not pipelined: a
//! caller sets shape_info::pipelined for a kernel that runs pipelined launches.
template <int G, int R, bool reach = false, int W = 0>
shape_info shape_on(const cuda::device_context& dev, std::size_t smem_bytes);

//! Launches the kernel of G, R, reach and W with `shape` (its blocks, its profile mode's kernel
//! path) and smem_bytes of shared memory.
template <int G, int R, bool reach = false, int W = 0>
void launch_scan(const scan_problem& pb, const shape_info& shape, std::size_t smem_bytes, cudaStream_t stream);

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

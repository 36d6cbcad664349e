#pragma once
// Plain C++ types shared by the traceback fills (fast_trace_tile.cuh), their host dispatch and
// the host algorithm (fast_trace.hpp): 32-bit crossing pointers and checkpoint entries.
//
// Crossing pointer of a cell/state (Gotoh 1982 walk, tie rules of common/traceback.hpp): where
// the reference walk started at that cell/state first lands on the top row of the cell's band
// (bands of K rows, row 0 of the band = the last row of the band above), or where it stops:
//   bit 31: landed in state F (else H), bit 30: stop (H = 0 at the cell, the column follows),
//   bits 0..29: DP column of the landing/stop cell (local to the fill).
// The same recurrences as the origins of engine/cpu_kernels.hpp, reset at every band top.

#include <cstdint>

namespace swat::fast {

inline constexpr std::uint32_t ptr_state_f = 1u << 31;       //!< landed in state F
inline constexpr std::uint32_t ptr_stop = 1u << 30;          //!< walk stops (H = 0)
inline constexpr std::uint32_t ptr_column = (1u << 30) - 1;  //!< column bits
//! Largest target length of a traceback fill (columns must fit ptr_column).
inline constexpr std::int64_t trace_max_columns = ptr_column - 64;
//! Stand-in for −infinity in E and F (same value as the reference).
inline constexpr std::int32_t trace_minus_infinity = -(1 << 29);

//! One column of a checkpoint row (band bottom): H, F and their crossing pointers (16 bytes).
struct alignas(16) checkpoint_entry {
  std::int32_t h;
  std::int32_t f;
  std::uint32_t ph;  //!< crossing pointer of H
  std::uint32_t pf;  //!< crossing pointer of F
};

//! One column of a special row: H and F of a row b·K kept by the score fill (fast_trace.hpp,
//! special-row traceback), exact values of the whole matrix.
struct alignas(8) special_cell {
  std::int32_t h;
  std::int32_t f;
};

}  // namespace swat::fast

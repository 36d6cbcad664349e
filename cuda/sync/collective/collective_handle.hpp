#pragma once
// POD passed by value to kernels that use grid collectives (grid_collective.cuh); filled by
// collective_workspace::handle(). Plain C++.

#include <cstdint>

namespace swat::collective {

//! Per-block exchange slots of the grid collectives: 2 (parity) × n_blocks × 32 bytes.
struct collective_handle {
  unsigned char* d_slots = nullptr;  //!< slot (parity p, block b) at d_slots + (p·n + b)·32
  std::int32_t n_blocks = 0;         //!< blocks of the launch
};

}  // namespace swat::collective

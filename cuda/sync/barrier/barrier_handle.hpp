#pragma once
// The POD a persistent kernel receives by value to build its grid barrier (barrier.cuh).
// Plain C++ (device pointers are plain pointers); filled by barrier_workspace::prepare().

#include <cstdint>

#include "cuda/sync/barrier/barrier_layout.hpp"

namespace swat::barrier {

//! Bytes between two hot words: each counter/flag polled by many blocks gets its own 128-byte
//! L2 line so that polls of one do not queue behind atomics on another.
inline constexpr int line_bytes = 128;
//! 32-bit words per line.
inline constexpr int line_words = line_bytes / 4;
//! Most striped arrival counters (one per lane of the polling warp).
inline constexpr int max_stripes = 32;

//! What a watchdog (or a sanity check) recorded on the device; code 0 = no error.
struct barrier_error {
  std::uint32_t code;   //!< 0 none, 1 watchdog timeout, 2 grid/handle mismatch
  std::uint32_t block;  //!< linear block index that gave up first
  std::uint32_t epoch;  //!< 1-based barrier number it was waiting for
  std::uint32_t site;   //!< which wait: 1 counter, 2 tree node, 3 lockfree in, 4 lockfree out,
                        //!< 5 release flag, 6 stripes
};

inline constexpr std::uint32_t error_none = 0;      //!< barrier_error::code: fine
inline constexpr std::uint32_t error_timeout = 1;   //!< a spin exceeded the watchdog
inline constexpr std::uint32_t error_mismatch = 2;  //!< launched grid != handle.n_blocks

//! Device state of one grid barrier instance, passed by value as a kernel argument.
struct barrier_handle {
  std::uint32_t* d_counter = nullptr;  //!< simple / flag arrival counter (own line)
  std::uint32_t* d_release = nullptr;  //!< flag: release word, holds the last released epoch
  std::uint32_t* d_abort = nullptr;    //!< sticky: nonzero once any watchdog fired
  barrier_error* d_error = nullptr;    //!< first recorded error
  std::uint32_t* d_stripes = nullptr;  //!< stripe: counter s at d_stripes[s * line_words]
  std::uint32_t* d_tree = nullptr;     //!< tree: counter n at d_tree[n * line_words]
  const tree_path* d_paths = nullptr;  //!< tree: route of each block
  std::uint32_t* d_in = nullptr;       //!< lockfree: Arrayin, one word per block
  std::uint32_t* d_out = nullptr;      //!< lockfree: Arrayout, one word per block
  std::int32_t n_blocks = 0;           //!< blocks of the launch (must equal the grid)
  std::int32_t stripes = 1;            //!< stripe: number of counters in use, 1..32
  std::int64_t watchdog_cycles = 0;    //!< clock64 cycles a spin may last; <= 0: no limit
};

}  // namespace swat::barrier

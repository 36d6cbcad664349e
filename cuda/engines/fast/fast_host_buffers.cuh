#pragma once
// Host-side helpers shared by the fill (fast_dispatch.cu) and the traceback (fast_trace_dispatch.cu):
// the device buffer that only grows, the 256-byte layout alignment and the constants both need.

#include <cstddef>

#include "cuda/common/cuda_check.cuh"
#include "cuda/engines/fast/fast_problem.cuh"

namespace swat::fast {

//! Query rank of the padding rows of a last strip (scores −1 against every target rank).
inline constexpr int pad_rank = fast_table_stride - 1;
//! Clock assumed when a watchdog limit in seconds becomes clock64 cycles (Hz).
inline constexpr double watchdog_clock_hz = 2.0e9;

//! Offset x rounded up to the next multiple of 256 bytes.
inline std::size_t align_up(std::size_t x) { return (x + 255) / 256 * 256; }

//! A device buffer that only grows (freed before it grows: the peak is the largest request).
struct device_buffer {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  device_buffer() = default;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  void reserve(std::size_t want) {
    if (want <= bytes) return;
    if (ptr) SWAT_CUDA_CHECK(cudaFree(ptr));
    ptr = nullptr;
    bytes = 0;
    SWAT_CUDA_CHECK(cudaMalloc(&ptr, want));
    bytes = want;
  }
  ~device_buffer() {
    if (ptr) cudaFree(ptr);
  }
  //! The buffer at offset_bytes as T*.
  template <typename T>
  T* as(std::size_t offset_bytes = 0) const {
    return reinterpret_cast<T*>(static_cast<char*>(ptr) + offset_bytes);
  }
};

}  // namespace swat::fast

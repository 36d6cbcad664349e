#pragma once
// What two bands of a fill on different GPUs share (fast_bands.cu, fast_trace_dispatch.cu): peer
// access between their devices, or mapped host memory for a hand-over row and its flag.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>

#include "cuda/common/cuda_check.cuh"

namespace swat::fast {

//! Mapped, portable pinned host memory (a hand-over row and its flag between two GPUs without
//! peer access).
struct host_handover {
  void* memory = nullptr;
  explicit host_handover(std::size_t bytes) {
    SWAT_CUDA_CHECK(cudaHostAlloc(&memory, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    std::memset(memory, 0, bytes);
  }
  ~host_handover() {
    if (memory) cudaFreeHost(memory);
  }
  host_handover(const host_handover&) = delete;
  host_handover& operator=(const host_handover&) = delete;
};

//! Lets `from` write to `to`'s memory; false when the pair has no peer access.
inline bool enable_peer(int from, int to) {
  if (from == to) return true;
  int can = 0;
  SWAT_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, from, to));
  if (!can) return false;
  SWAT_CUDA_CHECK(cudaSetDevice(from));
  const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();
    return true;
  }
  SWAT_CUDA_CHECK(e);
  return true;
}

}  // namespace swat::fast

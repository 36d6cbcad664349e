#pragma once
// Device time of enqueued work by a pair of CUDA events, the timer every GPU benchmark uses.

#include <cuda_runtime.h>

#include "cuda/common/cuda_check.cuh"

namespace swat::bench {

//! Records an event on stream, runs work() (which enqueues on stream), records a second one,
//! waits for it and returns the elapsed device time (ms).
template <typename work_t>
float elapsed_ms(cudaStream_t stream, work_t&& work) {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  SWAT_CUDA_CHECK(cudaEventCreate(&start));
  SWAT_CUDA_CHECK(cudaEventCreate(&stop));
  float ms = 0;
  try {
    SWAT_CUDA_CHECK(cudaEventRecord(start, stream));
    work();
    SWAT_CUDA_CHECK(cudaEventRecord(stop, stream));
    SWAT_CUDA_CHECK(cudaEventSynchronize(stop));
    SWAT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  } catch (...) {
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
    throw;
  }
  SWAT_CUDA_CHECK(cudaEventDestroy(start));
  SWAT_CUDA_CHECK(cudaEventDestroy(stop));
  return ms;
}

}  // namespace swat::bench

#pragma once
// Device time by a pair of CUDA events, the timer every GPU benchmark uses: event_pair marks
// start and stop on a stream (e.g. as the marks of barrier::run_synchronised), elapsed_ms()
// times enqueued work.

#include <cuda_runtime.h>

#include "cuda/common/cuda_check.cuh"

namespace swat::bench {

//! Two CUDA events, destroyed with the pair.
class event_pair {
 public:
  event_pair() {
    SWAT_CUDA_CHECK(cudaEventCreate(&start_));
    try {
      SWAT_CUDA_CHECK(cudaEventCreate(&stop_));
    } catch (...) {
      (void)cudaEventDestroy(start_);
      throw;
    }
  }
  ~event_pair() {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
  }
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;

  //! Records the start event on stream.
  void start(cudaStream_t stream) { SWAT_CUDA_CHECK(cudaEventRecord(start_, stream)); }
  //! Records the stop event on stream.
  void stop(cudaStream_t stream) { SWAT_CUDA_CHECK(cudaEventRecord(stop_, stream)); }
  //! Waits for the stop event and returns the device time between the two (ms).
  float elapsed_ms() const {
    SWAT_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    SWAT_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

//! Records an event on stream, runs work() (which enqueues on stream), records a second one,
//! waits for it and returns the elapsed device time (ms).
template <typename work_t>
float elapsed_ms(cudaStream_t stream, work_t&& work) {
  event_pair events;
  events.start(stream);
  work();
  events.stop(stream);
  return events.elapsed_ms();
}

}  // namespace swat::bench

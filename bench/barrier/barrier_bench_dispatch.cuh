#pragma once
// Internal to the barrier benchmark: one timed run of the mean kernel per sync mode
// (barrier_bench_dispatch.cu runs it through the barrier layer's one launch body).

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/common/device_context.hpp"
#include "cuda/sync/barrier/barrier_workspace.cuh"

namespace swat::bench::detail {

//! Geometry and buffers of one benchmark point.
struct bench_point {
  const cuda::device_context* dev = nullptr;  //!< device of the run
  int blocks = 0;                             //!< grid size
  int threads = 0;                            //!< threads per block
  std::size_t smem_bytes = 0;                 //!< dynamic shared memory per block (occupancy limiter)
  int rounds = 0;                             //!< steps
  float* d_a = nullptr;                       //!< ping buffer (blocks × threads floats)
  float* d_b = nullptr;                       //!< pong buffer
  barrier::barrier_workspace* ws = nullptr;   //!< barrier state
  cudaStream_t stream = nullptr;              //!< stream of the run
};

//! Runs `rounds` steps with mode on p and returns the elapsed device time (ms, CUDA events).
//! Throws barrier_timeout when a watchdog fired, swat::cuda_error on CUDA failures.
float time_mean_run(sync_mode mode, const bench_point& p);

//! Largest co-resident grid of the persistent mean kernels for this block size and smem
//! (minimum over all modes' instantiations).
int mean_kernel_max_blocks(const cuda::device_context& dev, int threads, std::size_t smem_bytes);

}  // namespace swat::bench::detail

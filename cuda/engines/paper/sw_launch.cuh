#pragma once
// Runs one fill of algo_t under a sync mode through the barrier layer's launch body
// (run_synchronised) and its one mode → template switch (with_sync_mode). Instantiated once per
// algorithm in its own .cu file (sw_instantiate_*.cu) so the builds run in parallel.

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/common/device_context.hpp"
#include "cuda/sync/barrier/barrier_workspace.cuh"
#include "engine/sync_mode.hpp"
#include "cuda/sync/collective/collective_handle.hpp"
#include "cuda/engines/paper/sw_problem.cuh"

namespace swat::paper {

//! Everything a launch needs besides the problem.
struct launch_env {
  const cuda::device_context* dev = nullptr;       //!< the device (current)
  cudaStream_t stream = nullptr;
  barrier::barrier_workspace* barriers = nullptr;  //!< persistent modes
  collective::collective_handle collective{};      //!< persistent modes (n_blocks set per run)
  int blocks = 1;                                  //!< grid size
  int threads = 32;                                //!< block size
  int smem_bytes = 0;                              //!< dynamic shared memory per block
  cudaEvent_t start = nullptr;                     //!< recorded before the first step
  cudaEvent_t stop = nullptr;                      //!< recorded after the best cell is known
};

//! Fills p with algo_t under mode (every mode of sync_mode.hpp, none included); the best cell
//! ends in *p.d_result. Throws usage_error for an unknown mode, cuda_error, barrier_timeout.
template <typename algo_t>
void run_fill(const sw_problem& p, sync_mode mode, const launch_env& env);

//! Largest co-resident grid on dev of algo_t's persistent kernel under every mode (blocks): one
//! grid size that fits all of them.
template <typename algo_t>
int max_persistent_blocks(const cuda::device_context& dev, int threads, int smem_bytes);

}  // namespace swat::paper

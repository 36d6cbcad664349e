#pragma once
// Kernels of the Xiao & Feng 2010 §5.4 microbenchmark: every thread computes the mean of two
// floats per round, its own element and the one a block further on (so a round really needs the
// previous round of another block), ping-ponging between two buffers. Persistent kernels loop
// over rounds with a grid barrier; the launch-based modes launch one round per step.

#include "cuda/sync/barrier/barrier.cuh"

namespace swat::bench {

//! One round r: dst[i] = (src[i] + src[i + blockDim]) / 2, buffers swapped on odd rounds.
__device__ __forceinline__ void mean_round(float* a, float* b, int r) {
  const unsigned n = gridDim.x * blockDim.x;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned j = (i + blockDim.x) % n;
  const float* src = (r & 1) ? b : a;
  float* dst = (r & 1) ? a : b;
  dst[i] = 0.5f * (src[i] + src[j]);
}

//! Persistent benchmark kernel: `rounds` rounds, one grid barrier after each.
template <sync_mode M>
__global__ void mean_persistent_kernel(barrier::barrier_handle h, float* a, float* b, int rounds) {
  barrier::grid_barrier<M> bar(h);
  for (int r = 0; r < rounds && !bar.failed(); ++r) {
    mean_round(a, b, r);
    bar.arrive_and_wait();
  }
}

//! One round per launch (cpu, cpu_explicit, graph).
__global__ void mean_step_kernel(float* a, float* b, int r);

}  // namespace swat::bench

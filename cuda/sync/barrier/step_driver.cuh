#pragma once
// Host drivers of the launch-based sync modes (the grid barrier is the kernel boundary):
//   cpu          — one launch per step on the stream (CPU implicit synchronisation),
//   cpu_explicit — launch + cudaStreamSynchronize per step (CPU explicit synchronisation),
//   graph        — the step launches captured once into a CUDA graph, then replayed.
// Xiao & Feng 2010 §4 call the first two CPU implicit / explicit synchronisation.

#include <cuda_runtime.h>

#include <functional>

#include "cuda/sync/barrier/sync_mode.hpp"

namespace swat::barrier {

//! Enqueues step `step` (0-based) on `stream`: one or more plain <<<>>> launches, each followed
//! by SWAT_CUDA_CHECK_LAUNCH(). Must not synchronise (it is captured for graph mode).
using step_launcher = std::function<void(cudaStream_t stream, int step)>;

//! Runs steps 0..steps-1 with a launch-based mode (cpu, cpu_explicit, graph) and returns after
//! enqueueing them (cpu, graph) or after the last synchronize (cpu_explicit). Throws
//! usage_error for a persistent mode, swat::cuda_error for CUDA failures. For graph the graph
//! is built and replayed once; reuse step_graph to replay without rebuilding.
void run_steps(sync_mode mode, int steps, cudaStream_t stream, const step_launcher& launch);

//! The steps captured once into an executable CUDA graph; replay() enqueues all of them.
class step_graph {
 public:
  //! Captures launch(s, 0..steps-1) on a private stream and instantiates the graph.
  step_graph(int steps, const step_launcher& launch);
  ~step_graph();
  step_graph(const step_graph&) = delete;
  step_graph& operator=(const step_graph&) = delete;
  //! Enqueues one replay of all captured steps on stream (asynchronous).
  void replay(cudaStream_t stream) const;
  //! Number of captured steps.
  int steps() const { return steps_; }

 private:
  int steps_ = 0;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace swat::barrier

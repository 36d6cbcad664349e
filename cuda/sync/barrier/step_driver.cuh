#pragma once
// Host drivers of the launch-based sync modes (the grid barrier is the kernel boundary):
//   cpu          — one launch per step on the stream (CPU implicit synchronisation),
//   cpu_explicit — launch + cudaStreamSynchronize per step (CPU explicit synchronisation),
//   graph        — the step launches captured once into a CUDA graph, then replayed.
// Xiao & Feng 2010 §4 call the first two CPU implicit / explicit synchronisation.
// run_synchronised() is the one launch body of a multi-step algorithm under any mode: one
// persistent kernel with a grid barrier between steps, or the steps launched one by one or
// replayed from a captured graph. The paper engines, the fast engine's barrier variant, the
// FFT, the sort and the barrier benchmark all run through it.

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>

#include "cuda/sync/barrier/barrier_handle.hpp"
#include "engine/sync_mode.hpp"

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

class barrier_workspace;

//! A captured step graph kept between runs (mode graph), with what it was captured for.
struct graph_cache {
  std::unique_ptr<step_graph> graph;  //!< the last capture (null: none)
  std::string key;                    //!< the run it belongs to (pointers, sizes, …)
};

//! One multi-step run.
struct step_run {
  sync_mode mode = sync_mode::cpu;        //!< persistent (none included) or launch-based
  int steps = 0;                          //!< grid steps; launch-based modes launch each one
  int blocks = 1;                         //!< grid of the persistent kernel (the handle's n_blocks)
  cudaStream_t stream = nullptr;          //!< stream of every launch
  barrier_workspace* workspace = nullptr; //!< barrier state of the persistent modes (not none)
  bool check = true;                      //!< persistent: synchronise and check the watchdog
  graph_cache* graphs = nullptr;          //!< graph: reuse a capture with graph_key (null: capture,
                                          //!< replay, synchronise and drop it)
  std::string graph_key;                  //!< what a cached capture is valid for
};

//! Launches the persistent kernel with its barrier handle (grid = run.blocks); the mode →
//! template switch (with_sync_mode) is inside.
using persistent_launcher = std::function<void(const barrier_handle& handle)>;
//! A hook on the stream of the run (e.g. recording a CUDA event); may be empty.
using stream_hook = std::function<void(cudaStream_t stream)>;

//! Marks around the launches: start() after the preparation (workspace reset, graph capture),
//! right before the first launch; stop() right after the last one.
struct run_marks {
  stream_hook start;  //!< may be empty
  stream_hook stop;   //!< may be empty
};

//! Runs one multi-step algorithm under run.mode. Persistent modes: prepare the workspace
//! (not for none), start, persistent(handle), stop, then check the watchdog when run.check
//! (barrier_timeout). Launch-based modes: start, step(stream, 0..steps-1) through run_steps()
//! or a graph replay (captured before start), stop. Throws usage_error when the callable the
//! mode needs is empty, swat::cuda_error on CUDA failures.
void run_synchronised(const step_run& run, const persistent_launcher& persistent, const step_launcher& step,
                      const run_marks& marks = {});

}  // namespace swat::barrier

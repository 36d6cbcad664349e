// Launch-based sync modes (see step_driver.cuh).

#include "cuda/sync/barrier/step_driver.cuh"

#include <string>

#include "common/error.hpp"
#include "cuda/common/cuda_check.cuh"
#include "cuda/sync/barrier/barrier_workspace.cuh"

namespace swat::barrier {

void run_steps(sync_mode mode, int steps, cudaStream_t stream, const step_launcher& launch) {
  switch (mode) {
    case sync_mode::cpu:
      for (int s = 0; s < steps; ++s) launch(stream, s);
      return;
    case sync_mode::cpu_explicit:
      for (int s = 0; s < steps; ++s) {
        launch(stream, s);
        SWAT_CUDA_CHECK(cudaStreamSynchronize(stream));
      }
      return;
    case sync_mode::graph: {
      if (steps <= 0) return;
      const step_graph graph(steps, launch);
      graph.replay(stream);
      SWAT_CUDA_CHECK(cudaStreamSynchronize(stream));  // the graph is destroyed on return
      return;
    }
    default:
      throw usage_error("run_steps: sync mode '" + std::string(to_string(mode)) +
                        "' is persistent: launch one kernel through launch_cooperative()");
  }
}

step_graph::step_graph(int steps, const step_launcher& launch) : steps_(steps) {
  cudaStream_t capture = nullptr;
  SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking));
  try {
    SWAT_CUDA_CHECK(cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal));
    try {
      for (int s = 0; s < steps; ++s) launch(capture, s);
    } catch (...) {
      cudaGraph_t broken = nullptr;
      (void)cudaStreamEndCapture(capture, &broken);
      if (broken != nullptr) (void)cudaGraphDestroy(broken);
      throw;
    }
    SWAT_CUDA_CHECK(cudaStreamEndCapture(capture, &graph_));
    SWAT_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  } catch (...) {
    if (graph_ != nullptr) (void)cudaGraphDestroy(graph_);
    (void)cudaStreamDestroy(capture);
    throw;
  }
  SWAT_CUDA_CHECK(cudaStreamDestroy(capture));
}

step_graph::~step_graph() {
  if (exec_ != nullptr) (void)cudaGraphExecDestroy(exec_);
  if (graph_ != nullptr) (void)cudaGraphDestroy(graph_);
}

void step_graph::replay(cudaStream_t stream) const {
  SWAT_CUDA_CHECK(cudaGraphLaunch(exec_, stream));
}

namespace {
void mark(const stream_hook& hook, cudaStream_t stream) {
  if (hook) hook(stream);
}
}  // namespace

void run_synchronised(const step_run& run, const persistent_launcher& persistent, const step_launcher& step,
                      const run_marks& marks) {
  if (is_persistent(run.mode)) {
    if (!persistent)
      throw usage_error("sync mode '" + std::string(to_string(run.mode)) + "': this algorithm has no persistent kernel");
    barrier_handle handle{};
    handle.n_blocks = run.blocks;
    const bool barrier = run.mode != sync_mode::none;
    if (barrier) {
      if (run.workspace == nullptr) throw usage_error("run_synchronised: a persistent mode needs a barrier workspace");
      handle = run.workspace->prepare(run.mode, run.blocks, run.stream);
    }
    mark(marks.start, run.stream);
    persistent(handle);
    mark(marks.stop, run.stream);
    if (barrier && run.check) run.workspace->check(run.stream);
    return;
  }
  if (!step)
    throw usage_error("sync mode '" + std::string(to_string(run.mode)) + "': this algorithm has no step kernel");
  if (run.mode != sync_mode::graph || run.steps <= 0) {
    mark(marks.start, run.stream);
    run_steps(run.mode, run.steps, run.stream, step);
    mark(marks.stop, run.stream);
    return;
  }
  std::unique_ptr<step_graph> own;
  const step_graph* graph = nullptr;
  if (run.graphs != nullptr) {
    if (!run.graphs->graph || run.graphs->key != run.graph_key) {
      run.graphs->graph.reset();
      run.graphs->graph = std::make_unique<step_graph>(run.steps, step);
      run.graphs->key = run.graph_key;
    }
    graph = run.graphs->graph.get();
  } else {
    own = std::make_unique<step_graph>(run.steps, step);
    graph = own.get();
  }
  mark(marks.start, run.stream);
  graph->replay(run.stream);
  mark(marks.stop, run.stream);
  if (own) SWAT_CUDA_CHECK(cudaStreamSynchronize(run.stream));  // the graph is dropped on return
}

}  // namespace swat::barrier

// Launch-based sync modes (see step_driver.cuh).

#include "cuda/sync/barrier/step_driver.cuh"

#include <string>

#include "common/error.hpp"
#include "cuda/common/cuda_check.cuh"

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

}  // namespace swat::barrier

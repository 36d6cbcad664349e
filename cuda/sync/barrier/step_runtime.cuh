#pragma once
// What a multi-step algorithm on the barrier layer (the bundled FFT and sort) keeps between
// calls: a growable device scratch buffer, the barrier workspace of its persistent kernels, the
// last captured step graph (mode graph) and the co-resident caps of its kernels.

#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "cuda/sync/barrier/barrier_workspace.cuh"
#include "cuda/sync/barrier/step_driver.cuh"
#include "cuda/common/cuda_check.cuh"

namespace swat::barrier {

struct step_runtime {
  void* d_scratch = nullptr;                //!< device scratch, grown on demand
  std::size_t scratch_bytes = 0;            //!< size of d_scratch (bytes)
  std::unique_ptr<barrier_workspace> ws;    //!< counters of the persistent modes
  bool ws_used = false;                     //!< the last call used ws (check() reads it)
  int last_blocks = 0;                      //!< grid of the last call (blocks)
  std::unique_ptr<step_graph> graph;        //!< steps captured for mode graph
  std::string graph_key;                    //!< what graph was captured for
  std::map<std::tuple<int, int, std::size_t>, int> caps;  //!< (mode, word bytes, smem) -> blocks

  step_runtime() = default;
  step_runtime(const step_runtime&) = delete;
  step_runtime& operator=(const step_runtime&) = delete;
  ~step_runtime() {
    if (d_scratch) (void)cudaFree(d_scratch);
  }

  //! Co-resident cap of a persistent kernel over words of word_t, computed once per
  //! (mode, word size, smem) by query(mode, smem).
  template <typename word_t, typename query_t>
  int cached_cap(sync_mode mode, std::size_t smem, query_t&& query) {
    const auto key = std::make_tuple(static_cast<int>(mode), static_cast<int>(sizeof(word_t)), smem);
    const auto it = caps.find(key);
    if (it != caps.end()) return it->second;
    return caps[key] = query(mode, smem);
  }

  //! At least bytes of device scratch; growing it drops the captured graph (it holds pointers).
  void* scratch(std::size_t bytes) {
    if (bytes > scratch_bytes) {
      graph.reset();
      graph_key.clear();
      if (d_scratch) SWAT_CUDA_CHECK(cudaFree(d_scratch));
      d_scratch = nullptr;
      scratch_bytes = 0;
      SWAT_CUDA_CHECK(cudaMalloc(&d_scratch, bytes));
      scratch_bytes = bytes;
    }
    return d_scratch;
  }
};

}  // namespace swat::barrier

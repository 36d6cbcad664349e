#pragma once
// What a multi-step study on the barrier layer (the bundled FFT and sort) keeps between calls on
// its device: a grow-only scratch buffer, the barrier workspace of its persistent kernels (grown
// to the grid), the last captured step graph (mode graph) and the co-resident caps of its
// kernels; run() is their shared launch body on top of run_synchronised().

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "cuda/common/device_buffer.hpp"
#include "cuda/common/cuda_check.cuh"
#include "cuda/common/device_context.hpp"
#include "cuda/sync/barrier/barrier_workspace.cuh"
#include "cuda/sync/barrier/step_driver.cuh"

namespace swat::barrier {

struct step_runtime {
  cuda::device_context dev;               //!< the device every call runs on
  cuda::device_buffer scratch_buffer;     //!< device scratch, grown on demand
  std::unique_ptr<barrier_workspace> ws;  //!< counters of the persistent modes
  bool ws_used = false;                   //!< the last call used ws (check() reads it)
  int last_blocks = 0;                    //!< grid of the last call (blocks)
  graph_cache graphs;                     //!< steps captured for mode graph
  std::map<std::tuple<int, int, std::size_t>, int> caps;  //!< (mode, word bytes, smem) -> blocks

  explicit step_runtime(const cuda::device_context& device) : dev(device) {}
  step_runtime(const step_runtime&) = delete;
  step_runtime& operator=(const step_runtime&) = delete;

  //! Co-resident cap of a persistent kernel over words of word_t, computed once per
  //! (mode, word size, smem) by query(dev, mode, smem).
  template <typename word_t, typename query_t>
  int cached_cap(sync_mode mode, std::size_t smem, query_t&& query) {
    const auto key = std::make_tuple(static_cast<int>(mode), static_cast<int>(sizeof(word_t)), smem);
    const auto it = caps.find(key);
    if (it != caps.end()) return it->second;
    return caps[key] = query(dev, mode, smem);
  }

  //! The grid of a run and the co-resident cap of its persistent kernel: a persistent mode
  //! takes requested blocks (> 0) or default_for(cap), at least 1, the cap coming from
  //! cached_cap<word_t>(mode, smem, query); a launch-based mode reports launch_grid (≤ 2^30) and
  //! returns {1, 0}. Sets last_blocks.
  template <typename word_t, typename query_t, typename default_t>
  std::pair<int, int> grid(sync_mode mode, std::size_t smem, int requested, long long launch_grid, query_t&& query,
                           default_t&& default_for) {
    if (!is_persistent(mode)) {
      last_blocks = static_cast<int>(std::min<long long>(launch_grid, 1LL << 30));
      return {1, 0};
    }
    const int cap = cached_cap<word_t>(mode, smem, query);
    const long long want = requested > 0 ? requested : default_for(cap);
    last_blocks = static_cast<int>(std::max<long long>(1, want));
    return {last_blocks, cap};
  }

  //! At least bytes of device scratch; growing it drops the captured graph (it holds pointers).
  void* scratch(std::size_t bytes) {
    if (scratch_buffer.reserve(bytes)) {
      graphs.graph.reset();
      graphs.key.clear();
    }
    return scratch_buffer.data();
  }

  //! Runs steps steps under mode through run_synchronised(): a persistent mode launches
  //! persistent(handle) on blocks blocks (the workspace grows to max(blocks, cap) first; none
  //! needs none) and checks the watchdog when check; a launch mode runs step per step, replaying
  //! the cached graph of graph_key for mode graph.
  void run(sync_mode mode, int steps, int blocks, int cap, bool check, const persistent_launcher& persistent,
           const step_launcher& step, const std::string& graph_key, cudaStream_t stream) {
    step_run r;
    r.mode = mode;
    r.steps = steps;
    r.blocks = blocks;
    r.stream = stream;
    r.check = check;
    r.graphs = &graphs;
    r.graph_key = graph_key;
    ws_used = is_persistent(mode) && mode != sync_mode::none;
    if (ws_used) {
      if (!ws || ws->max_blocks() < blocks) {
        ws.reset();
        ws = std::make_unique<barrier_workspace>(dev, std::max(blocks, cap));
      }
      r.workspace = ws.get();
    }
    run_synchronised(r, persistent, step);
  }

  //! Synchronises stream; throws barrier_timeout when the last persistent run's watchdog fired.
  void check(cudaStream_t stream) {
    if (ws_used && ws) {
      ws->check(stream);
    } else {
      SWAT_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  }
};

}  // namespace swat::barrier

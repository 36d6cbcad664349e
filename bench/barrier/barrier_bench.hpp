#pragma once
// `swat-gpu bench barrier`: the Xiao & Feng 2010 §5.4 microbenchmark (mean of two floats,
// 10,000 rounds, one barrier per round) for every sync mode, block count and blocks-per-SM
// setting. Plain C++ entry point (no CUDA types); its options are parsed in barrier_bench_main.cpp.

#include <iosfwd>
#include <string>
#include <vector>

#include "cuda/common/device_context.hpp"
#include "engine/sync_mode.hpp"

namespace swat::bench {

//! What to measure; empty lists mean "the paper's set".
struct barrier_bench_options {
  int rounds = 10000;                    //!< barriers (steps) per timed run
  int block_threads = 256;               //!< threads per block
  std::vector<int> blocks_per_sm{1, 4};  //!< occupancy forced via dynamic shared memory
  std::vector<int> block_counts;         //!< empty: 8, 16, 33, 66, 132, 264, 528, max (≤ max)
  std::vector<sync_mode> modes;          //!< empty: all_gpu_sync_modes(); none is always run
  int repeats = 3;                       //!< timed runs per point, mean reported (paper: 3)
  int warmup = 1;                        //!< untimed runs per point
  std::string command;                   //!< recorded in the CSV header (how it was run)
  std::string git_commit;                //!< recorded in the CSV header
};

//! One measured point.
struct barrier_bench_row {
  sync_mode mode = sync_mode::none;  //!< mode measured
  int blocks_per_sm = 0;             //!< forced occupancy
  int blocks = 0;                    //!< grid size
  int threads = 0;                   //!< threads per block
  double total_ms = 0;               //!< mean wall time of rounds steps incl. launch (ms)
  double compute_ms = 0;             //!< same kernel with the barrier removed (mode none) (ms)
  double per_barrier_us = 0;         //!< (total - compute) / rounds (µs)
  bool result_ok = true;             //!< output equals the cpu mode's output bit for bit
};

//! Runs the benchmark on dev, prints a table to `table` and, when csv is not null, CSV rows with
//! a commented header (command, commit, device, date). Throws swat::cuda_error, usage_error for
//! bad options.
std::vector<barrier_bench_row> run_barrier_bench(const cuda::device_context& dev,
                                                 const barrier_bench_options& options, std::ostream& table,
                                                 std::ostream* csv);

}  // namespace swat::bench

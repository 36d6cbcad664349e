#pragma once
// The shape planner's device choice: from the size of a search (residues of the queries and the
// targets, strands), one cost model predicts the whole command on the GPU (its start, then the
// database scan's rate, or the pair engine's for a few long × long pairs) and on the CPU engine
// over all its threads; --device auto takes the CPU engine where it is predicted faster, so the
// GPU is never the slower choice for small searches. The engines' own decisions (windows of long
// sides, both strands in one scan, transposition, kernel shapes) come back through
// engine::decisions(); --timing prints both as one `plan:` line.
//
// The rates are measured on the GPU machines and the 2-core development VM (bench/results/
// shapes_h200.csv: scans of 1.3-3.5e12 cells/s, the CPU engine 1.6 GCUPS a thread on 16;
// db_h100.csv; cpu_engine_devvm_t2.csv); the choice matters only near the break-even point
// (about 1e10 cells on 16 threads), where both take a fraction of a second.

#include <cstdint>
#include <string>

namespace swat {

//! What the planner knows of a search.
struct search_size {
  std::uint64_t query_residues = 0;   //!< Σ query lengths
  std::uint64_t target_residues = 0;  //!< Σ target lengths
  std::uint64_t queries = 0;          //!< query records (0: unknown)
  std::uint64_t targets = 0;          //!< target records (0: unknown)
  int strands = 1;                    //!< DNA both strands: 2
  //! DP cells of the search.
  double cells() const { return double(query_residues) * double(target_residues) * strands; }
};

//! The cost model's rates.
struct cost_model {
  double gpu_start_s = 0.35;                  //!< CUDA context, engine and exit (H100 machine: 0.23-0.54 s)
  double gpu_scan_cells_per_s = 2.5e12;       //!< database scan (3.6-4.4e12 measured on protein, less on DNA)
  double gpu_pair_cells_per_s = 0.8e12;       //!< a few long × long pairs on the pair engine (score, traceback)
  double cpu_cells_per_s_per_thread = 2.0e9;  //!< CPU engine, whole search (1.1-2.8e9 measured per thread)
  //! Scans predicted shorter than this on one GPU (at gpu_scan_cells_per_s) keep to one: every
  //! further visible GPU adds 0.1-0.3 s to CUDA's start and ~0.12 s for its context, and saves
  //! at most 40 % of the scan (2 × H200, 7 queries × Swiss-Prot ×50: scan 0.53 → 0.34 s, whole
  //! 0.98-1.03 s on one GPU, 1.10-1.24 s on two; bench/results/multigpu_start_h200x2.txt).
  double multi_gpu_min_scan_s = 1.0;
};

//! The planner's prediction and choice.
struct device_plan {
  double gpu_s = 0;         //!< predicted whole-search seconds on the GPU
  double cpu_s = 0;         //!< … on the CPU engine with cpu_threads threads
  unsigned cpu_threads = 1;
  bool use_cpu = false;     //!< the CPU engine is predicted faster
  bool one_gpu = false;     //!< the GPU scan is predicted short: the other GPUs are left out
  //! One phrase for notices and --timing: "CPU engine on 16 threads (predicted 0.04 s; GPU 0.36 s)",
  //! "one GPU (predicted 0.97 s; …)".
  std::string describe() const;
};

//! Predicts the search on both devices (threads: the CPU engine's, ≥ 1).
device_plan plan_device(const search_size& size, unsigned threads, const cost_model& model = {});

//! The residues of a FASTA file estimated from its size in bytes (headers and line ends taken
//! off at ~2 %, gzip at 4× compression); 0 when the path is not a regular file (standard input).
std::uint64_t estimated_residues(const std::string& path);

}  // namespace swat

#pragma once
// Sync modes: how the blocks of a grid wait for each other between steps. Host code (the seam
// between the CLI and the GPU engines, plain C++ in every build): --sync is parsed here once into
// a sync_mode, and the barrier layer (cuda/sync/barrier) turns it into a template argument
// (with_sync_mode.cuh). The barriers' layout arithmetic lives in cuda/sync/barrier/barrier_layout.hpp.

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace swat {

//! How the blocks of a grid wait for each other between steps.
enum class sync_mode {
  cpu,           //!< one kernel launch per step, stream-ordered (CPU implicit sync)
  cpu_explicit,  //!< launch + cudaStreamSynchronize per step (CPU explicit sync)
  graph,         //!< the step launches captured once into a CUDA graph, then replayed
  simple,        //!< Xiao & Feng 2010 §5.1: one atomic counter, goal += N per barrier
  tree,          //!< Xiao & Feng 2010 §5.2: 2-level counter tree, m = ceil(sqrt(N)) groups
  tree3,         //!< Xiao & Feng 2010 §5.2: 3-level counter tree
  lockfree,      //!< Xiao & Feng 2010 §5.3: per-block in/out flags, block 0 is the master
  cg,            //!< cooperative_groups::this_grid().sync(), the modern baseline
  flag,          //!< ours: counter + one release flag on its own line (see barrier.cuh)
  stripe,        //!< ours: striped arrival counters, warp-parallel polling (see barrier.cuh)
  lastin,        //!< ours: one counter, the last arriver leaves at once, staggered pollers
  none,          //!< barrier removed: compute-only timing, never for correct results
};

//! Parses a CLI name ("cpu", "cpu-explicit", "graph", "simple", "tree" or "tree2", "tree3",
//! "lockfree", "cg", "flag", "stripe", "lastin"; "none" only when allow_none). Throws
//! swat::usage_error that lists the valid names.
sync_mode parse_sync_mode(std::string_view name, bool allow_none = false);

//! CLI name of a mode ("cpu-explicit" for cpu_explicit).
std::string_view to_string(sync_mode mode);

//! Comma-separated list of the user-facing names (for --help and error messages).
std::string sync_mode_names();

//! True for modes that run as one persistent kernel with an in-kernel grid barrier (these need
//! a cooperative launch); false for cpu, cpu_explicit, graph; true for none (same kernel).
bool is_persistent(sync_mode mode);

//! Every mode that gives correct results on the GPU, launch-based and persistent (not none),
//! in enum order.
std::span<const sync_mode> all_gpu_sync_modes();

//! The persistent (in-kernel) modes only: simple, tree, tree3, lockfree, cg, flag, stripe,
//! lastin.
std::span<const sync_mode> persistent_sync_modes();

}  // namespace swat

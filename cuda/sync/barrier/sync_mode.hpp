#pragma once
// Sync modes of the barrier layer and the host-side arithmetic behind them (plain C++: also
// compiled in CPU-only builds, library swat_barrier_host). Device barriers: barrier.cuh; launch
// drivers: step_driver.cuh; workspace: barrier_workspace.cuh.

#include <cstdint>
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

namespace barrier {

//! Number of groups of the 2-level tree: m = ceil(sqrt(n_blocks)) (Xiao & Feng 2010, eq. 8).
int tree_group_count(int n_blocks);

//! Block counts of the 2-level tree groups, in block order (Xiao & Feng 2010 §5.2): m groups of
//! m when m*m == N, else m-1 groups of floor(N/(m-1)) and a last group of the rest; a last
//! group that would be empty is dropped. N = 1 gives {1}. Throws usage_error for N < 1.
std::vector<int> tree2_group_sizes(int n_blocks);

//! 3-level tree, "calculated in a similar way" (§5.2): k = ceil(cbrt(N)) super groups split by
//! the same rule with k in place of m (k*k*k == N gives k groups of k*k), each super group then
//! split by tree2_group_sizes. Result: for each super group, its leaf group sizes.
std::vector<std::vector<int>> tree3_group_sizes(int n_blocks);

//! One block's route up a counter tree: the counter node it arrives at on each level
//! (node[levels-1] is the root), the fan-in of that node, and how many levels it climbs
//! (1 = arrives at its leaf only; a group's first block climbs on to the next level).
struct tree_path {
  std::int32_t node[3];   //!< counter index per level (leaf first)
  std::int32_t fanin[3];  //!< arrivals per barrier at that counter
  std::int32_t climb;     //!< levels this block arrives at, 1..levels
  std::int32_t levels;    //!< 2 for tree, 3 for tree3
};

//! Routes of all n_blocks blocks for tree (levels 2) or tree3 (levels 3); throws usage_error
//! for another level count or N < 1. Counters are numbered leaves first, root last.
std::vector<tree_path> tree_paths(int n_blocks, int levels);

//! Number of counters a tree of that many levels over n_blocks uses.
int tree_node_count(int n_blocks, int levels);

//! Block counts of the Xiao & Feng §5.4 benchmark: 8, 16, 33, 66, 132, 264, 528 and max_blocks,
//! those ≤ max_blocks, ascending and unique.
std::vector<int> bench_block_counts(int max_blocks);

//! Grid sizes for stress tests: 2, 3, 5, 8, 17, 33, 64, sms, sms+1, 2*sms, max_blocks (≤ max).
std::vector<int> stress_grid_sizes(int sms, int max_blocks);

//! Blocks for a persistent kernel with work_items independent items: min(work_items, cap),
//! at least 1. Throws usage_error when cap < 1 (kernel cannot be resident at all).
int persistent_grid_blocks(long long work_items, int cap);

//! Number of striped arrival counters for the stripe barrier: 32 lanes of one polling warp at
//! most, about one counter per 16 blocks, at least 1.
int stripe_count(int n_blocks);

}  // namespace barrier
}  // namespace swat

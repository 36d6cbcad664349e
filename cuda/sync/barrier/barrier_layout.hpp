#pragma once
// Host-side arithmetic of the grid barriers (plain C++, also built in CPU-only configurations:
// library swat_barrier_host): tree groups and routes (Xiao & Feng 2010 §5.2), stripe counts,
// and the grid sizes of the benchmark and the stress tests. Device barriers: barrier.cuh;
// workspace: barrier_workspace.cuh.

#include <cstdint>
#include <vector>

#include "engine/sync_mode.hpp"

namespace swat {

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

// Barrier layout arithmetic (see barrier_layout.hpp).

#include "cuda/sync/barrier/barrier_layout.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"

namespace swat {
namespace {

//! Smallest m with m^k >= n (integer k-th root, rounded up).
int ceil_root(int n, int k) {
  int m = static_cast<int>(std::floor(std::pow(static_cast<double>(n), 1.0 / k)));
  m = std::max(m, 1);
  auto power = [k](long long b) {
    long long p = 1;
    for (int e = 0; e < k; ++e) p *= b;
    return p;
  };
  while (power(m) < n) ++m;
  while (m > 1 && power(m - 1) >= n) --m;
  return m;
}

//! The paper's split of n items into m groups (equal_size when m groups of n/m are exact).
std::vector<int> paper_split(int n, int m, bool exact) {
  if (m <= 1 || exact) return std::vector<int>(static_cast<std::size_t>(m), n / m);
  const int size = n / (m - 1);
  std::vector<int> sizes(static_cast<std::size_t>(m - 1), size);
  const int rest = n - size * (m - 1);
  if (rest > 0) sizes.push_back(rest);
  return sizes;
}

void require_blocks(int n_blocks) {
  if (n_blocks < 1)
    throw usage_error("barrier: grid needs at least 1 block, got " + std::to_string(n_blocks));
}

}  // namespace

namespace barrier {

int tree_group_count(int n_blocks) {
  require_blocks(n_blocks);
  return ceil_root(n_blocks, 2);
}

std::vector<int> tree2_group_sizes(int n_blocks) {
  const int m = tree_group_count(n_blocks);
  return paper_split(n_blocks, m, m * m == n_blocks);
}

std::vector<std::vector<int>> tree3_group_sizes(int n_blocks) {
  require_blocks(n_blocks);
  const int k = ceil_root(n_blocks, 3);
  std::vector<std::vector<int>> result;
  for (int super_size : paper_split(n_blocks, k, k * k * k == n_blocks)) {
    result.push_back(tree2_group_sizes(super_size));
  }
  return result;
}

std::vector<tree_path> tree_paths(int n_blocks, int levels) {
  require_blocks(n_blocks);
  if (levels != 2 && levels != 3)
    throw usage_error("barrier: tree levels must be 2 or 3, got " + std::to_string(levels));
  std::vector<std::vector<int>> supers;
  if (levels == 2) {
    supers.push_back(tree2_group_sizes(n_blocks));
  } else {
    supers = tree3_group_sizes(n_blocks);
  }
  int leaf_count = 0;
  for (const auto& s : supers) leaf_count += static_cast<int>(s.size());
  const int mid_base = leaf_count;  // tree3 only
  const int root = levels == 2 ? leaf_count : leaf_count + static_cast<int>(supers.size());
  std::vector<tree_path> paths;
  paths.reserve(static_cast<std::size_t>(n_blocks));
  int leaf = 0;
  for (std::size_t s = 0; s < supers.size(); ++s) {
    for (std::size_t g = 0; g < supers[s].size(); ++g, ++leaf) {
      for (int b = 0; b < supers[s][g]; ++b) {
        tree_path p{};
        p.levels = levels;
        p.node[0] = leaf;
        p.fanin[0] = supers[s][g];
        if (levels == 2) {
          p.node[1] = root;
          p.fanin[1] = static_cast<int>(supers[0].size());
          p.climb = b == 0 ? 2 : 1;
        } else {
          p.node[1] = mid_base + static_cast<int>(s);
          p.fanin[1] = static_cast<int>(supers[s].size());
          p.node[2] = root;
          p.fanin[2] = static_cast<int>(supers.size());
          p.climb = b != 0 ? 1 : (g == 0 ? 3 : 2);
        }
        paths.push_back(p);
      }
    }
  }
  return paths;
}

int tree_node_count(int n_blocks, int levels) {
  const auto paths = tree_paths(n_blocks, levels);
  return paths.back().node[levels - 1] + 1;
}

std::vector<int> bench_block_counts(int max_blocks) {
  std::vector<int> counts;
  for (int n : {8, 16, 33, 66, 132, 264, 528}) {
    if (n <= max_blocks) counts.push_back(n);
  }
  if (max_blocks >= 1) counts.push_back(max_blocks);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

std::vector<int> stress_grid_sizes(int sms, int max_blocks) {
  std::vector<int> sizes;
  for (int n : {2, 3, 5, 8, 17, 33, 64, sms, sms + 1, 2 * sms, max_blocks}) {
    if (n >= 2 && n <= max_blocks) sizes.push_back(n);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

int persistent_grid_blocks(long long work_items, int cap) {
  if (cap < 1)
    throw usage_error(
        "persistent kernel cannot be resident (occupancy 0): reduce block size "
        "or shared memory");
  return static_cast<int>(std::clamp<long long>(work_items, 1, cap));
}

int stripe_count(int n_blocks) {
  require_blocks(n_blocks);
  return std::clamp((n_blocks + 15) / 16, 1, 32);
}

}  // namespace barrier
}  // namespace swat

#pragma once
// Helpers shared by the GPU barrier tests: skip without a device, env-tunable phase counts.

#include <gtest/gtest.h>

#include <cstdlib>
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/common/cuda_check.hpp"
#include "support/gpu_test.hpp"

namespace swat::barrier::test {

//! SWAT_LONG=1 (or the older SWAT_STRESS_LONG=1): the long variants (10^6 phases on every grid
//! size); the default sizes keep the binary under a minute on one H100.
inline bool stress_long() {
  for (const char* name : {"SWAT_LONG", "SWAT_STRESS_LONG"})
    if (const char* l = std::getenv(name); l != nullptr && std::string(l) == "1") return true;
  return false;
}

//! Phases per stress configuration: SWAT_STRESS_PHASES, else 1e6 on long runs, else 1e5 (the
//! issue's minimum).
inline int stress_phases() {
  if (const char* s = std::getenv("SWAT_STRESS_PHASES")) return std::max(1, std::atoi(s));
  return stress_long() ? 1000000 : 100000;
}

//! Phases on a grid of `blocks` blocks: stress_phases(), except that by default grids beyond 2 × SMs
//! (up to 32 blocks per SM) run proportionally fewer (at least 10^4), so that each configuration
//! costs about as much as the 2 × SMs grid; SWAT_STRESS_PHASES and long runs use their count
//! everywhere.
inline int stress_phases_for(int blocks, int sms) {
  const int p = stress_phases();
  if (std::getenv("SWAT_STRESS_PHASES") != nullptr || stress_long() || blocks <= 2 * sms) return p;
  return std::max(10000, static_cast<int>(static_cast<long long>(p) * 2 * sms / blocks));
}

//! The grid sizes of one block size: on long runs all of `all`; by default every third size,
//! offset by the block size's index (so that the three block sizes cover every size between them),
//! and always the largest.
inline std::vector<int> stress_grids_of(const std::vector<int>& all, std::size_t thread_index) {
  if (stress_long() || all.size() <= 2) return all;
  std::vector<int> out;
  for (std::size_t k = 0; k + 1 < all.size(); ++k)
    if (k % 3 == thread_index % 3) out.push_back(all[k]);
  out.push_back(all.back());
  return out;
}

//! Largest grid tested (SWAT_STRESS_MAX_BLOCKS caps it, e.g. under compute-sanitizer).
inline int stress_block_cap() {
  if (const char* s = std::getenv("SWAT_STRESS_MAX_BLOCKS")) return std::max(2, std::atoi(s));
  return 1 << 30;
}

//! Block sizes of the stress runs: SWAT_STRESS_THREADS (comma list), else 32, 256, 1024.
inline std::vector<int> stress_thread_sizes() {
  std::vector<int> sizes;
  if (const char* s = std::getenv("SWAT_STRESS_THREADS")) {
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');) {
      if (!item.empty()) sizes.push_back(std::atoi(item.c_str()));
    }
  }
  if (sizes.empty()) sizes = {32, 256, 1024};
  return sizes;
}

}  // namespace swat::barrier::test

//! First statement of every GPU test: skips cleanly on machines without a CUDA device (CI).
#define SWAT_REQUIRE_GPU()                                                   \
  do {                                                                       \
    if (!::swat::cuda::device_available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

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

//! Phases per stress configuration: SWAT_STRESS_PHASES, else 1e6 when SWAT_STRESS_LONG=1,
//! else 1e5 (the issue's minimum).
inline int stress_phases() {
  if (const char* s = std::getenv("SWAT_STRESS_PHASES")) return std::max(1, std::atoi(s));
  if (const char* l = std::getenv("SWAT_STRESS_LONG"); l != nullptr && std::string(l) == "1")
    return 1000000;
  return 100000;
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

#pragma once
// Test support shared by the GPU engine tests: device check, short runs, random residues.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "common/scoring_scheme.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/common/device_context.hpp"

//! Skips the calling test when no CUDA device is usable (CI has none).
#define SWAT_REQUIRE_DEVICE() \
  if (!::swat::cuda::device_available()) GTEST_SKIP() << "no CUDA device"

namespace swat::test {

//! Device 0, the one every GPU test runs on (after SWAT_REQUIRE_DEVICE; built on first use).
inline const cuda::device_context& test_device() {
  static const cuda::device_context dev(0);
  return dev;
}

//! SWAT_SHORT=1 shrinks the test sets (sanitizer runs).
inline bool short_run() { return std::getenv("SWAT_SHORT") != nullptr; }

//! SWAT_LONG=1 runs the long variants (the default sizes keep each GPU test binary under a
//! minute on one H100; scripts/gpu-check long runs these in their own device call).
inline bool long_run() {
  const char* l = std::getenv("SWAT_LONG");
  return l != nullptr && std::string(l) == "1";
}

//! A test-set size: `normal` by default, `small` on short runs, `large` on long runs.
inline int test_size(int small, int normal, int large) {
  return short_run() ? small : long_run() ? large : normal;
}

//! Random ranks of the scheme's alphabet (DNA: A/C/G/T, N one time in 50; protein: the 20
//! amino acids and now and then B, Z, X, …).
inline std::vector<std::uint8_t> random_residues(std::mt19937& rng, std::int64_t length,
                                                 const scoring_scheme& s) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(length));
  const int common = s.alphabet == alphabet_kind::dna ? 4 : 20;
  for (auto& r : out) {
    const bool rare = std::uniform_int_distribution<int>(0, 49)(rng) == 0;
    r = static_cast<std::uint8_t>(rare ? std::uniform_int_distribution<int>(common, s.size() - 1)(rng)
                                       : std::uniform_int_distribution<int>(0, common - 1)(rng));
  }
  return out;
}

}  // namespace swat::test

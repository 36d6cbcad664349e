#pragma once
// Helpers of the paper-engine tests: device check, kernel × mode grid, random pairs, schemes.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "common/alphabet.hpp"
#include "common/scoring_scheme.hpp"
#include "engine/sync_mode.hpp"
#include "cuda/common/cuda_check.hpp"
#include "support/gpu_test.hpp"
#include "cuda/engines/paper/code_layout.hpp"
#include "scoring/scoring.hpp"

namespace swat::paper::test {

using swat::test::random_residues;
using swat::test::short_run;

//! The three schemes of the issue: DNA 2/-3/5/2, BLOSUM62 11/1, BLOSUM45 10/2.
inline std::vector<scoring_scheme> schemes() {
  return {scoring::make_dna_scheme(2, -3, 5, 2), scoring::make_protein_scheme("BLOSUM62", 11, 1),
          scoring::make_protein_scheme("BLOSUM45", 10, 2)};
}

//! A target of length n: either random or a mutated copy of query (substitutions, indels).
inline std::vector<std::uint8_t> related_or_random(std::mt19937& rng, const std::vector<std::uint8_t>& q,
                                                   std::int64_t n, const scoring_scheme& s) {
  std::vector<std::uint8_t> t;
  if (std::uniform_int_distribution<int>(0, 2)(rng) != 0 && !q.empty()) {
    const auto noise = random_residues(rng, 4 * n + 8, s);
    std::size_t k = 0;
    for (std::size_t x = 0; x < q.size() && std::int64_t(t.size()) < n; ++x) {
      const int e = std::uniform_int_distribution<int>(0, 19)(rng);
      if (e == 0) continue;                          // deletion
      if (e == 1) t.push_back(noise[k++ % noise.size()]);  // insertion
      t.push_back(e == 2 ? noise[k++ % noise.size()] : q[x]);  // substitution or copy
    }
    const std::int64_t shift = std::uniform_int_distribution<std::int64_t>(0, 3)(rng);
    t.insert(t.begin(), noise.begin(), noise.begin() + shift);
  }
  const auto pad = random_residues(rng, n, s);
  while (std::int64_t(t.size()) < n) t.push_back(pad[t.size()]);
  t.resize(static_cast<std::size_t>(n));
  return t;
}

//! Every kernel × every GPU sync mode.
inline std::vector<std::tuple<kernel_kind, sync_mode>> kernel_modes() {
  std::vector<std::tuple<kernel_kind, sync_mode>> out;
  for (kernel_kind k : {kernel_kind::diagonal, kernel_kind::coalesced, kernel_kind::tiled})
    for (sync_mode m : all_gpu_sync_modes()) out.emplace_back(k, m);
  return out;
}

//! gtest name of a kernel × mode.
inline std::string kernel_mode_name(const testing::TestParamInfo<std::tuple<kernel_kind, sync_mode>>& info) {
  std::string s = std::string(to_string(std::get<0>(info.param))) + "_" +
                  std::string(to_string(std::get<1>(info.param)));
  for (char& c : s)
    if (c == '-') c = '_';
  return s;
}

}  // namespace swat::paper::test

#pragma once
// Helpers of the fast-engine tests: device check, schemes, random and related pairs, sizes
// around the strip, warp and block borders of both fill variants.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "common/scoring_scheme.hpp"
#include "cuda/common/cuda_check.hpp"
#include "support/gpu_test.hpp"
#include "scoring/scoring.hpp"

namespace swat::fast::test {

using swat::test::random_residues;
using swat::test::short_run;

//! DNA 2/-3/5/2 (blastn), BLOSUM62 11/1 (blastp), BLOSUM45 10/2, DNA 1/-1/0/1 (many ties).
inline std::vector<scoring_scheme> schemes() {
  return {scoring::make_dna_scheme(2, -3, 5, 2), scoring::make_protein_scheme("BLOSUM62", 11, 1),
          scoring::make_protein_scheme("BLOSUM45", 10, 2), scoring::make_dna_scheme(1, -1, 0, 1)};
}

//! Lengths at the borders: rows per thread (8, 16), warp strips (256, 512; 16-bit halves of 512
//! and strips of 1024), blocks of 4 strips (1024, 2048, 4096) and chunks of 32 columns, each ±1.
inline std::vector<std::int64_t> border_lengths() {
  std::vector<std::int64_t> out;
  for (std::int64_t b : {1, 8, 16, 32, 63, 64, 256, 512, 768, 1024, 1536, 2048, 3072, 4096})
    for (std::int64_t d : {-1, 0, 1})
      if (b + d >= 1) out.push_back(b + d);
  return out;
}

//! A target of length n: random (1 in 3) or a mutated copy of a random window of q
//! (substitutions, insertions, deletions), padded with random residues.
inline std::vector<std::uint8_t> related_or_random(std::mt19937& rng, const std::vector<std::uint8_t>& q,
                                                   std::int64_t n, const scoring_scheme& s) {
  std::vector<std::uint8_t> t;
  const auto noise = random_residues(rng, 2 * n + 8, s);
  std::size_t k = 0;
  if (std::uniform_int_distribution<int>(0, 2)(rng) != 0 && !q.empty()) {
    const std::size_t shift = std::uniform_int_distribution<std::size_t>(0, std::min<std::size_t>(q.size() - 1, 40))(rng);
    const std::size_t lead = std::uniform_int_distribution<std::size_t>(0, 40)(rng);
    for (std::size_t x = 0; x < lead; ++x) t.push_back(noise[k++ % noise.size()]);
    for (std::size_t x = shift; x < q.size() && std::int64_t(t.size()) < n; ++x) {
      const int e = std::uniform_int_distribution<int>(0, 19)(rng);
      if (e == 0) continue;                                    // deletion
      if (e == 1) t.push_back(noise[k++ % noise.size()]);      // insertion
      t.push_back(e == 2 ? noise[k++ % noise.size()] : q[x]);  // substitution or copy
    }
  }
  while (std::int64_t(t.size()) < n) t.push_back(noise[k++ % noise.size()]);
  t.resize(static_cast<std::size_t>(n));
  return t;
}

}  // namespace swat::fast::test

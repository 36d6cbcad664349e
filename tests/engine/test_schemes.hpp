#pragma once
// Scoring schemes and random sequences for the engine tests, built by hand (no dependency on
// src/scoring).

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/alphabet.hpp"
#include "common/scoring_scheme.hpp"

namespace swat::test {

//! DNA scheme: match (A/C/G/T only) vs mismatch (N never matches), gap open/extend.
inline scoring_scheme dna_scheme(int match = 2, int mismatch = -3, int open = 5, int extend = 2) {
  scoring_scheme s;
  s.alphabet = alphabet_kind::dna;
  for (int a = 0; a < dna_size; ++a)
    for (int b = 0; b < dna_size; ++b)
      s.matrix[a * matrix_stride + b] = (a == b && a != dna_n_rank) ? match : mismatch;
  s.gap_open = open;
  s.gap_extend = extend;
  s.matrix_name = "match " + std::to_string(match) + " mismatch " + std::to_string(mismatch);
  return s;
}

//! Random symmetric 27×27 protein-like matrix: diagonal in [1, 11], elsewhere in [-4, 3].
inline scoring_scheme protein_scheme(std::uint32_t seed, int open, int extend) {
  std::mt19937 rng(seed);
  scoring_scheme s;
  s.alphabet = alphabet_kind::protein;
  for (int a = 0; a < protein_size; ++a) {
    s.matrix[a * matrix_stride + a] = std::uniform_int_distribution<int>(1, 11)(rng);
    for (int b = a + 1; b < protein_size; ++b) {
      const int v = std::uniform_int_distribution<int>(-4, 3)(rng);
      s.matrix[a * matrix_stride + b] = s.matrix[b * matrix_stride + a] = v;
    }
  }
  s.gap_open = open;
  s.gap_extend = extend;
  s.matrix_name = "random27";
  return s;
}

//! n ranks drawn uniformly from [0, alphabet).
inline std::vector<std::uint8_t> random_residues(std::mt19937& rng, std::size_t n, int alphabet) {
  std::vector<std::uint8_t> v(n);
  std::uniform_int_distribution<int> d(0, alphabet - 1);
  for (auto& r : v) r = std::uint8_t(d(rng));
  return v;
}

//! A copy of src with point substitutions and short indels at the given rate (per residue).
inline std::vector<std::uint8_t> mutate(std::mt19937& rng, const std::vector<std::uint8_t>& src,
                                        int alphabet, double rate) {
  std::vector<std::uint8_t> out;
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> r(0, alphabet - 1);
  for (std::size_t k = 0; k < src.size(); ++k) {
    const double x = u(rng);
    if (x < rate / 3) continue;                                   // deletion
    if (x < 2 * rate / 3) out.push_back(std::uint8_t(r(rng)));   // insertion
    out.push_back(x < rate ? std::uint8_t(r(rng)) : src[k]);     // substitution
  }
  return out;
}

//! The first record of a FASTA file encoded with table (letters outside it skipped); a tiny
//! local reader for the real-data tests. Throws when the file cannot be opened.
inline std::vector<std::uint8_t> read_first_record(const std::filesystem::path& path,
                                                   const std::array<std::uint8_t, 256>& table) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::vector<std::uint8_t> out;
  std::string line;
  bool in_record = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '>') {
      if (in_record) break;
      in_record = true;
      continue;
    }
    for (unsigned char c : line)
      if (table[c] != invalid_rank) out.push_back(table[c]);
  }
  return out;
}

}  // namespace swat::test

#pragma once
// A scoring scheme for local alignment with affine gaps (Gotoh 1982).
// A gap of length k costs gap_open + k * gap_extend (BLAST/SeqAn3 convention): with
// gap_open 5 and gap_extend 2 a one-residue gap costs 7.
// Plain data, no library types: it is copied as-is into GPU constant memory.

#include <array>
#include <cstdint>
#include <string>

#include "common/alphabet.hpp"

namespace swat {

struct scoring_scheme {
  //! Alphabet the matrix is indexed by (ranks of common/alphabet.hpp).
  alphabet_kind alphabet = alphabet_kind::dna;
  //! Substitution scores, matrix[a * matrix_stride + b] for ranks a (query) and b (target).
  std::array<std::int32_t, matrix_stride * matrix_stride> matrix{};
  //! Gap open penalty (≥ 0, subtracted once per gap).
  std::int32_t gap_open = 5;
  //! Gap extension penalty (≥ 0, subtracted once per gap residue; > 0 unless open > 0).
  std::int32_t gap_extend = 2;
  //! Human-readable name of the substitution scores, e.g. "match 2 mismatch -3" or "BLOSUM62".
  std::string matrix_name;
  //! Read from a --matrix-file (never equal to a built-in matrix of the same name and scores:
  //! such a scheme keeps the classic E-value formula, as documented).
  bool from_file = false;

  //! Substitution score of query rank a against target rank b.
  std::int32_t score(std::uint8_t a, std::uint8_t b) const { return matrix[a * matrix_stride + b]; }
  //! Number of ranks used (5 for DNA, 27 for protein).
  int size() const { return alphabet == alphabet_kind::dna ? dna_size : protein_size; }
  //! Largest substitution score (bounds the best score: min(m, n) * max_score()).
  std::int32_t max_score() const {
    std::int32_t best = matrix[0];
    for (int a = 0; a < size(); ++a)
      for (int b = 0; b < size(); ++b) best = best < score(a, b) ? score(a, b) : best;
    return best;
  }
  //! True when the substitution scores do not depend on which side a residue is on: then a
  //! pair's best score is the same with query and target swapped (the gap costs are the same).
  bool symmetric() const {
    for (int a = 0; a < size(); ++a)
      for (int b = 0; b < a; ++b)
        if (score(std::uint8_t(a), std::uint8_t(b)) != score(std::uint8_t(b), std::uint8_t(a))) return false;
    return true;
  }
  //! Same alphabet, scores, gap costs, name and origin.
  friend bool operator==(const scoring_scheme&, const scoring_scheme&) = default;
  //! Smallest substitution score.
  std::int32_t min_score() const {
    std::int32_t worst = matrix[0];
    for (int a = 0; a < size(); ++a)
      for (int b = 0; b < size(); ++b) worst = worst > score(a, b) ? score(a, b) : worst;
    return worst;
  }
};

}  // namespace swat

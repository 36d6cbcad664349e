#pragma once
// Encoded sequences as the pipeline and every engine see them.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/alphabet.hpp"

namespace swat {

//! One FASTA record: name (header's first word), description (the rest), encoded residues.
struct sequence_record {
  std::string name;
  std::string description;
  std::vector<std::uint8_t> residues;
};

//! All records of one input file, encoded in one alphabet.
struct sequence_set {
  std::string file;
  alphabet_kind alphabet = alphabet_kind::dna;
  std::vector<sequence_record> records;
};

//! Encoded residues handed to engines (ranks of common/alphabet.hpp).
using residue_span = std::span<const std::uint8_t>;

//! Complement of a DNA rank: A<->T, C<->G, N (and the other IUPAC codes, encoded N) stays N.
inline std::uint8_t dna_complement(std::uint8_t rank) { return rank < dna_n_rank ? std::uint8_t(3 - rank) : rank; }

//! The reverse complement of encoded DNA.
inline std::vector<std::uint8_t> reverse_complement(residue_span residues) {
  std::vector<std::uint8_t> out(residues.size());
  for (std::size_t i = 0; i < residues.size(); ++i) out[residues.size() - 1 - i] = dna_complement(residues[i]);
  return out;
}

}  // namespace swat

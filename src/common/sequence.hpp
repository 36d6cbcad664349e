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

}  // namespace swat

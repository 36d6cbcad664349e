#pragma once
// Internal to swat_io: the one translation unit that includes SeqAn3 (slow to compile).

#include <string>
#include <vector>

namespace swat::io::detail {

//! One record as SeqAn3 reads it: the header line (without '>') and the residue characters
//! with whitespace removed, not yet validated.
struct raw_record {
  std::string header;
  std::string residues;
};

//! Parses FASTA text (plain, starting at a '>') with seqan3::sequence_file_input over char
//! sequences. Every SeqAn3 or stream exception becomes swat::input_error naming path.
std::vector<raw_record> parse_fasta_text(std::string text, const std::string& path);

}  // namespace swat::io::detail

// libFuzzer: read_fasta on arbitrary bytes (plain text, or gzip when they start with 1f 8b).
// Bad input must end in swat::input_error; what is accepted must hold non-empty records of
// valid ranks.

#include "common/alphabet.hpp"
#include "common/error.hpp"
#include "fuzz_support.hpp"
#include "io/fasta.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const swat::fuzz::memory_file file(data, size);
  using swat::io::alphabet_request;
  for (const auto request : {alphabet_request::auto_detect, alphabet_request::dna, alphabet_request::protein}) {
    try {
      const swat::sequence_set set = swat::io::read_fasta(file.path(), request, [](const std::string&) {});
      const int ranks = set.alphabet == swat::alphabet_kind::dna ? swat::dna_size : swat::protein_size;
      swat::fuzz::require(!set.records.empty(), "an accepted file has records");
      for (const auto& r : set.records) {
        swat::fuzz::require(!r.name.empty() && !r.residues.empty(), "records have a name and residues");
        for (const std::uint8_t rank : r.residues) swat::fuzz::require(rank < ranks, "ranks within the alphabet");
      }
    } catch (const swat::input_error&) {
    }
  }
  return 0;
}

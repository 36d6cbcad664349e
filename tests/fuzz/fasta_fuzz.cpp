// libFuzzer: read_fasta on arbitrary bytes (plain text, or gzip when they start with 1f 8b).
// Bad input must end in swat::input_error; what is accepted must hold non-empty records of
// valid ranks. On plain text the parallel reader (io/fasta_parallel.hpp) must agree with the
// sequential one in 2, 3 and 5 pieces: the same set and warnings, or it gives up, or it throws
// the same message; never a set where the sequential reader throws.

#include <optional>
#include <string>
#include <vector>

#include "common/alphabet.hpp"
#include "common/error.hpp"
#include "fuzz_support.hpp"
#include "io/fasta.hpp"
#include "io/fasta_parallel.hpp"

namespace {

struct outcome {
  std::optional<swat::sequence_set> set;
  std::string message;
  std::vector<std::string> warnings;
};

bool same_records(const swat::sequence_set& a, const swat::sequence_set& b) {
  if (a.alphabet != b.alphabet || a.records.size() != b.records.size()) return false;
  for (std::size_t r = 0; r < a.records.size(); ++r)
    if (a.records[r].name != b.records[r].name || a.records[r].description != b.records[r].description ||
        a.records[r].residues != b.records[r].residues)
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const swat::fuzz::memory_file file(data, size);
  const bool gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  using swat::io::alphabet_request;
  for (const auto request : {alphabet_request::auto_detect, alphabet_request::dna, alphabet_request::protein}) {
    outcome seq;
    try {
      seq.set = swat::io::read_fasta(file.path(), request, [&](const std::string& w) { seq.warnings.push_back(w); });
      const swat::sequence_set& set = *seq.set;
      const int ranks = set.alphabet == swat::alphabet_kind::dna ? swat::dna_size : swat::protein_size;
      swat::fuzz::require(!set.records.empty(), "an accepted file has records");
      for (const auto& r : set.records) {
        swat::fuzz::require(!r.name.empty() && !r.residues.empty(), "records have a name and residues");
        for (const std::uint8_t rank : r.residues) swat::fuzz::require(rank < ranks, "ranks within the alphabet");
      }
    } catch (const swat::input_error& e) {
      seq.message = e.what();
    }
    if (gzip || size == 0) continue;
    for (const int pieces : {2, 3, 5}) {
      outcome par;
      try {
        par.set = swat::io::detail::read_fasta_in_pieces(file.path(), size, pieces, request,
                                                         [&](const std::string& w) { par.warnings.push_back(w); });
        if (!par.set) continue;  // gave up: the sequential reader decides
      } catch (const swat::input_error& e) {
        swat::fuzz::require(!seq.set.has_value(), "pieces throw only where the sequential reader throws");
        swat::fuzz::require(std::string(e.what()) == seq.message, "pieces throw the sequential reader's message");
        swat::fuzz::require(par.warnings == seq.warnings, "pieces warn as the sequential reader before the error");
        continue;
      }
      swat::fuzz::require(seq.set.has_value(), "pieces accept only what the sequential reader accepts");
      swat::fuzz::require(same_records(*par.set, *seq.set), "pieces give the sequential reader's records");
      swat::fuzz::require(par.warnings == seq.warnings, "pieces give the sequential reader's warnings");
    }
  }
  return 0;
}

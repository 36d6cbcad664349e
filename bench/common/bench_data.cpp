// Shared data paths of the benchmarks (see bench_data.hpp).

#include "bench/common/bench_data.hpp"

#include <cstdlib>

#include "common/error.hpp"
#include "io/fasta.hpp"

namespace swat::bench {

std::string shared_data_dir() {
  if (const char* env = std::getenv("SWAT_SHARED_DATA")) return env;
  return SWAT_SHARED_DATA_DIR;
}

std::vector<std::uint8_t> read_dna(const std::string& relative) {
  const auto set = io::read_fasta(shared_data_dir() + "/" + relative, io::alphabet_request::dna, {});
  if (set.records.empty()) throw input_error(relative, "no record");
  return set.records.front().residues;
}

}  // namespace swat::bench

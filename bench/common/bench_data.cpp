// Shared data paths of the benchmarks (see bench_data.hpp).

#include "bench/common/bench_data.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "io/fasta.hpp"

namespace swat::bench {

std::string shared_data_dir() {
  if (const char* env = std::getenv("SWAT_SHARED_DATA")) return env;
  return SWAT_SHARED_DATA_DIR;
}

std::vector<std::uint8_t> read_dna(const std::string& relative) {
  auto set = io::read_fasta(shared_data_dir() + "/" + relative, io::alphabet_request::dna, {});
  if (set.records.empty()) throw input_error(relative, "no record");
  return std::move(set.records.front().residues.own());
}

void write_copies(const std::string& fasta, const std::string& out_path, int copies) {
  std::ifstream in(fasta);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw runtime_failure("cannot read " + fasta);
  std::ofstream out(out_path);
  for (int k = 1; k <= copies; ++k) {
    std::istringstream lines(text.str());
    for (std::string line; std::getline(lines, line);)
      out << (line.rfind('>', 0) == 0 ? ">c" + std::to_string(k) + "_" + line.substr(1) : line) << '\n';
  }
  if (!out) throw runtime_failure("cannot write " + out_path);
}

}  // namespace swat::bench

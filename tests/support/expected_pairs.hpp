#pragma once
// Test support: the pairs of ../shared/data/expected.tsv (scores and coordinates agreed by
// trusted CPU aligners), with their sequences read through swat_io and their scoring scheme.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "common/scoring_scheme.hpp"
#include "io/fasta.hpp"
#include "scoring/scoring.hpp"

namespace swat::test {

//! One row of expected.tsv with its sequences.
struct expected_pair {
  std::string name;                        //!< "query_file x target_file"
  std::vector<std::uint8_t> query, target;  //!< first record of each file, encoded
  scoring_scheme scheme;                   //!< DNA 2/-3/5/2 or BLOSUM62 11/1, as the row says
  std::int32_t score = 0;
  std::string qb, qe, tb, te;  //!< 1-based inclusive coordinates as written ("n/a" possible)
};

//! Rows of data_dir/expected.tsv whose two files are at most max_file_bytes each.
inline std::vector<expected_pair> read_expected_pairs(
    const std::filesystem::path& data_dir,
    std::uintmax_t max_file_bytes = std::numeric_limits<std::uintmax_t>::max()) {
  auto first_record = [&](const std::string& rel, io::alphabet_request a) {
    return std::move(io::read_fasta((data_dir / rel).string(), a, {}).records.at(0).residues.own());
  };
  std::vector<expected_pair> out;
  std::ifstream in(data_dir / "expected.tsv");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, '\t');) f.push_back(cell);
    if (f.size() < 8) continue;
    if (std::filesystem::file_size(data_dir / f[0]) > max_file_bytes ||
        std::filesystem::file_size(data_dir / f[1]) > max_file_bytes)
      continue;
    const bool dna = f[2].rfind("DNA", 0) == 0;
    const auto a = dna ? io::alphabet_request::dna : io::alphabet_request::protein;
    expected_pair c;
    c.name = f[0] + " x " + f[1];
    c.query = first_record(f[0], a);
    c.target = first_record(f[1], a);
    c.scheme = dna ? scoring::make_dna_scheme(2, -3, 5, 2) : scoring::make_protein_scheme("BLOSUM62", 11, 1);
    c.score = std::stoi(f[3]);
    c.qb = f[4], c.qe = f[5], c.tb = f[6], c.te = f[7];
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace swat::test

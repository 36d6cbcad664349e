#pragma once
// Test support for the command-line tests: DNA text (random, reverse complement, FASTA files of
// reverse complements, records copied out of FASTA files) and tab-separated output split into rows.

#include <cctype>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_process.hpp"

namespace swat::test {

//! Reverse complement of upper-case ACGT text (other letters are kept, reversed).
inline std::string reverse_complement(const std::string& s) {
  std::string out(s.rbegin(), s.rend());
  for (char& c : out) c = c == 'A' ? 'T' : c == 'T' ? 'A' : c == 'C' ? 'G' : c == 'G' ? 'C' : c;
  return out;
}

//! n random bases.
inline std::string random_dna(std::mt19937& rng, std::size_t n) {
  std::string s(n, 'A');
  for (char& c : s) c = "ACGT"[std::uniform_int_distribution<int>(0, 3)(rng)];
  return s;
}

//! Every record of FASTA file `from` reverse-complemented (upper case) into `to`, each header
//! given prefix before its first word.
inline void write_reverse_complements(const std::filesystem::path& from, const std::filesystem::path& to,
                                      const std::string& prefix) {
  std::istringstream in(read_file(from));
  std::string out, header, seq;
  const auto flush = [&] {
    if (!header.empty()) out += ">" + prefix + header + "\n" + reverse_complement(seq) + "\n";
    seq.clear();
  };
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] == '>') {
      flush();
      header = line.substr(1);
    } else {
      for (char c : line)
        if (!std::isspace(static_cast<unsigned char>(c))) seq += char(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  flush();
  write_file(to, out);
}

//! The records of FASTA file `from` whose index (from 0) is in [first, last), written to `to`.
inline void copy_records(const std::filesystem::path& from, const std::filesystem::path& to, int first, int last) {
  std::istringstream in(read_file(from));
  std::string out;
  int record = -1;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] == '>') ++record;
    if (record >= first && record < last) out += line + "\n";
  }
  write_file(to, out);
}

//! Tab-separated rows of text, without comment ('#') and SAM header ('@') lines.
inline std::vector<std::vector<std::string>> tsv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line[0] == '@') continue;
    std::vector<std::string> cols;
    std::istringstream ls(line);
    for (std::string c; std::getline(ls, c, '\t');) cols.push_back(c);
    rows.push_back(cols);
  }
  return rows;
}

}  // namespace swat::test

// E-values and bit scores against BLAST+ itself, as printed: blastp (-comp_based_stats 0 -seg no)
// at BLOSUM62 11/1 and the default gap costs of BLOSUM45, 50, 80, 90 and PAM30, 70, 250, and
// blastn (-task blastn -dust no), against a makeblastdb database of the same FASTA that
// swat-gpu searches. Every alignment both tools report (same query, subject, score and ends)
// must print the same evalue and bitscore strings in at least 97 % of cases, and every one must
// be within 1 % (plus half a unit of the last printed digit).
//
// Data, from ../shared/data, with synthetic homologs so that the E-values span "0.0" … 10:
//  - protein: the first six queries of protein/db_queries.fa (GSTM1, HAHU, CALM, DYR, a
//    myosin-binding protein, the SARS-CoV-2 spike) against the 3,183 Swiss-Prot records of
//    swissprot_subset_mmseqs2.fa plus nine mutated copies of each query (a fixed seed; 40 … 85 %
//    of the residues replaced, 1 % inserted, 1 % deleted);
//  - DNA: eight pieces (80 … 1,500 bases) of the human mitochondrial genome against the
//    orangutan's in 2,000-base records, phage lambda in 4,000-base records, and five mutated
//    copies of each piece (10 … 50 %), every other one reverse-complemented.
// Skips without BLAST+ (Debian: ncbi-blast+) or without the shared data.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support/run_process.hpp"

using swat::test::run_shell;
using swat::test::temp_dir;

namespace {

const std::string binary = SWAT_BINARY;
const std::string shared = std::string(SWAT_SHARED_DATA) + "/";
const char* columns = "qseqid sseqid score qstart qend sstart send evalue bitscore";

bool have(const char* tool) { return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0; }

//! Whether every file (relative to the shared data folder) is there: the tests skip without it.
bool have_data(std::initializer_list<const char*> files) {
  for (const char* f : files)
    if (!std::filesystem::exists(shared + f)) return false;
  return true;
}

using fasta = std::vector<std::pair<std::string, std::string>>;

fasta read_fasta(const std::string& path) {
  fasta records;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line[0] == '>')
      records.emplace_back(line.substr(1), "");
    else if (!records.empty())
      records.back().second += line;
  }
  return records;
}

std::string to_text(const fasta& records) {
  std::string text;
  for (const auto& [name, seq] : records) text += ">" + name + "\n" + seq + "\n";
  return text;
}

//! SplitMix64: the same numbers everywhere.
struct splitmix {
  std::uint64_t x;
  std::uint64_t next() {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
};

//! seq with 1 % of its letters deleted, 1 % of positions given an inserted letter, and a
//! fraction `rate` of the rest replaced by a letter drawn from `letters`.
std::string mutate(const std::string& seq, double rate, splitmix& rng, const std::string& letters) {
  std::string out;
  for (char c : seq) {
    const double u = rng.uniform();
    if (u < 0.01) continue;
    if (u < 0.02) out += letters[rng.next() % letters.size()];
    out += rng.uniform() < rate ? letters[rng.next() % letters.size()] : c;
  }
  return out;
}

//! Runs command in dir (run_shell captures its output there but runs it where the test runs).
swat::test::process_result run_in(const temp_dir& dir, const std::string& command) {
  return run_shell("cd '" + dir.path().string() + "' && " + command, dir);
}

std::string reverse_complement(std::string s) {
  std::reverse(s.begin(), s.end());
  for (char& c : s) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : c == 'T' ? 'A' : c;
  return s;
}

using key = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string, std::string>;
using printed = std::pair<std::string, std::string>;  // evalue, bitscore

//! Rows of "qseqid sseqid score qstart qend sstart send evalue bitscore" by alignment.
std::map<key, printed> rows_of(const std::string& out) {
  std::map<key, printed> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> c;
    std::istringstream l(line);
    for (std::string field; std::getline(l, field, '\t');) c.push_back(field);
    if (c.size() == 9) rows.emplace(key{c[0], c[1], c[2], c[3], c[4], c[5], c[6]}, printed{c[7], c[8]});
  }
  return rows;
}

//! Half a unit of the last digit printed in text ("4.40e-34" → 5e-37, "0.20" → 0.005, "12" → 0.5).
double half_unit(const std::string& text) {
  const std::size_t e = text.find('e'), dot = text.find('.');
  const int decimals = dot == std::string::npos ? 0 : int((e == std::string::npos ? text.size() : e) - dot - 1);
  const int exponent = e == std::string::npos ? 0 : std::atoi(text.c_str() + e + 1);
  return 0.5 * std::pow(10.0, exponent - decimals);
}

//! Whether two printed values are within 1 % of each other, beyond their printing's rounding.
bool within_one_percent(const std::string& a, const std::string& b) {
  if (a == "0.0" || b == "0.0")  // below 1e-180 (or printed as that)
    return std::strtod(a.c_str(), nullptr) < 1.01e-180 && std::strtod(b.c_str(), nullptr) < 1.01e-180;
  const double x = std::strtod(a.c_str(), nullptr), y = std::strtod(b.c_str(), nullptr);
  return std::abs(x - y) <= 0.01 * std::max(x, y) + half_unit(a) + half_unit(b);
}

struct agreement {
  std::size_t agreed = 0, same = 0;
  double smallest = 1e300, largest = 0;  // E-values printed by BLAST, "0.0" aside
  std::size_t zero = 0;                  // "0.0"
};

//! Compares the two outputs (see the file comment) and says how they agree.
agreement compare(const std::string& label, const std::string& blast_out, const std::string& ours_out) {
  const std::map<key, printed> blast = rows_of(blast_out), ours = rows_of(ours_out);
  agreement a;
  std::size_t far = 0;
  for (const auto& [k, b] : blast) {
    const auto it = ours.find(k);
    if (it == ours.end()) continue;
    ++a.agreed;
    const printed& o = it->second;
    if (o == b) ++a.same;
    if (b.first == "0.0") {
      ++a.zero;
    } else {
      a.smallest = std::min(a.smallest, std::strtod(b.first.c_str(), nullptr));
      a.largest = std::max(a.largest, std::strtod(b.first.c_str(), nullptr));
    }
    if ((!within_one_percent(o.first, b.first) || !within_one_percent(o.second, b.second)) && ++far <= 5)
      ADD_FAILURE() << label << ": " << std::get<0>(k) << " x " << std::get<1>(k) << " score " << std::get<2>(k)
                    << ": blast " << b.first << " / " << b.second << ", swat-gpu " << o.first << " / " << o.second;
  }
  std::printf("[ evalues ] %s: %zu of %zu agreed alignments print the same evalue and bitscore (%.1f %%); "
              "BLAST's %zu rows, swat-gpu's %zu; E from %.3g to %.3g, %zu at 0.0\n",
              label.c_str(), a.same, a.agreed, a.agreed ? 100.0 * double(a.same) / double(a.agreed) : 0.0, blast.size(),
              ours.size(), a.smallest, a.largest, a.zero);
  EXPECT_EQ(far, 0u) << label;
  EXPECT_GE(double(a.same), 0.97 * double(a.agreed)) << label;
  return a;
}

//! The protein search's files in dir (queries q.fa, database db.fa and its BLAST database db).
void write_protein_data(const temp_dir& dir) {
  fasta queries = read_fasta(shared + "protein/db_queries.fa");
  ASSERT_GE(queries.size(), 6u);
  queries.resize(6);  // titin aside: 34,350 residues against the whole set is minutes on a CPU
  fasta db = read_fasta(shared + "protein/swissprot_subset_mmseqs2.fa");
  ASSERT_EQ(db.size(), 3183u);
  splitmix rng{42};
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (const int percent : {40, 50, 55, 60, 65, 70, 75, 80, 85})
      db.emplace_back("syn_q" + std::to_string(q) + "_f" + std::to_string(percent),
                      mutate(queries[q].second, percent / 100.0, rng, "ACDEFGHIKLMNPQRSTVWY"));
  swat::test::write_file(dir / "q.fa", to_text(queries));
  swat::test::write_file(dir / "db.fa", to_text(db));
  const auto made = run_in(dir, "makeblastdb -in db.fa -dbtype prot -out db");
  ASSERT_EQ(made.exit_code, 0) << made.err;
}

//! blastp and swat-gpu with one matrix and gap cost pair on the protein data.
agreement blastp_against_swat(const temp_dir& dir, const std::string& matrix, int open, int extend) {
  const std::string label = matrix + " " + std::to_string(open) + "/" + std::to_string(extend);
  const auto blast = run_in(dir, "blastp -query q.fa -db db -comp_based_stats 0 -seg no -max_target_seqs 100000 -matrix " +
                                   matrix + " -gapopen " + std::to_string(open) + " -gapextend " +
                                   std::to_string(extend) + " -outfmt '6 " + columns + "'");
  const auto ours = run_in(dir, binary + " align q.fa db.fa --device cpu --quiet --max-hits 100000 --matrix " + matrix +
                                  " --gap-open " + std::to_string(open) + " --gap-extend " + std::to_string(extend) +
                                  " --outfmt '6 " + columns + "'");
  EXPECT_EQ(blast.exit_code, 0) << blast.err;
  EXPECT_EQ(ours.exit_code, 0) << ours.err;
  return compare(label, blast.out, ours.out);
}

}  // namespace

// The four schemes of the goal: BLOSUM62 11/1 (with E-values from 1e-90 down to 10)
// and BLOSUM45, BLOSUM80 and PAM30 at blastp's default gap costs.
TEST(cli_blast_evalue, blastp_prints_the_same_evalues) {
  if (!have("blastp") || !have("makeblastdb")) GTEST_SKIP() << "no BLAST+ (ncbi-blast+)";
  if (!have_data({"protein/db_queries.fa", "protein/swissprot_subset_mmseqs2.fa"})) GTEST_SKIP() << "no " << shared;
  temp_dir dir;
  write_protein_data(dir);
  const agreement b62 = blastp_against_swat(dir, "BLOSUM62", 11, 1);
  EXPECT_GE(b62.agreed, 100u);
  EXPECT_LT(b62.smallest, 1e-90);
  EXPECT_GT(b62.largest, 1.0);
  EXPECT_GT(b62.zero, 0u);
  for (const auto& [matrix, open, extend] : {std::tuple{"BLOSUM45", 14, 2}, {"BLOSUM80", 10, 1}, {"PAM30", 9, 1}})
    EXPECT_GE(blastp_against_swat(dir, matrix, open, extend).agreed, 50u) << matrix;
}

// The other built-in matrices at their blastp defaults.
TEST(cli_blast_evalue, blastp_prints_the_same_evalues_with_every_builtin_matrix) {
  if (!have("blastp") || !have("makeblastdb")) GTEST_SKIP() << "no BLAST+ (ncbi-blast+)";
  if (!have_data({"protein/db_queries.fa", "protein/swissprot_subset_mmseqs2.fa"})) GTEST_SKIP() << "no " << shared;
  temp_dir dir;
  write_protein_data(dir);
  for (const auto& [matrix, open, extend] :
       {std::tuple{"BLOSUM50", 13, 2}, {"BLOSUM90", 10, 1}, {"PAM70", 10, 1}, {"PAM250", 14, 2}})
    EXPECT_GE(blastp_against_swat(dir, matrix, open, extend).agreed, 50u) << matrix;
}

TEST(cli_blast_evalue, blastn_prints_the_same_evalues) {
  if (!have("blastn") || !have("makeblastdb")) GTEST_SKIP() << "no BLAST+ (ncbi-blast+)";
  if (!have_data({"dna/mt_human.fa", "dna/mt_orang.fa", "dna/lambda_NC_001416.1.fa"})) GTEST_SKIP() << "no " << shared;
  temp_dir dir;
  const auto genome = [](const std::string& file) {  // upper case (the rCRS has one lower-case base)
    std::string s = read_fasta(shared + "dna/" + file).at(0).second;
    for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
  };
  const std::string human = genome("mt_human.fa"), orang = genome("mt_orang.fa");
  const std::string lambda = genome("lambda_NC_001416.1.fa");
  fasta queries, db;
  for (const std::size_t length : {80, 120, 200, 300, 400, 600, 900, 1500}) {
    const std::size_t start = (queries.size() * 1973) % (human.size() - length);
    const std::string name = "mt" + std::to_string(queries.size()) + "_" + std::to_string(start + 1);
    queries.emplace_back(name, human.substr(start, length));
  }
  for (std::size_t i = 0; i < orang.size(); i += 2000)
    db.emplace_back("orang_" + std::to_string(i + 1), orang.substr(i, 2000));
  for (std::size_t i = 0; i < lambda.size(); i += 4000)
    db.emplace_back("lambda_" + std::to_string(i + 1), lambda.substr(i, 4000));
  splitmix rng{7};
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (const int percent : {10, 20, 30, 40, 50}) {
      const std::string copy = mutate(queries[q].second, percent / 100.0, rng, "ACGT");
      db.emplace_back("syn_mt" + std::to_string(q) + "_f" + std::to_string(percent),
                      q % 2 ? reverse_complement(copy) : copy);
    }
  swat::test::write_file(dir / "q.fa", to_text(queries));
  swat::test::write_file(dir / "db.fa", to_text(db));
  const auto made = run_in(dir, "makeblastdb -in db.fa -dbtype nucl -out db");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string outfmt = std::string("-outfmt '6 ") + columns + "'";  // swat-gpu: --outfmt
  const auto blast = run_in(dir, "blastn -task blastn -dust no -query q.fa -db db -max_target_seqs 100000 " + outfmt);
  const auto ours = run_in(dir, binary + " align q.fa db.fa --device cpu --quiet --max-hits 100000 -" + outfmt);
  ASSERT_EQ(blast.exit_code, 0) << blast.err;
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  const agreement a = compare("blastn 2/-3 5/2", blast.out, ours.out);
  EXPECT_GE(a.agreed, 50u);
  EXPECT_GT(a.largest, 1.0);
  EXPECT_GT(a.zero, 0u);
}

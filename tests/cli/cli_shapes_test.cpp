// End to end on the GPU, one test per shape class of `swat-gpu bench shapes` (bench/README.md,
// issue 25): the data at a reduced size (`bench shapes --data-only`), then `align --device gpu`
// must print byte for byte what `--device cpu` prints. Sizes (below) are chosen so that the CPU
// engine takes ~10-20 s on the GPU machine's 16 threads and the GPU a few seconds (each test well
// under a minute). Skips when the build or the machine has no GPU, or the shared data is missing.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/gpu_cli.hpp"
#include "support/run_process.hpp"
#include "support/sequence_text.hpp"

namespace fs = std::filesystem;
using swat::test::copy_records;
using swat::test::first_difference;
using swat::test::gpu_usable;
using swat::test::read_file;
using swat::test::run_shell;
using swat::test::temp_dir;
using swat::test::without_pg;

namespace {

const std::string binary = SWAT_BINARY;

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

//! The shared data folder as `bench shapes` finds it: $SWAT_SHARED_DATA, else the configured one.
fs::path shared_data() {
  const char* env = std::getenv("SWAT_SHARED_DATA");
  return env != nullptr && *env != '\0' ? fs::path(env) : fs::path(SWAT_SHARED_DATA);
}

//! The files of the shared data folder that the generator reads (bench/shapes/shapes_data.cpp).
bool has_shared_data() {
  for (const char* f : {"protein/swissprot_subset_mmseqs2.fa", "dna/spiroplasma_kunkelii_CP010899.1.fa",
                        "dna/spiroplasma_kunkelii_CP010899.1_mutated_seed42.fa", "dna/stx2_phage_II_AP005154.1.fa",
                        "dna/lambda_NC_001416.1.fa"})
    if (!fs::exists(shared_data() / f)) return false;
  return true;
}

//! A shape's query and database FASTA files.
struct shape_files {
  fs::path queries;
  fs::path db;
};

//! Writes shape's data at scale into dir/data with `bench shapes --data-only` (default seed);
//! the test fails when the command does.
shape_files generate(const temp_dir& dir, const std::string& shape, const std::string& scale) {
  const fs::path data = dir / "data";
  const auto r = run_shell("SWAT_SHARED_DATA=" + quoted(shared_data().string()) + " " + binary +
                               " bench shapes --data-only --shapes " + shape + " --scale " + scale + " --data-dir " +
                               quoted(data.string()),
                           dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const fs::path queries = data / (shape + "_queries.fa"), db = data / (shape + "_db.fa");
  return {queries, shape == "all_vs_all" ? queries : db};
}

//! The first record of FASTA file `from`, cut to its first `residues` residues, written to `to`.
void keep_prefix(const fs::path& from, const fs::path& to, std::size_t residues) {
  std::ifstream in(from);
  std::string header, seq;
  for (std::string line; std::getline(in, line) && seq.size() < residues;) {
    if (!line.empty() && line[0] == '>') {
      if (!header.empty()) break;
      header = line;
    } else {
      seq += line;
    }
  }
  swat::test::write_file(to, header + "\n" + seq.substr(0, residues) + "\n");
}

//! Runs `align QUERIES DB --outfmt fmt options` with --device cpu and --device gpu (each into
//! its own file) and expects the same bytes (JSON and SAM: but for the line naming the command
//! and engine). Returns the CPU's output.
std::string expect_gpu_equals_cpu(const temp_dir& dir, const shape_files& f, const std::string& fmt,
                                  const std::string& options) {
  std::string text[2];
  double seconds[2] = {0, 0};
  const char* devices[2] = {"cpu", "gpu"};
  for (int k = 0; k < 2; ++k) {
    const fs::path out = dir / (std::string(devices[k]) + ".out");
    const auto start = std::chrono::steady_clock::now();
    const auto r = run_shell(binary + " align " + quoted(f.queries.string()) + " " + quoted(f.db.string()) +
                                 " --quiet --outfmt " + quoted(fmt) + " " + options + " --device " + devices[k] +
                                 " -o " + quoted(out.string()),
                             dir);
    seconds[k] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.exit_code, 0) << devices[k] << ": " << r.err;
    text[k] = read_file(out);
  }
  std::printf("[ shapes   ] %s, --outfmt '%s' %s: cpu %.1f s, gpu %.1f s\n", f.queries.filename().c_str(), fmt.c_str(),
              options.c_str(), seconds[0], seconds[1]);
  EXPECT_FALSE(text[0].empty()) << fmt;
  if (fmt.rfind("6", 0) == 0)
    EXPECT_TRUE(text[0] == text[1]) << fmt << ": " << first_difference(text[0], text[1]);
  else
    EXPECT_EQ(first_difference(without_pg(text[0]), without_pg(text[1])), "") << fmt;
  return text[0];
}

//! True when some row of tabular output is a minus-strand hit (sstart > send, columns 9 and 10).
bool has_minus_strand_hit(const std::string& tsv) {
  for (const auto& row : swat::test::tsv_rows(tsv))
    if (row.size() >= 10 && std::stoull(row[8]) > std::stoull(row[9])) return true;
  return false;
}

//! Why the tests cannot run here ("" when they can): no usable GPU, or no shared data.
std::string skip_reason(const temp_dir& dir) {
  if (!gpu_usable(dir)) return "no usable GPU engine here";
  if (!has_shared_data()) return "no shared data in " + shared_data().string();
  return "";
}

}  // namespace

// The sizes, and the CPU engine's run on the 2 cores of the development machine in CPU seconds
// (user time; half of it is the wall time on 2 free cores). The GPU machine's 16 threads ran the
// CPU engine 2.4-3.7 times as fast as those 2 cores (protein_db and reads_genome at full size,
// bench/results/shapes_h200.csv), so each CPU run there takes ~10-15 s:
//   protein_db    --scale 0.4: 160 × 12,000 proteins, 3.0e11 cells: 85 s
//   reads_genome  --scale 0.1: 15 reads × 1.46 Mb, both strands, 2.2e11 cells: 66 s, twice (JSON)
//   genes_genome  genes 1 and 2 of --scale 1 (8.8 kb minus, 21 kb plus) × the 4 genomes (2.7 Mb),
//                 both strands, 1.6e11 cells: 53 s
//   all_vs_all    --scale 0.2: 200 × 200 genes, both strands, 3.3e11 cells: 45 s
//   genome_pair   the first 300 kb of each genome, plus strand, 9.0e10 cells: 65 s

// Many short protein queries against many targets: the database scan.
TEST(cli_gpu_shapes, protein_db) {
  temp_dir dir;
  if (const std::string why = skip_reason(dir); !why.empty()) GTEST_SKIP() << why;
  expect_gpu_equals_cpu(dir, generate(dir, "protein_db", "0.4"), "6 std", "");
}

// Reads of 1-10 kb against the 1.46 Mb genome, both strands (every third read is reverse-
// complemented); also as JSON, with every alignment's CIGAR and aligned rows.
TEST(cli_gpu_shapes, reads_genome) {
  temp_dir dir;
  if (const std::string why = skip_reason(dir); !why.empty()) GTEST_SKIP() << why;
  const shape_files f = generate(dir, "reads_genome", "0.1");
  EXPECT_TRUE(has_minus_strand_hit(expect_gpu_equals_cpu(dir, f, "6 std", "")));
  expect_gpu_equals_cpu(dir, f, "json", "");
}

// Genes of 5-50 kb against four genomes of 0.11-1.46 Mb, both strands: the database at full size
// (a --scale below 1 keeps only the smallest genomes; the windows of the long ones are the point
// here), two of the four genes (one on each strand; the other two take ~3 times as long).
TEST(cli_gpu_shapes, genes_genome) {
  temp_dir dir;
  if (const std::string why = skip_reason(dir); !why.empty()) GTEST_SKIP() << why;
  const shape_files full = generate(dir, "genes_genome", "1");
  const shape_files f{dir / "genes_1_2.fa", full.db};
  copy_records(full.queries, f.queries, 1, 3);
  EXPECT_TRUE(has_minus_strand_hit(expect_gpu_equals_cpu(dir, f, "6 std", "")));
}

// Genes of 1-3 kb, every one against every one, both strands.
TEST(cli_gpu_shapes, all_vs_all) {
  temp_dir dir;
  if (const std::string why = skip_reason(dir); !why.empty()) GTEST_SKIP() << why;
  expect_gpu_equals_cpu(dir, generate(dir, "all_vs_all", "0.2"), "6 std", "");
}

// One long pair, plus strand: the first 300 kb of S. kunkelii against the first 300 kb of its
// mutated copy (genome_pair has no --scale; the whole 1.46 Mb pair, 2.1e12 cells, takes
// minutes on the CPU engine).
TEST(cli_gpu_shapes, genome_pair) {
  temp_dir dir;
  if (const std::string why = skip_reason(dir); !why.empty()) GTEST_SKIP() << why;
  const shape_files full = generate(dir, "genome_pair", "1");
  const shape_files f{dir / "query_300kb.fa", dir / "db_300kb.fa"};
  keep_prefix(full.queries, f.queries, 300000);
  keep_prefix(full.db, f.db, 300000);
  expect_gpu_equals_cpu(dir, f, "6 std", "--strand plus");
}

// Bad input and bad usage: one line on stderr naming the file (record, position), exit code 2,
// and no output file left behind.

#include <gtest/gtest.h>

#include <filesystem>

#include "support/run_process.hpp"

namespace fs = std::filesystem;
using swat::test::run_shell;
using swat::test::temp_dir;
using swat::test::write_file;

namespace {

const std::string binary = SWAT_BINARY;

struct bad_case {
  std::string name;
  std::string query_text;   // written to q.fa unless empty
  std::string extra_args;   // appended to the command line
  std::vector<std::string> message_parts;
};

std::size_t count_lines(const std::string& s) { return std::size_t(std::count(s.begin(), s.end(), '\n')); }

void expect_clean_failure(const temp_dir& dir, const std::string& args, const std::vector<std::string>& parts,
                          int expected_code = 2) {
  const auto out = dir / "hits.out";
  const std::string device = args.find("--device") == std::string::npos ? " --device cpu" : "";
  const auto r = run_shell(binary + " " + args + device + " -o " + out.string(), dir);
  EXPECT_EQ(r.exit_code, expected_code) << args << "\n" << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("swat-gpu: error: ", 0), 0u) << r.err;
  for (const auto& p : parts) EXPECT_NE(r.err.find(p), std::string::npos) << "'" << p << "' not in: " << r.err;
  EXPECT_FALSE(fs::exists(out)) << "output left behind for " << args;
  for (const auto& entry : fs::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename().string().find("hits.out"), std::string::npos) << entry.path();
}

}  // namespace

class cli_bad_input : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(dir / "t.fa", ">t1\nACGTACGTTTGACAGT\n");
    write_file(dir / "p.fa", ">p1\nMKVLAAGIVWHE\n");
  }
  std::string t() const { return (dir / "t.fa").string(); }
  temp_dir dir;
};

TEST_F(cli_bad_input, missing_file) {
  expect_clean_failure(dir, "align " + (dir / "nope.fa").string() + " " + t(), {"nope.fa"});
}

TEST_F(cli_bad_input, directory) { expect_clean_failure(dir, "align " + dir.path().string() + " " + t(), {dir.path().string()}); }

TEST_F(cli_bad_input, unreadable_file) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file";
  write_file(dir / "q.fa", ">q\nACGT\n");
  fs::permissions(dir / "q.fa", fs::perms::none);
  expect_clean_failure(dir, "align " + (dir / "q.fa").string() + " " + t(), {"q.fa"});
}

TEST_F(cli_bad_input, empty_file) {
  write_file(dir / "q.fa", "");
  expect_clean_failure(dir, "align " + (dir / "q.fa").string() + " " + t(), {"q.fa"});
}

TEST_F(cli_bad_input, not_fasta) {
  write_file(dir / "q.fa", "this is not a FASTA file\nACGT\n");
  expect_clean_failure(dir, "align " + (dir / "q.fa").string() + " " + t(), {"q.fa"});
}

TEST_F(cli_bad_input, binary_garbage) {
  std::string garbage;
  for (int k = 0; k < 4096; ++k) garbage += char((k * 7919 + 13) % 256);
  write_file(dir / "q.fa", garbage);
  expect_clean_failure(dir, "align " + (dir / "q.fa").string() + " " + t(), {"q.fa"});
}

TEST_F(cli_bad_input, binary_garbage_after_header) {
  write_file(dir / "q.fa", std::string(">q\nACGT\0\x01\x02\xff", 12));
  expect_clean_failure(dir, "align " + (dir / "q.fa").string() + " " + t(), {"q.fa"});
}

TEST_F(cli_bad_input, truncated_gz) {
  std::string fasta = ">q\n";
  for (int k = 0; k < 20000; ++k) fasta += "ACGTTGCA"[(k * 31 + k / 7) % 8];
  write_file(dir / "full.fa", fasta);
  ASSERT_EQ(std::system(("gzip -c " + (dir / "full.fa").string() + " > " + (dir / "full.fa.gz").string()).c_str()), 0);
  const std::string gz = swat::test::read_file(dir / "full.fa.gz");
  write_file(dir / "q.fa.gz", gz.substr(0, gz.size() / 2));
  expect_clean_failure(dir, "align " + (dir / "q.fa.gz").string() + " " + t(), {"q.fa.gz"});
}

TEST_F(cli_bad_input, invalid_residue_names_record_and_position) {
  write_file(dir / "q.fa", ">first\nACGT\n>second\nACGTAC\nGT!A\n");
  expect_clean_failure(dir, "align " + (dir / "q.fa").string() + " " + t() + " --alphabet dna",
                       {"q.fa", "second", ":9"});
}

// The default --device auto starts the engine while the inputs are read; on a machine without a
// GPU its "aligning on the CPU" notice must not come on top of the input error.
TEST_F(cli_bad_input, auto_device_bad_input_is_still_one_line) {
  write_file(dir / "q.fa", ">first\nACGT\n>second\nACGTAC\nGT!A\n");
  expect_clean_failure(dir, "align " + (dir / "q.fa").string() + " " + t() + " --alphabet dna --device auto",
                       {"q.fa", "second", ":9"});
}

TEST_F(cli_bad_input, invalid_protein_residue) {
  write_file(dir / "q.fa", ">prot\nMKV1LA\n");
  expect_clean_failure(dir, "align " + (dir / "q.fa").string() + " " + (dir / "p.fa").string() + " --alphabet protein",
                       {"q.fa", "prot", ":4"});
}

TEST_F(cli_bad_input, all_records_empty) {
  write_file(dir / "q.fa", ">a\n>b\n\n>c\n");
  expect_clean_failure(dir, "align " + (dir / "q.fa").string() + " " + t(), {"q.fa"});
}

TEST_F(cli_bad_input, matrix_file_that_does_not_parse) {
  write_file(dir / "bad.mat", "   A  R\nA  4 x\nR -1 5\n");
  expect_clean_failure(dir, "align " + (dir / "p.fa").string() + " " + (dir / "p.fa").string() + " --matrix-file " +
                                (dir / "bad.mat").string(),
                       {"bad.mat"});
}

TEST_F(cli_bad_input, nonsensical_parameters) {
  const std::string base = "align " + t() + " " + t();
  expect_clean_failure(dir, base + " --gap-open=-1", {"gap"});
  expect_clean_failure(dir, base + " --gap-extend=-2", {"gap"});
  expect_clean_failure(dir, base + " --match 0", {"match"});
  expect_clean_failure(dir, base + " --match=-2", {"match"});
  expect_clean_failure(dir, base + " --outfmt blast7", {"blast7"});
  expect_clean_failure(dir, base + " --outfmt 'blast6 nonsense'", {"nonsense"});
  expect_clean_failure(dir, base + " --outfmt '6 qseqid sseqid frames'", {"'frames'", "valid columns"});
  expect_clean_failure(dir, base + " --outfmt '7 qseqid bogus'", {"'bogus'"});
  expect_clean_failure(dir, base + " --outfmt 'sam qseqid'", {"takes no columns"});
  expect_clean_failure(dir, base + " --evalue 0", {"--evalue", "'0'"});
  expect_clean_failure(dir, base + " --evalue=-1", {"--evalue"});
  expect_clean_failure(dir, base + " --evalue nan", {"--evalue", "'nan'"});
  expect_clean_failure(dir, base + " --evalue 1e-3x", {"--evalue"});
  expect_clean_failure(dir, base + " --alphabet rna", {"rna"});
  expect_clean_failure(dir, base + " --device tpu", {"tpu"});
  expect_clean_failure(dir, base + " --sync bogus", {"bogus"});
  expect_clean_failure(dir, base + " --tile=-4", {"--tile"});
  expect_clean_failure(dir, base + " --threads lots", {"lots"});
  expect_clean_failure(dir, base + " --matrix BLOSUM99 --alphabet protein", {"BLOSUM99"});
  expect_clean_failure(dir, base + " --matrix BLOSUM62", {"matrix"});
  expect_clean_failure(dir, "align " + t(), {"QUERY"});
  expect_clean_failure(dir, "frobnicate", {"frobnicate"});
}

TEST_F(cli_bad_input, inputs_sam_cannot_carry) {
  write_file(dir / "dup.fa", ">chr1\nACGTACGTTTGACAGT\n>chr2\nACGT\n>chr1\nTTGACAGT\n");
  const std::string dup = (dir / "dup.fa").string();
  expect_clean_failure(dir, "align " + t() + " " + dup + " --outfmt sam", {"dup.fa", "record 1 'chr1'", "record 3 'chr1'"});
  expect_clean_failure(dir, "align " + t() + " " + dup + " --outfmt bam", {"record 3 'chr1'"});
  write_file(dir / "paren.fa", ">chr(1)\nACGTACGTTTGACAGT\n");
  expect_clean_failure(dir, "align " + t() + " " + (dir / "paren.fa").string() + " --outfmt sam", {"chr(1)"});
  const std::string p = (dir / "p.fa").string();
  expect_clean_failure(dir, "align " + p + " " + p + " --outfmt bam", {"--outfmt bam", "--outfmt sam"});
  // Schemes without a logarithmic regime have no E-values in a search too small to fit them: an
  // explicit --evalue (or --stats analytic) cannot be honoured (the search itself runs: cli_stats_test).
  expect_clean_failure(dir, "align " + t() + " " + t() + " --match 1 --mismatch 0 --evalue 1", {"--evalue cannot be honoured"});
  expect_clean_failure(dir, "align " + t() + " " + t() + " --match 1 --mismatch 0 --stats analytic",
                       {"--stats analytic", "no Karlin-Altschul parameters"});
  expect_clean_failure(dir, "align " + t() + " " + t() + " --stats sometimes", {"--stats", "sometimes"});
}

TEST_F(cli_bad_input, mixed_alphabets_in_auto_mode) {
  expect_clean_failure(dir, "align " + t() + " " + (dir / "p.fa").string(), {"--alphabet"});
}

TEST_F(cli_bad_input, unwritable_output_is_a_runtime_failure) {
  const auto r = run_shell(binary + " align " + t() + " " + t() + " --device cpu -o /nonexistent-dir/x.tsv", dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("swat-gpu: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("/nonexistent-dir/x.tsv"), std::string::npos) << r.err;
}

TEST_F(cli_bad_input, gpu_without_engine_is_a_clear_error) {
  const auto r = run_shell(binary + " align " + t() + " " + t() + " --device gpu", dir);
  if (r.exit_code == 0) GTEST_SKIP() << "this build has a working GPU engine";
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--device gpu"), std::string::npos) << r.err;
}

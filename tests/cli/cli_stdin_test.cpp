// Habits of the command line: '-' reads the query or the database from standard input (plain or
// gzip, a pipe or a redirected file), never both; -t is --threads.

#include <gtest/gtest.h>

#include <filesystem>

#include "support/run_process.hpp"

namespace fs = std::filesystem;
using swat::test::run_shell;
using swat::test::temp_dir;

namespace {

const std::string binary = SWAT_BINARY;
const fs::path source_dir = SWAT_SOURCE_DIR;
const std::string query = (source_dir / "data/sarscov2_spike_gene.fa").string();
const std::string db = (source_dir / "data/coronavirus_regions.fa").string();
const std::string common = " --device cpu --quiet --outfmt '6 qseqid sseqid score qstart qend sstart send'";

}  // namespace

TEST(cli_stdin, dash_reads_standard_input_like_the_file) {
  temp_dir dir;
  const auto want = run_shell(binary + " align " + query + " " + db + common, dir);
  ASSERT_EQ(want.exit_code, 0) << want.err;
  ASSERT_FALSE(want.out.empty());
  const std::string runs[] = {
      "cat " + query + " | " + binary + " align - " + db + common,                  // query from a pipe
      binary + " align - " + db + common + " < " + query,                          // a redirected file
      "gzip -c " + db + " | " + binary + " align " + query + " -" + common,         // gzip database from a pipe
      "cat " + query + " | " + binary + " align - " + db + common + " -t 1",        // -t
  };
  for (const std::string& cmd : runs) {
    const auto got = run_shell("(" + cmd + ")", dir);  // run_shell's own </dev/null is the subshell's
    EXPECT_EQ(got.exit_code, 0) << cmd << ": " << got.err;
    EXPECT_EQ(got.out, want.out) << cmd;
  }
}

TEST(cli_stdin, both_inputs_from_stdin_and_bad_stdin_are_errors) {
  temp_dir dir;
  auto r = run_shell("(cat " + query + " | " + binary + " align - -" + common + ")", dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("'-'"), std::string::npos) << r.err;
  r = run_shell("(printf '>q\\nAC1GT\\n' | " + binary + " align - " + db + common + ")", dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("swat-gpu: error: -:record 1 (q)", 0), 0u) << r.err;  // names standard input as '-'
  r = run_shell(binary + " align " + query + " " + db + common + " -t lots", dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--threads"), std::string::npos) << r.err;
}

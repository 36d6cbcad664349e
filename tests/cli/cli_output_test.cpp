// `swat-gpu align -o PATH` on paths that must not be damaged: a FIFO read by a background
// reader, /dev/stdout, a symbolic link (kept; its target replaced with mode 0640 kept), a
// read-only file, the inputs themselves (refused), an empty path, a missing directory (fails
// before aligning), and SIGTERM/SIGINT/SIGHUP during a large job (no temporary file left).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "support/run_process.hpp"
#include "support/signal_job.hpp"

namespace fs = std::filesystem;
using swat::test::read_file;
using swat::test::run_shell;
using swat::test::temp_dir;
using swat::test::write_file;
using swat::test::has_temp_files;
using swat::test::write_large_job;

namespace {

const std::string binary = SWAT_BINARY;
const fs::path source_dir = SWAT_SOURCE_DIR;
const std::string query = (source_dir / "data/sarscov2_spike_gene.fa").string();
const std::string db = (source_dir / "data/coronavirus_regions.fa").string();

std::string align_args(const std::string& q, const std::string& d) { return " align " + q + " " + d + " --device cpu --quiet"; }

//! The bundled example's blast6 output on stdout: what every -o variant must contain.
const std::string& expected_output() {
  static const std::string text = [] {
    temp_dir dir;
    const auto r = run_shell(binary + align_args(query, db), dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }();
  return text;
}

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST(cli_output, fifo_is_written_in_place_for_a_background_reader) {
  temp_dir dir;
  const fs::path fifo = dir / "hits.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto r = run_shell("cat " + fifo.string() + " > " + (dir / "got").string() + " & " + binary +
                               align_args(query, db) + " -o " + fifo.string() + "; s=$?; wait; exit $s",
                           dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir / "got"), expected_output());
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_FALSE(has_temp_files(dir.path()));
}

TEST(cli_output, dev_stdout_writes_to_the_inherited_descriptor) {
  temp_dir dir;
  write_file(dir / "log", "kept line\n");
  // Appending through the shell: the descriptor is used, not reopened or replaced.
  const auto r = run_shell("(" + binary + align_args(query, db) + " -o /dev/stdout >> " + (dir / "log").string() + ")", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir / "log"), "kept line\n" + expected_output());
  // Through a pipe as well.
  const auto p = run_shell("(" + binary + align_args(query, db) + " -o /dev/stdout | cat)", dir);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out, expected_output());
}

TEST(cli_output, symlink_survives_and_its_target_keeps_mode_0640) {
  temp_dir dir;
  write_file(dir / "real.tsv", "old\n");
  ASSERT_EQ(::chmod((dir / "real.tsv").c_str(), 0640), 0);
  fs::create_symlink("real.tsv", dir / "link.tsv");
  const auto r = run_shell(binary + align_args(query, db) + " -o " + (dir / "link.tsv").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.tsv"));
  EXPECT_EQ(read_file(dir / "real.tsv"), expected_output());
  EXPECT_EQ(mode_of(dir / "real.tsv"), 0640u);
  EXPECT_FALSE(has_temp_files(dir.path()));
}

TEST(cli_output, read_only_file_is_refused_or_keeps_mode_0444) {
  temp_dir dir;
  const fs::path p = dir / "ro.tsv";
  write_file(p, "precious\n");
  ASSERT_EQ(::chmod(p.c_str(), 0444), 0);
  const auto r = run_shell(binary + align_args(query, db) + " -o " + p.string(), dir);
  if (::geteuid() == 0) {  // root may write it, as with `>`: replaced, mode kept
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(read_file(p), expected_output());
  } else {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("read-only"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(p), "precious\n");
  }
  EXPECT_EQ(mode_of(p), 0444u);
  EXPECT_FALSE(has_temp_files(dir.path()));
}

TEST(cli_output, output_equal_to_an_input_is_refused) {
  temp_dir dir;
  const std::string q = (dir / "q.fa").string(), d = (dir / "db.fa").string();
  fs::copy_file(query, q);
  fs::copy_file(db, d);
  ASSERT_EQ(::link(d.c_str(), (dir / "db_hard.fa").c_str()), 0);
  fs::create_symlink("q.fa", dir / "q_link.fa");
  for (const auto& out : {q, d, (dir / "db_hard.fa").string(), (dir / "q_link.fa").string()}) {
    const auto r = run_shell(binary + align_args(q, d) + " -o " + out, dir);
    EXPECT_EQ(r.exit_code, 2) << out;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("same file as input"), std::string::npos) << r.err;
  }
  EXPECT_EQ(read_file(q), read_file(query));
  EXPECT_EQ(read_file(d), read_file(db));
  EXPECT_FALSE(has_temp_files(dir.path()));
}

TEST(cli_output, empty_output_path_is_refused) {
  temp_dir dir;
  const auto r = run_shell(binary + align_args(query, db) + " -o ''", dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("-o"), std::string::npos) << r.err;
}

TEST(cli_output, missing_directory_fails_before_aligning) {
  temp_dir dir;
  write_large_job(dir, 60000);  // 3.6e9 cells: seconds of work if it were aligned first
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_shell(binary + align_args((dir / "big_q.fa").string(), (dir / "big_t.fa").string()) + " -o " +
                               (dir / "no" / "such" / "dir" / "out.tsv").string(),
                           dir);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("no/such/dir/out.tsv"), std::string::npos) << r.err;
  EXPECT_LT(seconds, 1.0);
}

class cli_signal : public ::testing::TestWithParam<int> {};

// The job runs with the signal's default disposition (a shell's `&` would ignore SIGINT), is
// signalled once its temporary file exists, and must die by that signal with nothing left.
TEST_P(cli_signal, during_a_large_job_leaves_no_temporary_file) {
  const int sig = GetParam();
  temp_dir dir;
  write_large_job(dir, 60000);
  const std::string out = (dir / "out.tsv").string();
  const auto r = swat::test::signal_during_job(
      binary, {"align", (dir / "big_q.fa").string(), (dir / "big_t.fa").string(), "--device", "cpu", "--quiet", "-o", out},
      dir.path(), sig, 200);
  EXPECT_TRUE(r.started) << "no temporary output file appeared";
  ASSERT_TRUE(r.signalled) << "exit status " << r.code;
  EXPECT_EQ(128 + r.code, 128 + sig);  // what a shell reports: 130, 143, 129
  EXPECT_FALSE(has_temp_files(dir.path()));
  EXPECT_FALSE(fs::exists(out));
}

INSTANTIATE_TEST_SUITE_P(signals, cli_signal, ::testing::Values(SIGTERM, SIGINT, SIGHUP));

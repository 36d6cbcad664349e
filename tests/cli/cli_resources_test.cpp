// `swat-gpu align` under tight resources: a process limit that refuses threads (clean run with a
// notice, never an abort), more threads than the hardware, and the CPU engine's peak memory
// for a 200 Mb query with --cpu-mem 256 (measured from wait4's rusage).

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "support/run_process.hpp"

namespace fs = std::filesystem;
using swat::test::read_file;
using swat::test::run_shell;
using swat::test::temp_dir;
using swat::test::write_file;

namespace {

const std::string binary = SWAT_BINARY;

//! A query and 100 short targets: 100 pairs, so up to 100 CPU workers.
void write_many_targets(const temp_dir& dir) {
  std::mt19937 rng(4);
  std::string q = ">q\n", db;
  for (int k = 0; k < 3000; ++k) q += "ACGT"[rng() % 4];
  for (int t = 0; t < 100; ++t) {
    db += ">t" + std::to_string(t) + "\n";
    for (int k = 0; k < 500; ++k) db += "ACGT"[rng() % 4];
    db += "\n";
  }
  write_file(dir / "q.fa", q + "\n");
  write_file(dir / "db.fa", db);
}

//! Exit code, stderr and peak resident memory (KiB) of binary with args (no shell).
struct measured {
  int exit_code = -1;
  long max_rss_kib = 0;
};

measured run_measured(const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char*> argv{const_cast<char*>(binary.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) ::_exit(126);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  measured m;
  int status = 0;
  rusage usage{};
  if (pid > 0 && ::wait4(pid, &status, 0, &usage) == pid) {
    m.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    m.max_rss_kib = usage.ru_maxrss;
  }
  return m;
}

}  // namespace

// As root, RLIMIT_NPROC binds only once the process runs as another user: the run drops to
// nobody (setpriv) with `ulimit -u` of a few processes; otherwise the limit applies as is.
TEST(cli_resources, threads_refused_by_a_process_limit_fall_back_cleanly) {
#ifdef SWAT_SANITIZE
  GTEST_SKIP() << "the leak checker needs a thread of its own at exit";
#endif
  temp_dir dir;
  write_many_targets(dir);
  fs::permissions(dir.path(), fs::perms::all);  // readable by nobody
  const std::string args = " align " + (dir / "q.fa").string() + " " + (dir / "db.fa").string() + " --device cpu";
  const auto want = run_shell(binary + args + " --threads 1 --quiet", dir);
  ASSERT_EQ(want.exit_code, 0) << want.err;
  std::string prefix;
  if (::geteuid() == 0) {
    if (std::system("command -v setpriv >/dev/null 2>&1") != 0) GTEST_SKIP() << "no setpriv to leave root";
    prefix = "setpriv --reuid=65534 --regid=65534 --clear-groups -- ";
  }
  for (const int limit : {1, 3, 6}) {
    const auto r = run_shell(prefix + "bash -c 'ulimit -u " + std::to_string(limit) + " && exec " + binary + args +
                                 " --threads 64'",
                             dir);
    ASSERT_EQ(r.exit_code, 0) << "ulimit -u " << limit << ": " << r.err;  // never 134 (std::terminate)
    EXPECT_EQ(r.out, want.out) << "ulimit -u " << limit;
    EXPECT_NE(r.err.find("could start only"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
  }
}

TEST(cli_resources, huge_thread_count_gets_a_notice_and_runs) {
  temp_dir dir;
  write_many_targets(dir);
  const auto r = run_shell(binary + " align " + (dir / "q.fa").string() + " " + (dir / "db.fa").string() +
                               " --device cpu --threads 100000",
                           dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("100000 CPU threads requested"), std::string::npos) << r.err;
}

// A 200 Mb synthetic query with --cpu-mem 256: the CPU engine bands the query, so the peak is
// the encoded query (200 MB) plus a few MB, far under 400 MB (before: 64 B per query residue,
// 12.8 GB; the FASTA reader alone held ~2.3 times the sequence).
TEST(cli_resources, long_query_peak_memory_stays_near_the_encoded_sequences) {
#ifdef SWAT_SANITIZE
  GTEST_SKIP() << "sanitizer builds keep shadow memory: peak RSS means nothing there";
#endif
  temp_dir dir;
  constexpr std::size_t query_residues = 200'000'000;
  {
    std::ofstream q(dir / "long.fa", std::ios::binary);
    q << ">long synthetic\n";
    std::mt19937_64 rng(6);
    std::string line(80, 'A');  // 5 × 16 random residues per line
    for (std::size_t done = 0; done < query_residues; done += line.size()) {
      for (std::size_t k = 0; k < line.size(); k += 16) {
        std::uint64_t bits = rng();
        for (std::size_t b = 0; b < 16; ++b, bits >>= 2) line[k + b] = "ACGT"[bits & 3];
      }
      q << line << '\n';
    }
  }
  std::mt19937 rng(7);
  std::string target = ">short\n";
  for (int k = 0; k < 32; ++k) target += "ACGT"[rng() % 4];
  write_file(dir / "short.fa", target + "\n");
  const measured m = run_measured({"align", (dir / "long.fa").string(), (dir / "short.fa").string(), "--device",
                                   "cpu", "--cpu-mem", "256", "--threads", "2", "--quiet"},
                                  dir / "out", dir / "err");
  ASSERT_EQ(m.exit_code, 0) << read_file(dir / "err");
  std::printf("peak RSS of a 200 Mb x 32 b alignment with --cpu-mem 256: %ld KiB\n", m.max_rss_kib);
  const std::string out = read_file(dir / "out");
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_LT(m.max_rss_kib, 400 * 1000) << "peak " << m.max_rss_kib << " KiB";
  EXPECT_LT(m.max_rss_kib, 260 * 1000) << "peak " << m.max_rss_kib << " KiB (encoded query: 195,313 KiB)";
}

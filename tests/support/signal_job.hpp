#pragma once
// A large alignment job signalled while it runs: the CLI signal tests of the CPU (cli_output)
// and of the GPU engines (cli_gpu) share it.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/run_process.hpp"

namespace swat::test {

//! Whether `dir` holds one of the atomic writer's temporary files (NAME.tmp.PID.RAND).
inline bool has_temp_files(const std::filesystem::path& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) return true;
  return false;
}

//! A related pair of DNA sequences of n residues each (big_q.fa, big_t.fa in `dir`): a job of seconds.
inline void write_large_job(const temp_dir& dir, std::size_t n) {
  // Related (the target the query with a tenth of its residues changed): the hit scores past 16
  // bits and its alignment spans the pair, seconds of work on any machine. An unrelated pair's
  // weak hit is aligned in a box of a few cells, and its scan alone takes tens of milliseconds.
  std::mt19937 rng(42);
  std::string q;
  for (std::size_t k = 0; k < n; ++k) q += "ACGT"[rng() % 4];
  std::string t = q;
  for (char& c : t)
    if (rng() % 10 == 0) c = "ACGT"[rng() % 4];
  write_file(dir / "big_q.fa", ">big\n" + q + "\n");
  write_file(dir / "big_t.fa", ">big\n" + t + "\n");
}

struct signalled_job {
  bool started = false;    //!< the temporary output file appeared before the signal
  bool signalled = false;  //!< the process died by a signal (else it exited)
  int code = 0;            //!< the signal number, or the exit status
};

//! Runs `binary args…` with the default disposition of SIGINT/SIGTERM/SIGHUP (a shell's `&`
//! would ignore SIGINT), waits until a temporary file appears in `dir` (the output is open),
//! then `delay_ms` more (well inside the alignment), sends `sig` and waits for the process.
inline signalled_job signal_during_job(const std::string& binary, const std::vector<std::string>& args,
                                       const std::filesystem::path& dir, int sig, int delay_ms) {
  signalled_job r;
  const pid_t pid = ::fork();
  if (pid < 0) return r;
  if (pid == 0) {
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) ::signal(s, SIG_DFL);
    std::vector<char*> argv{const_cast<char*>(binary.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  for (int k = 0; k < 3000 && !r.started; ++k) {
    r.started = has_temp_files(dir);
    if (!r.started) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  ::kill(pid, sig);
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return r;
  r.signalled = WIFSIGNALED(status);
  r.code = r.signalled ? WTERMSIG(status) : WEXITSTATUS(status);
  return r;
}

}  // namespace swat::test

#pragma once
// Test support for `swat-gpu serve`: a server run as a child process (stderr to a file), waited
// for until its ready notice, and stopped by a signal at the end.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "support/run_process.hpp"

namespace swat::test {

class serve_process {
 public:
  //! Starts `binary serve args…` with stderr to err_path (default dispositions of the signals).
  serve_process(const std::string& binary, const std::vector<std::string>& args, std::filesystem::path err_path)
      : err_(std::move(err_path)) {
    pid_ = ::fork();
    if (pid_ == 0) {
      for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(s, SIG_DFL);
      const int fd = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd >= 0) ::dup2(fd, 2);
      std::vector<char*> argv{const_cast<char*>(binary.c_str()), const_cast<char*>("serve")};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(binary.c_str(), argv.data());
      ::_exit(127);
    }
  }
  ~serve_process() {
    if (pid_ > 0 && !done_) {
      ::kill(pid_, SIGTERM);
      wait();
    }
  }
  serve_process(const serve_process&) = delete;
  serve_process& operator=(const serve_process&) = delete;

  //! Waits (up to timeout_s) for the ready notice; false when the server ended or never got ready.
  bool ready(double timeout_s = 60) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < until) {
      if (stderr_text().find("notice: ready after") != std::string::npos) return true;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        done_ = true;
        status_ = status;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  //! Sends sig.
  void signal(int sig) const { ::kill(pid_, sig); }
  //! Waits for the process; its wait status.
  int wait() {
    if (!done_) {
      ::waitpid(pid_, &status_, 0);
      done_ = true;
    }
    return status_;
  }
  std::string stderr_text() const { return read_file(err_); }
  pid_t pid() const { return pid_; }

 private:
  std::filesystem::path err_;
  pid_t pid_ = -1;
  bool done_ = false;
  int status_ = 0;
};

}  // namespace swat::test

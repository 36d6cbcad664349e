// Timed commands of the benchmarks (bench_process.hpp).

#include "bench/common/bench_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.hpp"

extern char** environ;

namespace swat::bench {

pid_t spawn_command(const std::vector<std::string>& argv, const std::string& err_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw runtime_failure("cannot start " + argv[0] + ": " + std::strerror(rc));
  return pid;
}

double timed_command(const std::string& who, const std::vector<std::string>& argv, const std::string& err_path) {
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = spawn_command(argv, err_path);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string line;
    for (const std::string& a : argv) line += (line.empty() ? "" : " ") + a;
    throw runtime_failure(who + ": `" + line + "` failed: " + file_text(err_path));
  }
  return s;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace swat::bench

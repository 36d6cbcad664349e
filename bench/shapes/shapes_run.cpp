// Running and timing whole commands for `swat-gpu bench shapes` (see shapes_run.hpp).

#include "bench/shapes/shapes_run.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

#include "common/error.hpp"

extern char** environ;

namespace swat::bench::shapes {
namespace {

//! The environment with the entries of overrides replacing those of the same name.
std::vector<std::string> environment_with(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  const auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    bool replaced = false;
    for (const std::string& o : overrides) replaced = replaced || name_of(o) == name_of(entry);
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& words) {
  std::vector<char*> p;
  for (std::string& w : words) p.push_back(w.data());
  p.push_back(nullptr);
  return p;
}

//! The file actions of one spawn, destroyed on every way out.
struct spawn_actions {
  posix_spawn_file_actions_t actions;
  spawn_actions() { posix_spawn_file_actions_init(&actions); }
  ~spawn_actions() { posix_spawn_file_actions_destroy(&actions); }
};

std::string trimmed(std::string s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && blank(s.back())) s.pop_back();
  std::size_t start = 0;
  while (start < s.size() && blank(s[start])) ++start;
  return s.substr(start);
}

}  // namespace

command_result run_command(const command& cmd, const std::string& stdout_path, const std::string& stderr_path,
                           double timeout_s) {
  if (cmd.argv.empty()) throw runtime_failure("bench shapes: empty command");
  std::vector<std::string> argv = cmd.argv;
  std::vector<std::string> env = environment_with(cmd.env);
  std::vector<char*> argv_p = pointers(argv), env_p = pointers(env);

  spawn_actions fa;
  if (cmd.close_stdin)
    posix_spawn_file_actions_addclose(&fa.actions, 0);
  else
    posix_spawn_file_actions_addopen(&fa.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa.actions, 1, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (stderr_path == stdout_path)
    posix_spawn_file_actions_adddup2(&fa.actions, 1, 2);
  else
    posix_spawn_file_actions_addopen(&fa.actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);

  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (const int rc = posix_spawnp(&pid, argv_p[0], &fa.actions, nullptr, argv_p.data(), env_p.data()); rc != 0)
    throw runtime_failure("bench shapes: cannot start " + cmd.argv[0] + ": " + std::strerror(rc));

  // The watchdog kills the child at the limit. The child is waited for without reaping it
  // (WNOWAIT) until the watchdog knows it has ended, so a kill never reaches a reused pid.
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false, killed = false;
  std::thread watchdog;
  if (timeout_s > 0)
    watchdog = std::thread([&] {
      std::unique_lock<std::mutex> lock(mutex);
      if (!ended.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return done; })) {
        kill(pid, SIGKILL);
        killed = true;
      }
    });
  siginfo_t info{};
  while (waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR) {
  }
  const auto end = std::chrono::steady_clock::now();
  {
    const std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  ended.notify_all();
  if (watchdog.joinable()) watchdog.join();
  int status = 0;
  while (waitpid(pid, &status, 0) == -1 && errno == EINTR) {
  }

  command_result r;
  r.seconds = std::chrono::duration<double>(end - start).count();
  r.timed_out = killed;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
  return r;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string last;
  for (std::string line; std::getline(in, line);)
    if (!trimmed(line).empty()) last = trimmed(line);
  return last;
}

std::optional<double> swat_scan_seconds(const std::string& text) {
  std::istringstream in(text);
  std::string timing;
  for (std::string line; std::getline(in, line);)
    if (line.find("timing: read") != std::string::npos) timing = line;
  // "…; gpu scan (transposed: …) 0.065 s, scan 0.071 s, E-values …": the engine's stages come
  // first; the pipeline's scan is the last "scan S s" that follows "; " or ", ".
  static const std::regex scan(R"([;,] scan ([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?) s)");
  std::optional<double> seconds;
  for (auto it = std::sregex_iterator(timing.begin(), timing.end(), scan); it != std::sregex_iterator(); ++it)
    seconds = std::stod((*it)[1].str());
  if (seconds && *seconds <= 0) return std::nullopt;
  return seconds;
}

std::optional<double> cudasw4_scan_seconds(const std::string& text) {
  static const std::regex total(R"(Total time: ([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?) s)");
  std::optional<double> seconds;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), total); it != std::sregex_iterator(); ++it)
    seconds = std::stod((*it)[1].str());
  return seconds;
}

std::vector<std::string> split_words(std::string_view option, const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) throw usage_error(std::string(option) + ": unbalanced quote in '" + text + "'");
  if (in_word) words.push_back(word);
  return words;
}

std::string display(const command& cmd) {
  std::string s;
  for (const std::string& e : cmd.env) s += e + " ";
  for (const std::string& w : cmd.argv) {
    if (&w != &cmd.argv.front()) s += " ";
    s += w.find_first_of(" \t'\"") == std::string::npos && !w.empty() ? w : "\"" + w + "\"";
  }
  return cmd.close_stdin ? s + " 0<&-" : s;
}

}  // namespace swat::bench::shapes

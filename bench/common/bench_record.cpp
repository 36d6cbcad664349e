// Benchmark provenance and CSV formatting (see bench_record.hpp).

#include "bench/common/bench_record.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>
#include <ctime>
#include <iomanip>
#include <sstream>

namespace swat::bench {

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::ostringstream out;
  out << std::put_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
  return out.str();
}

void write_csv_provenance(std::ostream& csv, std::string_view title, std::string_view command,
                          std::string_view git_commit, std::string_view device) {
  csv << "# " << title << "\n# command: " << command
      << "\n# git_commit: " << (git_commit.empty() ? std::string_view("unknown") : git_commit)
      << "\n# device: " << device << "\n# date: " << utc_now() << "\n";
}

std::string csv_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string model = "unknown CPU";
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return model + " (" + std::to_string(std::thread::hardware_concurrency()) + " threads)";
}

std::string first_output_line(const std::string& shell_command) {
  FILE* pipe = popen(shell_command.c_str(), "r");
  if (pipe == nullptr) return "";
  char buffer[512];
  std::string line;
  if (std::fgets(buffer, sizeof buffer, pipe) != nullptr) line = buffer;
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
  }
  if (pclose(pipe) != 0) return "";
  const auto blank = [](char c) { return c == '\n' || c == '\r' || c == ' ' || c == '\t'; };
  while (!line.empty() && blank(line.back())) line.pop_back();
  std::size_t from = 0;
  while (from < line.size() && blank(line[from])) ++from;
  return line.substr(from);
}

std::string git_commit(const std::string& source_dir) {
  const auto quoted = [](const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  for (const std::string& dir : {source_dir, std::string(".")}) {
    const std::string git = "git -C " + quoted(dir);
    const std::string commit = first_output_line(git + " rev-parse --short HEAD 2>/dev/null");
    if (commit.empty()) continue;
    const bool dirty = !first_output_line(git + " status --porcelain --untracked-files=no 2>/dev/null").empty();
    return commit + (dirty ? "-dirty" : "");
  }
  return "unknown";
}

std::string gpu_name_or_cpu() {
  const std::string name = first_output_line("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null");
  return name.empty() ? "cpu" : name;
}

}  // namespace swat::bench

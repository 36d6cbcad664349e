// Benchmark provenance and CSV formatting (see bench_record.hpp).

#include "bench/common/bench_record.hpp"

#include <chrono>
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

}  // namespace swat::bench

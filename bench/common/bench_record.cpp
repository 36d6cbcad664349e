// Benchmark provenance and CSV formatting (see bench_record.hpp).

#include "bench/common/bench_record.hpp"

#include <chrono>
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

}  // namespace swat::bench

#include "cuda/common/bench_record.hpp"

#include <chrono>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "cuda/common/cuda_check.hpp"

namespace swat::cuda {

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::ostringstream out;
  out << std::put_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
  return out.str();
}

void write_csv_provenance(std::ostream& csv, std::string_view title, std::string_view command,
                          std::string_view git_commit) {
  csv << "# " << title << "\n# command: " << command
      << "\n# git_commit: " << (git_commit.empty() ? std::string_view("unknown") : git_commit)
      << "\n# device: " << device_name() << " (" << device_sm_count() << " SMs)"
      << "\n# date: " << utc_now() << "\n";
}

}  // namespace swat::cuda

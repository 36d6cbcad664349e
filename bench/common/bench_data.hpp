#pragma once
// Where the benchmarks find their real sequences (../shared/data, see its PROVENANCE.md) and
// small helpers every benchmark shares: reading one DNA record, medians of timed runs.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace swat::bench {

//! The shared data folder: $SWAT_SHARED_DATA when set, else the one configured at build time.
std::string shared_data_dir();

//! Ranks of the first record of shared_data_dir()/relative read as DNA; throws input_error.
std::vector<std::uint8_t> read_dna(const std::string& relative);

//! Writes the FASTA file `fasta` `copies` times to out_path, the names of copy k prefixed with
//! "c<k>_" so that they stay distinct (the Swiss-Prot subset ×50, ×500); throws runtime_failure.
void write_copies(const std::string& fasta, const std::string& out_path, int copies);

//! Median of times (the upper one of an even count); times is reordered. Empty: 0.
inline double median(std::vector<double>& times) {
  if (times.empty()) return 0;
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

//! Median wall time of repeat calls of work (seconds, steady clock).
template <typename work_t>
double median_seconds(int repeat, work_t&& work) {
  std::vector<double> times;
  for (int k = 0; k < repeat; ++k) {
    const auto start = std::chrono::steady_clock::now();
    work();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return median(times);
}

}  // namespace swat::bench

// Timing driver for the CPU engine (not a test): one DNA pair, blastn scoring, prints GCUPS of
// the score pass (with and without origins, scalar and striped) and of align() end to end.
// Usage: bench_cpu_engine [query.fa target.fa [max_length]]

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench/common/bench_data.hpp"
#include "engine/cpu_engine.hpp"
#include "engine/cpu_kernels.hpp"
#include "scoring/scoring.hpp"

namespace {

std::vector<std::uint8_t> read_dna(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::uint8_t> out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '>') continue;
    for (unsigned char c : line)
      if (swat::dna_rank_table()[c] != swat::invalid_rank) out.push_back(swat::dna_rank_table()[c]);
  }
  return out;
}

template <typename Fn>
double seconds(Fn&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = swat::bench::shared_data_dir();
  auto q = read_dna(argc > 2 ? argv[1] : dir + "/dna/sarscov2_MN908947.3.fa");
  auto t = read_dna(argc > 2 ? argv[2] : dir + "/dna/ratg13_MN996532.2.fa");
  if (argc > 3) {
    const std::size_t cap = std::stoul(argv[3]);
    if (q.size() > cap) q.resize(cap);
    if (t.size() > cap) t.resize(cap);
  }
  const swat::scoring_scheme scheme = swat::scoring::make_dna_scheme(2, -3, 5, 2);
  const double cells = double(q.size()) * double(t.size());
  std::printf("pair %zu x %zu = %.3g cells\n", q.size(), t.size(), cells);
  auto report = [&](const char* what, double s) { std::printf("%-28s %8.3f s %7.3f GCUPS\n", what, s, cells / s / 1e9); };
  if (swat::cpu::striped_available()) {
    report("striped score pass", seconds([&] { swat::cpu::score_pass_striped(q, t, scheme, false, nullptr); }));
    report("striped pass + origins", seconds([&] { swat::cpu::score_pass_striped(q, t, scheme, true, nullptr); }));
  }
  if (cells < 2e9) {
    report("scalar score pass", seconds([&] { swat::cpu::score_pass_scalar(q, t, scheme, false, nullptr); }));
    report("scalar pass + origins", seconds([&] { swat::cpu::score_pass_scalar(q, t, scheme, true, nullptr); }));
  }
  swat::cpu_engine eng(1);
  swat::alignment aln;
  report("align (end to end)", seconds([&] { aln = eng.align(q, t, scheme); }));
  std::printf("score %d query [%lld, %lld) target [%lld, %lld) ops %zu\n", aln.score, (long long)aln.query_begin,
              (long long)aln.query_end, (long long)aln.target_begin, (long long)aln.target_end, aln.ops.size());
  return 0;
}

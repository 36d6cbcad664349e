// `swat-gpu bench`: benchmark drivers. `cpu` measures the CPU engine; the GPU benchmarks
// (barrier, sw, fft, sort) are provided by the CUDA libraries when the build has them.

#include <cxxopts.hpp>

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>

#include "cli/commands.hpp"
#include "common/error.hpp"
#include "engine/cpu_engine.hpp"
#include "pipeline/gpu_benchmarks.hpp"
#include "scoring/scoring.hpp"

namespace swat::cli {
namespace {

constexpr const char* bench_help =
    "Usage: swat-gpu bench WHAT [options]   (swat-gpu bench WHAT --help for its options)\n"
    "  cpu       CPU engine: GCUPS of the score pass and of full alignment on seeded random DNA\n"
    "  barrier   inter-block barrier microbenchmark (Xiao & Feng 2010, section 5.4)   [GPU]\n"
    "  sw        GPU Smith-Waterman matrix fill per kernel x sync mode                 [GPU]\n"
    "  fast      fast register-tiled engine: score-only GCUPS, 1k to 1.46 Mb          [GPU]\n"
    "  fft       bundled multi-block FFT vs cuFFT                                     [GPU]\n"
    "  sort      bundled bitonic sort vs CUB radix sort                               [GPU]\n";

std::vector<std::uint8_t> random_dna(std::mt19937_64& rng, std::size_t length) {
  std::vector<std::uint8_t> s(length);
  std::uniform_int_distribution<int> base(0, 3);
  for (auto& r : s) r = std::uint8_t(base(rng));
  return s;
}

// Related pairs (about 10% substitutions) so that alignments are long, as in real use.
std::vector<std::uint8_t> mutate(std::mt19937_64& rng, const std::vector<std::uint8_t>& s) {
  std::vector<std::uint8_t> t = s;
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> base(0, 3);
  for (auto& r : t)
    if (u(rng) < 0.1) r = std::uint8_t(base(rng));
  return t;
}

int bench_cpu(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu bench cpu", "CPU engine throughput on seeded random DNA pairs");
  // clang-format off
  opts.add_options()
    ("lengths", "comma-separated pair lengths", cxxopts::value<std::vector<std::size_t>>()->default_value("1000,2000,4000,8461"))
    ("threads", "threads of the engine (one pair uses one thread)", cxxopts::value<unsigned>()->default_value("1"))
    ("repeat", "timed repetitions (median reported)", cxxopts::value<int>()->default_value("3"))
    ("csv", "also write CSV to this file", cxxopts::value<std::string>())
    ("h,help", "this help");
  // clang-format on
  std::vector<const char*> argv{"swat-gpu bench cpu"};
  for (const auto& a : args) argv.push_back(a.c_str());
  const auto r = opts.parse(int(argv.size()), argv.data());
  if (r.count("help")) {
    std::cout << opts.help() << "\n";
    return 0;
  }
  const int repeat = r["repeat"].as<int>();
  if (repeat < 1) throw usage_error("--repeat must be at least 1");
  const scoring_scheme scheme = scoring::make_dna_scheme(2, -3, 5, 2);
  cpu_engine engine(r["threads"].as<unsigned>());
  std::mt19937_64 rng(42);
  std::ostringstream csv;
  csv << "length,cells,score_only_s,score_only_gcups,align_s,align_gcups\n";
  std::cout << std::setw(8) << "length" << std::setw(14) << "score s" << std::setw(10) << "GCUPS"
            << std::setw(14) << "align s" << std::setw(10) << "GCUPS" << "\n";
  for (std::size_t length : r["lengths"].as<std::vector<std::size_t>>()) {
    const auto q = random_dna(rng, length);
    const auto t = mutate(rng, q);
    auto median_seconds = [&](auto&& work) {
      std::vector<double> times;
      for (int k = 0; k < repeat; ++k) {
        const auto start = std::chrono::steady_clock::now();
        work();
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
      std::sort(times.begin(), times.end());
      return times[times.size() / 2];
    };
    const double cells = double(length) * double(length);
    const double score_s = median_seconds([&] { (void)engine.score_only(q, t, scheme); });
    const double align_s = median_seconds([&] { (void)engine.align(q, t, scheme); });
    std::cout << std::setw(8) << length << std::setw(14) << score_s << std::setw(10) << std::setprecision(3)
              << cells / score_s / 1e9 << std::setw(14) << align_s << std::setw(10) << cells / align_s / 1e9
              << "\n";
    csv << length << "," << cells << "," << score_s << "," << cells / score_s / 1e9 << "," << align_s << ","
        << cells / align_s / 1e9 << "\n";
  }
  if (r.count("csv")) {
    std::ofstream out(r["csv"].as<std::string>());
    out << csv.str();
    if (!out) throw runtime_failure("cannot write " + r["csv"].as<std::string>());
  }
  return 0;
}

}  // namespace

int bench_command(const std::vector<std::string>& args) {
  if (args.empty() || args.front() == "--help" || args.front() == "-h") {
    std::cout << bench_help;
    return args.empty() ? 2 : 0;
  }
  const std::string what = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (what == "cpu") return bench_cpu(rest);
  return pipeline::run_gpu_benchmark(what, rest);
}

}  // namespace swat::cli

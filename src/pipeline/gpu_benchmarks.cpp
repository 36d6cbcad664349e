// `swat-gpu bench barrier|sw|fft|sort`: option parsing for the GPU benchmarks, which live in
// the CUDA libraries behind plain C++ entry points. A build or machine that cannot run one
// says so (usage_error, exit 2).

#include "pipeline/gpu_benchmarks.hpp"

#include <cxxopts.hpp>

#include <fstream>
#include <iostream>

#include "common/error.hpp"
#include "pipeline/gpu_engines.hpp"

#if SWAT_HAVE_CUDA_BARRIER
#include "cuda/sync/barrier/barrier_bench.hpp"
#endif
#if SWAT_HAVE_SW
#include "cuda/engines/paper/sw_bench.hpp"
#endif
#if SWAT_HAVE_SW_FAST
#include "cuda/engines/fast/fast_bench.hpp"
#endif
#if SWAT_HAVE_FFT
#include "cuda/studies/fft/fft_bench.hpp"
#endif
#if SWAT_HAVE_SORT
#include "cuda/studies/sort/sort_bench.hpp"
#endif

namespace swat::pipeline {
namespace {

[[maybe_unused]] cxxopts::ParseResult parse(cxxopts::Options& opts, const std::vector<std::string>& args) {
  std::vector<const char*> argv{"swat-gpu bench"};
  for (const auto& a : args) argv.push_back(a.c_str());
  auto r = opts.parse(int(argv.size()), argv.data());
  if (!r.unmatched().empty()) throw usage_error("unexpected argument '" + r.unmatched().front() + "'");
  return r;
}

#if SWAT_HAVE_CUDA_BARRIER
int bench_barrier(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu bench barrier",
                        "Inter-block barrier microbenchmark (Xiao & Feng 2010, section 5.4): mean of two "
                        "floats per round, one barrier per round, every sync mode");
  // clang-format off
  opts.add_options()
    ("rounds", "barriers per timed run", cxxopts::value<int>()->default_value("10000"))
    ("threads", "threads per block", cxxopts::value<int>()->default_value("256"))
    ("blocks", "block counts (default 8,16,33,66,132,264,528,max)", cxxopts::value<std::vector<int>>())
    ("blocks-per-sm", "forced occupancy settings", cxxopts::value<std::vector<int>>()->default_value("1,4"))
    ("modes", "sync modes (default all)", cxxopts::value<std::vector<std::string>>())
    ("repeats", "timed runs per point", cxxopts::value<int>()->default_value("3"))
    ("csv", "write CSV to this file", cxxopts::value<std::string>())
    ("commit", "git commit recorded in the CSV", cxxopts::value<std::string>()->default_value(""))
    ("h,help", "this help");
  // clang-format on
  const auto r = parse(opts, args);
  if (r.count("help")) {
    std::cout << opts.help() << "\nModes: " << sync_mode_names() << "\n";
    return 0;
  }
  barrier::barrier_bench_options o;
  o.rounds = r["rounds"].as<int>();
  o.block_threads = r["threads"].as<int>();
  if (r.count("blocks")) o.block_counts = r["blocks"].as<std::vector<int>>();
  o.blocks_per_sm = r["blocks-per-sm"].as<std::vector<int>>();
  if (r.count("modes"))
    for (const auto& m : r["modes"].as<std::vector<std::string>>()) o.modes.push_back(parse_sync_mode(m));
  o.repeats = r["repeats"].as<int>();
  o.git_commit = r["commit"].as<std::string>();
  o.command = "swat-gpu bench barrier";
  for (const auto& a : args) o.command += " " + a;
  std::ofstream csv;
  if (r.count("csv")) {
    csv.open(r["csv"].as<std::string>());
    if (!csv) throw runtime_failure("cannot write " + r["csv"].as<std::string>());
  }
  barrier::run_barrier_bench(o, std::cout, r.count("csv") ? &csv : nullptr);
  return 0;
}
#endif

}  // namespace

int run_gpu_benchmark(const std::string& what, const std::vector<std::string>& args) {
  if (what != "barrier" && what != "sw" && what != "fast" && what != "fft" && what != "sort")
    throw usage_error("unknown benchmark '" + what + "' (valid: cpu, barrier, sw, fast, fft, sort)");
#if !SWAT_WITH_CUDA
  (void)args;
  throw usage_error("bench " + what + " needs a GPU build (configured with SWAT_WITH_CUDA=OFF)");
#else
  const bool help = !args.empty() && (args.front() == "--help" || args.front() == "-h");
  if (!help && cuda_device_count() == 0) throw usage_error("bench " + what + " needs a CUDA device; none found");
#if SWAT_HAVE_CUDA_BARRIER
  if (what == "barrier") return bench_barrier(args);
#endif
#if SWAT_HAVE_SW
  if (what == "sw") return paper::bench_main(args);
#endif
#if SWAT_HAVE_SW_FAST
  if (what == "fast") return fast::bench_main(args);
#endif
#if SWAT_HAVE_FFT
  if (what == "fft") return fft::bench_main(args);
#endif
#if SWAT_HAVE_SORT
  if (what == "sort") return sort::bench_main(args);
#endif
  throw usage_error("bench " + what + " is not part of this build");
#endif
}

}  // namespace swat::pipeline

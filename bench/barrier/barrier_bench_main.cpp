// `swat-gpu bench barrier`: options of the Xiao & Feng 2010 §5.4 microbenchmark, its main and
// its registration (barrier_bench.hpp runs it).

#include <cxxopts.hpp>

#include <fstream>
#include <iostream>

#include "bench/barrier/barrier_bench.hpp"
#include "bench/common/bench_gpu.hpp"
#include "cli/bench_registry.hpp"
#include "cli/option_values.hpp"
#include "common/error.hpp"

namespace swat::bench {
namespace {

int barrier_main(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu bench barrier",
                        "Inter-block barrier microbenchmark (Xiao & Feng 2010, section 5.4): mean of two "
                        "floats per round, one barrier per round, every sync mode");
  // clang-format off
  opts.add_options()
    ("rounds", "barriers per timed run", cxxopts::value<std::string>()->default_value("10000"))
    ("threads", "threads per block", cxxopts::value<std::string>()->default_value("256"))
    ("blocks", "block counts (default 8,16,33,66,132,264,528,max)", cxxopts::value<std::string>())
    ("blocks-per-sm", "forced occupancy settings", cxxopts::value<std::string>()->default_value("1,4"))
    ("modes", "sync modes (default all)", cxxopts::value<std::string>())
    ("repeats", "timed runs per point", cxxopts::value<std::string>()->default_value("3"))
    ("csv", "write CSV to this file", cxxopts::value<std::string>())
    ("commit", "git commit recorded in the CSV", cxxopts::value<std::string>()->default_value(""))
    ("h,help", "this help");
  // clang-format on
  const auto argv = cli::argv_of("swat-gpu bench barrier", args);
  const auto r = opts.parse(int(argv.size()), argv.data());
  cli::reject_unmatched(r.unmatched());
  if (r.count("help")) {
    std::cout << opts.help() << "\nModes: " << sync_mode_names() << "\n";
    return 0;
  }
  barrier_bench_options o;
  o.rounds = int(cli::integer_value("--rounds", r["rounds"].as<std::string>(), 1, 1 << 30));
  o.block_threads = int(cli::integer_value("--threads", r["threads"].as<std::string>(), 32, 1024));
  if (r.count("blocks"))
    for (long long b : cli::integer_list("--blocks", r["blocks"].as<std::string>(), 1, 1 << 20)) o.block_counts.push_back(int(b));
  o.blocks_per_sm.clear();
  for (long long b : cli::integer_list("--blocks-per-sm", r["blocks-per-sm"].as<std::string>(), 1, 64))
    o.blocks_per_sm.push_back(int(b));
  if (r.count("modes"))
    for (const std::string& m : cli::word_list(r["modes"].as<std::string>())) o.modes.push_back(parse_sync_mode(m));
  o.repeats = int(cli::integer_value("--repeats", r["repeats"].as<std::string>(), 1, 1 << 20));
  o.git_commit = r["commit"].as<std::string>();
  o.command = cli::command_line("swat-gpu bench barrier", args);
  const cuda::device_context dev = require_device("bench barrier");
  std::ofstream csv;
  if (r.count("csv")) {
    csv.open(r["csv"].as<std::string>());
    if (!csv) throw runtime_failure("cannot write " + r["csv"].as<std::string>());
  }
  run_barrier_bench(dev, o, std::cout, r.count("csv") ? &csv : nullptr);
  return 0;
}

}  // namespace

//! Adds `bench barrier` to registry (listed by bench/barrier/CMakeLists.txt).
void register_barrier_bench(cli::bench_registry& registry) {
  registry.add({"barrier", "inter-block barrier microbenchmark (Xiao & Feng 2010, section 5.4)", true,
                &barrier_main});
}

}  // namespace swat::bench

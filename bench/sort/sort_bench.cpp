// `swat-gpu bench sort`: the bundled bitonic sort per size x sync mode (total, compute = barrier
// removed, sync = the difference), its per-step-launch twin (cpu), CUB DeviceRadixSort in the
// same run, and the Xiao & Feng 2010 Figures 13-15 sweep over grid sizes: options, main, table,
// CSV and registration; device work in sort_bench_run.cu. Time model (Xiao & Feng 2010 §3):
// T = launch + compute + sync; compute is the same persistent kernel with the barrier removed
// (mode none), sync = T - compute.

#include <cxxopts.hpp>

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "bench/common/bench_gpu.hpp"
#include "bench/common/bench_record.hpp"
#include "bench/sort/sort_bench_run.hpp"
#include "cli/bench_registry.hpp"
#include "cli/option_values.hpp"
#include "common/error.hpp"

namespace swat::bench {
namespace {

using namespace sort;

//! One measured point.
struct row {
  std::string section;  //!< "size" or "blocks"
  bool pairs;
  int log2_n;
  sync_mode mode;
  int blocks;
  int barriers;
  double total_ms;
  double compute_ms;
  double cub_ms;
  double twin_ms;
};

void print_row(std::ostream& out, const row& r) {
  const double sync = std::max(0.0, r.total_ms - r.compute_ms);
  const double mkeys = (1LL << r.log2_n) / (r.total_ms * 1e3);
  out << std::setw(7) << r.section << std::setw(6) << (r.pairs ? "pairs" : "keys") << std::setw(5) << r.log2_n
      << std::setw(14) << to_string(r.mode) << std::setw(7) << r.blocks << std::fixed << std::setprecision(4)
      << std::setw(11) << r.total_ms << std::setw(11) << r.compute_ms << std::setw(11) << sync
      << std::setprecision(1) << std::setw(7) << (r.total_ms > 0 ? 100 * sync / r.total_ms : 0) << std::setw(9)
      << mkeys << std::setprecision(3) << std::setw(9) << r.cub_ms / r.total_ms << std::setw(9)
      << r.twin_ms / r.total_ms << "\n";
}

void csv_row(std::ostream& out, const row& r) {
  const double sync = std::max(0.0, r.total_ms - r.compute_ms);
  out << r.section << "," << (r.pairs ? "pairs" : "keys") << "," << r.log2_n << "," << to_string(r.mode) << ","
      << r.blocks << "," << r.barriers << "," << r.total_ms << "," << r.compute_ms << "," << sync << ","
      << (r.total_ms > 0 ? 100 * sync / r.total_ms : 0) << "," << (r.barriers > 0 ? 1000 * sync / r.barriers : 0)
      << "," << (1LL << r.log2_n) / (r.total_ms * 1e3) << "," << r.cub_ms << "," << r.cub_ms / r.total_ms << ","
      << r.twin_ms << "," << r.twin_ms / r.total_ms << "\n";
}

int sort_main(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu bench sort", "bundled bitonic sort per size x sync mode vs CUB and launch twin");
  // clang-format off
  opts.add_options()
    ("sizes", "log2 of the key counts", cxxopts::value<std::string>()->default_value("10,12,14,16,18,20,22,24"))
    ("pairs", "also measure (u32 key, u32 value) pairs")
    ("modes", "sync modes (default: all GPU modes)", cxxopts::value<std::string>())
    ("repeats", "timed runs per point (mean reported)", cxxopts::value<std::string>()->default_value("10"))
    ("warmup", "untimed runs per point", cxxopts::value<std::string>()->default_value("2"))
    ("sweep-log2", "size of the grid-size sweep (Figures 13-15); 0 skips it", cxxopts::value<std::string>()->default_value("20"))
    ("sweep-blocks", "grid sizes of the sweep (capped at co-residency)", cxxopts::value<std::string>()->default_value("8,16,33,66,132,264,528"))
    ("csv", "write CSV to this file", cxxopts::value<std::string>())
    ("commit", "git commit recorded in the CSV header", cxxopts::value<std::string>()->default_value("unknown"))
    ("h,help", "this help");
  // clang-format on
  const auto argv = cli::argv_of("swat-gpu bench sort", args);
  const auto r = opts.parse(static_cast<int>(argv.size()), argv.data());
  cli::reject_unmatched(r.unmatched());
  if (r.count("help")) {
    std::cout << opts.help() << "\n";
    return 0;
  }
  std::vector<sync_mode> modes;
  if (r.count("modes")) {
    for (const std::string& m : cli::word_list(r["modes"].as<std::string>())) modes.push_back(parse_sync_mode(m));
  } else {
    modes.assign(all_gpu_sync_modes().begin(), all_gpu_sync_modes().end());
  }
  if (std::find(modes.begin(), modes.end(), sync_mode::cpu) == modes.end()) modes.insert(modes.begin(), sync_mode::cpu);
  const int repeats = int(cli::integer_value("--repeats", r["repeats"].as<std::string>(), 1, 1 << 20));
  const int warmup = int(cli::integer_value("--warmup", r["warmup"].as<std::string>(), 0, 1 << 20));
  std::vector<int> sizes;
  for (long long k : cli::integer_list("--sizes", r["sizes"].as<std::string>(), 1, 30)) sizes.push_back(int(k));
  const int sweep = int(cli::integer_value("--sweep-log2", r["sweep-log2"].as<std::string>(), -(1 << 20), 30));
  std::vector<int> sweep_blocks;
  for (long long b : cli::integer_list("--sweep-blocks", r["sweep-blocks"].as<std::string>(), -(1 << 20), 1 << 20))
    sweep_blocks.push_back(int(b));
  int largest = sweep;
  for (int k : sizes) largest = std::max(largest, k);
  const cuda::device_context dev = require_device("bench sort");
  sort_runner ctx(dev, std::size_t{1} << largest);
  const std::string command = cli::command_line("swat-gpu bench sort", args);
  std::vector<bool> kinds{false};
  if (r.count("pairs")) kinds.push_back(true);

  std::vector<row> rows;
  std::cout << "Bitonic sort (shared-memory tiles, one grid barrier per global stride) on " << dev.describe()
            << "\nsync = total - compute (same kernel, barrier removed); vsCUB = CUB radix ms / ours (>1: faster);"
               " vsTwin = per-step-launch (cpu) ms / ours\n"
            << std::setw(7) << "section" << std::setw(6) << "what" << std::setw(5) << "log2" << std::setw(14) << "mode"
            << std::setw(7) << "blocks" << std::setw(11) << "total ms" << std::setw(11) << "compute" << std::setw(11)
            << "sync ms" << std::setw(7) << "sync%" << std::setw(9) << "Mkeys/s" << std::setw(9) << "vsCUB"
            << std::setw(9) << "vsTwin" << "\n";
  const auto measure = [&](bool pairs, int k, const std::string& section, const std::vector<int>& grids) {
    const std::size_t n = std::size_t{1} << k;
    const sort_plan plan = make_sort_plan(n, pairs);
    const double cub = ctx.time_cub(n, pairs, repeats, warmup);
    const double twin = ctx.time_ours(n, pairs, {.mode = sync_mode::cpu}, repeats, warmup);
    const int cap = ctx.max_blocks(n, pairs, sync_mode::none);
    const int auto_blocks = default_blocks(plan, cap);
    for (sync_mode m : modes) {
      const bool persistent = is_persistent(m);
      for (int g : grids) {
        if (!persistent && section == "blocks" && g != grids.front()) continue;
        // Same grid for the mode and its barrier-free twin: within both caps.
        const int both = persistent ? std::min(cap, ctx.max_blocks(n, pairs, m)) : cap;
        const int blocks = persistent ? (g > 0 ? std::min(g, both) : default_blocks(plan, both)) : 0;
        row x{section, pairs, k, m, blocks, plan.barriers(), 0, 0, cub, twin};
        x.total_ms = m == sync_mode::cpu && section == "size" ? twin : ctx.time_ours(n, pairs, {.mode = m, .blocks = blocks}, repeats, warmup);
        x.compute_ms = ctx.time_ours(n, pairs, {.mode = sync_mode::none, .blocks = persistent ? blocks : auto_blocks}, repeats, warmup);
        if (!persistent) x.blocks = static_cast<int>(std::min<long long>(plan.tiles, 1LL << 30));
        print_row(std::cout, x);
        rows.push_back(x);
      }
    }
  };
  for (bool pairs : kinds)
    for (int k : sizes) measure(pairs, k, "size", {0});
  if (sweep > 0) measure(false, sweep, "blocks", sweep_blocks);

  for (bool pairs : kinds) {
    int cross = -1;
    for (int k : sizes) {
      double best = 0;
      for (const row& x : rows)
        if (x.section == "size" && x.pairs == pairs && x.log2_n == k && is_persistent(x.mode)) best = std::max(best, x.twin_ms / x.total_ms);
      if (best >= 1.3) cross = k;
    }
    std::cout << (pairs ? "pairs" : "keys") << ": best barrier version >= 1.3x its per-step-launch twin up to "
              << (cross < 0 ? std::string("no size") : "2^" + std::to_string(cross)) << "\n";
  }
  if (r.count("csv")) {
    std::ofstream csv(r["csv"].as<std::string>());
    if (!csv) throw runtime_failure("bench sort: cannot write " + r["csv"].as<std::string>());
    write_csv_provenance(csv, "swat-gpu bench sort", command, r["commit"].as<std::string>(), dev.describe());
    csv << "section,what,log2_n,mode,blocks,barriers,total_ms,compute_ms,sync_ms,sync_pct,per_barrier_us,"
           "mkeys_per_s,cub_ms,ratio_vs_cub,twin_ms,speedup_vs_twin\n";
    for (const row& x : rows) csv_row(csv, x);
  }
  return 0;
}

}  // namespace

//! Adds `bench sort` to registry (listed by bench/sort/CMakeLists.txt).
void register_sort_bench(cli::bench_registry& registry) {
  registry.add({"sort", "bundled bitonic sort vs CUB radix sort", true, &sort_main});
}

}  // namespace swat::bench

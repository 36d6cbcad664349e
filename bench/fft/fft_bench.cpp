// `swat-gpu bench fft`: the bundled FFT per size x sync mode (total, compute = barrier removed,
// sync = the difference), its per-pass-launch twin (cpu), cuFFT in the same run, and the
// Xiao & Feng 2010 Figures 13-15 sweep over grid sizes: options, main, table, CSV and
// registration; device work in fft_bench_run.cu. Time model (Xiao & Feng 2010 §3):
// T = launch + compute + sync; compute is the same persistent kernel with the barrier removed
// (mode none), sync = T - compute.

#include <cxxopts.hpp>

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "bench/common/bench_gpu.hpp"
#include "bench/common/bench_record.hpp"
#include "bench/fft/fft_bench_run.hpp"
#include "cli/bench_registry.hpp"
#include "cli/option_values.hpp"
#include "common/error.hpp"

namespace swat::bench {
namespace {

using namespace fft;

//! One measured point.
struct row {
  std::string section;  //!< "size" or "blocks"
  precision prec;
  int log2_n;
  long long batch;
  sync_mode mode;
  int blocks;
  int barriers;
  double total_ms;
  double compute_ms;
  double cufft_ms;
  double twin_ms;
};

const char* prec_name(precision p) { return p == precision::fp32 ? "fp32" : "fp64"; }

void print_row(std::ostream& out, const row& r) {
  const double sync = std::max(0.0, r.total_ms - r.compute_ms);
  out << std::setw(7) << r.section << std::setw(6) << prec_name(r.prec) << std::setw(5) << r.log2_n
      << std::setw(14) << to_string(r.mode) << std::setw(7) << r.blocks << std::fixed << std::setprecision(4)
      << std::setw(11) << r.total_ms << std::setw(11) << r.compute_ms << std::setw(11) << sync
      << std::setprecision(1) << std::setw(7) << (r.total_ms > 0 ? 100 * sync / r.total_ms : 0)
      << std::setprecision(3) << std::setw(10) << r.cufft_ms / r.total_ms << std::setw(10)
      << r.twin_ms / r.total_ms << "\n";
}

void csv_row(std::ostream& out, const row& r) {
  const double sync = std::max(0.0, r.total_ms - r.compute_ms);
  out << r.section << "," << prec_name(r.prec) << "," << r.log2_n << "," << r.batch << "," << to_string(r.mode)
      << "," << r.blocks << "," << r.barriers << "," << r.total_ms << "," << r.compute_ms << "," << sync << ","
      << (r.total_ms > 0 ? 100 * sync / r.total_ms : 0) << ","
      << (r.barriers > 0 ? 1000 * sync / r.barriers : 0) << "," << r.cufft_ms << "," << r.cufft_ms / r.total_ms
      << "," << r.twin_ms << "," << r.twin_ms / r.total_ms << "\n";
}

int fft_main(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu bench fft", "bundled FFT per size x sync mode vs cuFFT and launch twin");
  // clang-format off
  opts.add_options()
    ("sizes", "log2 of the transform sizes", cxxopts::value<std::string>()->default_value("8,10,12,14,16,18,20,22,24"))
    ("precision", "fp32, fp64 or both", cxxopts::value<std::string>()->default_value("both"))
    ("batch", "transforms per run", cxxopts::value<std::string>()->default_value("1"))
    ("modes", "sync modes (default: all GPU modes)", cxxopts::value<std::string>())
    ("repeats", "timed runs per point (mean reported)", cxxopts::value<std::string>()->default_value("20"))
    ("warmup", "untimed runs per point", cxxopts::value<std::string>()->default_value("3"))
    ("sweep-log2", "size of the grid-size sweep (Figures 13-15); 0 skips it", cxxopts::value<std::string>()->default_value("20"))
    ("sweep-blocks", "grid sizes of the sweep (capped at co-residency)", cxxopts::value<std::string>()->default_value("8,16,33,66,132,264,528,1056"))
    ("csv", "write CSV to this file", cxxopts::value<std::string>())
    ("commit", "git commit recorded in the CSV header", cxxopts::value<std::string>()->default_value("unknown"))
    ("h,help", "this help");
  // clang-format on
  const auto argv = cli::argv_of("swat-gpu bench fft", args);
  const auto r = opts.parse(static_cast<int>(argv.size()), argv.data());
  cli::reject_unmatched(r.unmatched());
  if (r.count("help")) {
    std::cout << opts.help() << "\n";
    return 0;
  }
  std::vector<precision> precs;
  const std::string p = r["precision"].as<std::string>();
  if (p == "fp32" || p == "both") precs.push_back(precision::fp32);
  if (p == "fp64" || p == "both") precs.push_back(precision::fp64);
  if (precs.empty()) throw usage_error("bench fft: --precision must be fp32, fp64 or both");
  std::vector<sync_mode> modes;
  if (r.count("modes")) {
    for (const std::string& m : cli::word_list(r["modes"].as<std::string>())) modes.push_back(parse_sync_mode(m));
  } else {
    modes.assign(all_gpu_sync_modes().begin(), all_gpu_sync_modes().end());
  }
  if (std::find(modes.begin(), modes.end(), sync_mode::cpu) == modes.end()) modes.insert(modes.begin(), sync_mode::cpu);
  const int repeats = int(cli::integer_value("--repeats", r["repeats"].as<std::string>(), 1, 1 << 20));
  const int warmup = int(cli::integer_value("--warmup", r["warmup"].as<std::string>(), 0, 1 << 20));
  const long long batch = cli::integer_value("--batch", r["batch"].as<std::string>(), 1, 1ll << 40);
  std::vector<int> sizes;
  for (long long k : cli::integer_list("--sizes", r["sizes"].as<std::string>(), -(1 << 20), 1 << 20)) sizes.push_back(int(k));
  const int sweep = int(cli::integer_value("--sweep-log2", r["sweep-log2"].as<std::string>(), -(1 << 20), 1 << 20));
  std::vector<int> sweep_blocks;
  for (long long b : cli::integer_list("--sweep-blocks", r["sweep-blocks"].as<std::string>(), -(1 << 20), 1 << 20))
    sweep_blocks.push_back(int(b));
  int largest = sweep;
  for (int k : sizes) largest = std::max(largest, k);
  const cuda::device_context dev = require_device("bench fft");
  fft_runner ctx(dev, (static_cast<std::size_t>(batch) << largest) * 16);
  const std::string command = cli::command_line("swat-gpu bench fft", args);

  std::vector<row> rows;
  std::cout << "FFT (Stockham, shared-memory tiles, one grid barrier per global pass) on " << dev.describe()
            << "\nsync = total - compute (same kernel, barrier removed); vsCuFFT = cuFFT ms / ours (>1: faster);"
               " vsTwin = per-pass-launch (cpu) ms / ours\n"
            << std::setw(7) << "section" << std::setw(6) << "prec" << std::setw(5) << "log2" << std::setw(14) << "mode"
            << std::setw(7) << "blocks" << std::setw(11) << "total ms" << std::setw(11) << "compute" << std::setw(11)
            << "sync ms" << std::setw(7) << "sync%" << std::setw(10) << "vsCuFFT" << std::setw(10) << "vsTwin" << "\n";
  const auto measure_size = [&](precision prec, int k, const std::string& section, const std::vector<int>& grids) {
    const fft_plan plan = make_fft_plan(k, batch, prec, direction::forward);
    ctx.fill(plan);
    const double cufft = ctx.time_cufft(plan, repeats, warmup);
    const double twin = ctx.time_ours(plan, {.mode = sync_mode::cpu}, repeats, warmup);
    const int cap = ctx.max_blocks(plan, sync_mode::none);
    for (sync_mode m : modes) {
      const bool persistent = is_persistent(m);
      for (int g : grids) {
        if (!persistent && section == "blocks" && g != grids.front()) continue;
        // Same grid for the mode and its barrier-free twin: within both caps.
        const int both = persistent ? std::min(cap, ctx.max_blocks(plan, m)) : cap;
        const int blocks = g > 0 ? std::min(g, both) : default_blocks(plan, both);
        row x{section, prec, k, batch, m, blocks, plan.barriers(), 0, 0, cufft, twin};
        x.total_ms = m == sync_mode::cpu && section == "size" ? twin : ctx.time_ours(plan, {.mode = m, .blocks = persistent ? blocks : 0}, repeats, warmup);
        x.compute_ms = ctx.time_ours(plan, {.mode = sync_mode::none, .blocks = blocks}, repeats, warmup);
        if (!persistent) x.blocks = static_cast<int>(std::min<long long>(plan.max_tiles(), 1LL << 30));
        print_row(std::cout, x);
        rows.push_back(x);
      }
    }
  };
  for (precision prec : precs)
    for (int k : sizes) measure_size(prec, k, "size", {0});
  if (sweep > 0) measure_size(precision::fp32, sweep, "blocks", sweep_blocks);

  // Crossover: largest size where the best persistent mode is >= 1.3x its launch twin.
  for (precision prec : precs) {
    int cross = -1;
    for (int k : sizes) {
      double best = 0;
      for (const row& x : rows)
        if (x.section == "size" && x.prec == prec && x.log2_n == k && is_persistent(x.mode)) best = std::max(best, x.twin_ms / x.total_ms);
      if (best >= 1.3) cross = k;
    }
    std::cout << prec_name(prec) << ": best barrier version >= 1.3x its per-pass-launch twin up to "
              << (cross < 0 ? std::string("no size") : "2^" + std::to_string(cross)) << "\n";
  }
  if (r.count("csv")) {
    std::ofstream csv(r["csv"].as<std::string>());
    if (!csv) throw runtime_failure("bench fft: cannot write " + r["csv"].as<std::string>());
    write_csv_provenance(csv, "swat-gpu bench fft", command, r["commit"].as<std::string>(), dev.describe());
    csv << "section,precision,log2_n,batch,mode,blocks,barriers,total_ms,compute_ms,sync_ms,sync_pct,"
           "per_barrier_us,cufft_ms,ratio_vs_cufft,twin_ms,speedup_vs_twin\n";
    for (const row& x : rows) csv_row(csv, x);
  }
  return 0;
}

}  // namespace

//! Adds `bench fft` to registry (listed by bench/fft/CMakeLists.txt).
void register_fft_bench(cli::bench_registry& registry) {
  registry.add({"fft", "bundled multi-block FFT vs cuFFT", true, &fft_main});
}

}  // namespace swat::bench

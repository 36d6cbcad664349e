// `swat-gpu bench sw`: matrix-filling time of the paper engines (Xiao, Aji & Feng 2009 Fig. 8
// and 10) per kernel × sync mode × block count × sequence length, GCUPS and the compute/sync
// split (compute = the same persistent kernel with the barrier removed, mode none): options,
// main and registration. Sequences: prefixes of SARS-CoV-2 × RaTG13 for the short lengths, the
// human × orangutan mtDNA pair (16.5k) and the full SARS-CoV-2 × RaTG13 pair (30k).

#include <cxxopts.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "bench/common/bench_data.hpp"
#include "bench/common/bench_gpu.hpp"
#include "bench/common/bench_record.hpp"
#include "cli/bench_registry.hpp"
#include "cli/option_values.hpp"
#include "common/error.hpp"
#include "cuda/engines/paper/sw_fill.hpp"
#include "cuda/sync/barrier/barrier_layout.hpp"
#include "engine/sync_mode.hpp"
#include "scoring/scoring.hpp"

namespace swat::bench {
namespace {

using paper::code_layout;
using paper::fill_config;
using paper::fill_result;
using paper::kernel_kind;

//! One benchmark input pair.
struct bench_pair {
  std::string label;
  std::vector<std::uint8_t> query, target;
};

//! The pair for a length: 16500 → mtDNA, 30000 → SARS-CoV-2 × RaTG13, else prefixes of it.
bench_pair make_pair(long length, const std::vector<std::uint8_t>& sars,
                     const std::vector<std::uint8_t>& ratg) {
  bench_pair p;
  if (length == 16500) {
    p.label = "16.5k mtDNA human x orangutan";
    p.query = read_dna("dna/mt_human.fa");
    p.target = read_dna("dna/mt_orang.fa");
  } else if (length == 30000) {
    p.label = "30k SARS-CoV-2 x RaTG13";
    p.query = sars;
    p.target = ratg;
  } else {
    const std::size_t l = static_cast<std::size_t>(length);
    if (l > sars.size() || l > ratg.size()) throw usage_error("bench sw: length too long");
    p.label = std::to_string(length) + " SARS-CoV-2 x RaTG13 prefix";
    p.query.assign(sars.begin(), sars.begin() + long(l));
    p.target.assign(ratg.begin(), ratg.begin() + long(l));
  }
  return p;
}

int sw_main(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu bench sw",
                        "Matrix-filling time of the paper engines (Xiao, Aji & Feng 2009 Fig. 8/10)");
  opts.add_options()
      ("lengths", "sequence lengths (16500 = mtDNA pair, 30000 = SARS-CoV-2 x RaTG13, others "
                  "prefixes of it)", cxxopts::value<std::string>()->default_value("1000,2000,4000,8461,16500,30000"))
      ("kernels", "kernels", cxxopts::value<std::string>()->default_value("diagonal,coalesced,tiled"))
      ("modes", "sync modes (none = compute only, always run)",
       cxxopts::value<std::string>()->default_value("cpu,cpu-explicit,graph,simple,tree,tree3,lockfree,cg,flag,stripe,lastin"))
      ("sweep-length", "length whose block counts are swept (Fig. 8)", cxxopts::value<std::string>()->default_value("8461"))
      ("blocks", "block counts of the sweep (default 8,16,33,66,132,264,528,max)", cxxopts::value<std::string>()->default_value(""))
      ("tile", "tile edge of the tiled kernel", cxxopts::value<std::string>()->default_value("32"))
      ("reps", "timed runs per point (minimum reported)", cxxopts::value<std::string>()->default_value("3"))
      ("csv", "write CSV rows to FILE", cxxopts::value<std::string>())
      ("h,help", "this help");
  const auto argv = cli::argv_of("swat-gpu bench sw", args);
  const auto r = opts.parse(static_cast<int>(argv.size()), argv.data());
  cli::reject_unmatched(r.unmatched());
  if (r.count("help")) {
    std::cout << opts.help() << '\n';
    return 0;
  }
  const auto lengths = cli::integer_list("--lengths", r["lengths"].as<std::string>(), 1, 1ll << 31);
  std::vector<kernel_kind> kernels;
  for (const std::string& k : cli::word_list(r["kernels"].as<std::string>())) kernels.push_back(paper::parse_kernel_kind(k));
  std::vector<sync_mode> modes;
  for (const std::string& m : cli::word_list(r["modes"].as<std::string>())) modes.push_back(parse_sync_mode(m));
  std::vector<int> sweep_blocks;
  for (long long b : cli::integer_list("--blocks", r["blocks"].as<std::string>(), 1, 1 << 20)) sweep_blocks.push_back(int(b));
  const long sweep_length = long(cli::integer_value("--sweep-length", r["sweep-length"].as<std::string>(), 0, 1ll << 31));
  const int tile = int(cli::integer_value("--tile", r["tile"].as<std::string>(), 1, paper::max_tile));
  const int reps = std::max(1, int(cli::integer_value("--reps", r["reps"].as<std::string>(), -(1 << 20), 1 << 20)));
  const cuda::device_context dev = require_device("bench sw");

  std::ofstream csv;
  if (r.count("csv")) {
    csv.open(r["csv"].as<std::string>());
    if (!csv) throw runtime_failure("cannot write " + r["csv"].as<std::string>());
    const char* commit = std::getenv("SWAT_GIT_COMMIT");
    write_csv_provenance(csv, "swat-gpu bench sw (Xiao, Aji & Feng 2009)", cli::command_line("swat-gpu bench sw", args),
                         commit ? commit : "", dev.describe());
    csv << "# scheme: DNA match 2 mismatch -3 gap open 5 extend 2; time = min of " << reps
        << " runs; compute = mode none (barrier removed), sync = time - compute\n"
        << "length,label,m,n,kernel,mode,blocks,threads,steps,fill_ms,gcups,compute_ms,sync_ms,"
           "sync_pct,sync_us_per_step,padding_pct,score\n";
  }
  const scoring_scheme scheme = scoring::make_dna_scheme(2, -3, 5, 2);
  const auto sars = read_dna("dna/sarscov2_MN908947.3.fa");
  const auto ratg = read_dna("dna/ratg13_MN996532.2.fa");
  paper::wavefront_fill ctx(dev);
  std::cout << std::left << std::setw(7) << "length" << std::setw(11) << "kernel" << std::setw(13)
            << "mode" << std::right << std::setw(7) << "blocks" << std::setw(11) << "fill_ms"
            << std::setw(9) << "GCUPS" << std::setw(11) << "compute" << std::setw(10) << "sync%"
            << std::setw(11) << "us/step" << '\n';
  for (const long long length : lengths) {
    const bench_pair pair = make_pair(length, sars, ratg);
    const double cells = double(pair.query.size()) * double(pair.target.size());
    for (const kernel_kind kernel : kernels) {
      std::vector<int> blocks_list{0};
      if (length == sweep_length) {
        blocks_list = sweep_blocks;
        if (blocks_list.empty()) blocks_list = barrier::bench_block_counts(ctx.max_blocks(kernel, tile));
      }
      const double padding = code_layout(kernel, long(pair.query.size()), long(pair.target.size()), tile).padding_overhead();
      for (const int blocks : blocks_list) {
        auto time = [&](sync_mode mode, fill_result* last) {
          fill_config c;
          c.kernel = kernel;
          c.sync = mode;
          c.tile = tile;
          c.blocks = blocks;
          c.copy_codes = false;
          double best_ms = 1e300;
          (void)ctx.fill(pair.query, pair.target, scheme, c);  // warm-up
          for (int k = 0; k < reps; ++k) {
            fill_result fr = ctx.fill(pair.query, pair.target, scheme, c);
            best_ms = std::min(best_ms, fr.fill_ms);
            if (last) *last = std::move(fr);
          }
          return best_ms;
        };
        fill_result info;
        const double compute_ms = time(sync_mode::none, &info);
        std::vector<sync_mode> run_modes(modes.begin(), modes.end());
        run_modes.push_back(sync_mode::none);
        for (const sync_mode mode : run_modes) {
          fill_result fr;
          const double ms = mode == sync_mode::none ? compute_ms : time(mode, &fr);
          if (mode == sync_mode::none) fr = info;
          const double sync_ms = std::max(0.0, ms - compute_ms);
          const double gcups = cells / (ms * 1e6);
          const double per_step_us = 1e3 * sync_ms / double(fr.steps);
          std::cout << std::left << std::setw(7) << length << std::setw(11) << paper::to_string(kernel)
                    << std::setw(13) << to_string(mode) << std::right << std::setw(7) << fr.blocks
                    << std::fixed << std::setprecision(3) << std::setw(11) << ms
                    << std::setprecision(2) << std::setw(9) << gcups << std::setprecision(3)
                    << std::setw(11) << compute_ms << std::setprecision(1) << std::setw(10)
                    << 100.0 * sync_ms / ms << std::setprecision(3) << std::setw(11)
                    << per_step_us << '\n';
          if (csv)
            csv << length << ",\"" << pair.label << "\"," << pair.query.size() << ','
                << pair.target.size() << ',' << paper::to_string(kernel) << ',' << to_string(mode) << ','
                << fr.blocks << ',' << fr.threads << ',' << fr.steps << ',' << ms << ',' << gcups
                << ',' << compute_ms << ',' << sync_ms << ',' << 100.0 * sync_ms / ms << ','
                << per_step_us << ',' << 100.0 * padding << ',' << fr.best.score << '\n';
        }
        std::cout.flush();
        if (csv) csv.flush();
      }
    }
  }
  return 0;
}

}  // namespace

//! Adds `bench sw` to registry (listed by bench/sw/CMakeLists.txt).
void register_sw_bench(cli::bench_registry& registry) {
  registry.add({"sw", "GPU Smith-Waterman matrix fill per kernel x sync mode (paper engines)", true, &sw_main});
}

}  // namespace swat::bench

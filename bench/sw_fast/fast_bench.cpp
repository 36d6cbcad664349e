// `swat-gpu bench fast`: options, main and registration of the fast engine's benchmark. Fills:
// kernel time of each fill variant by CUDA events, median of --reps runs after one warm-up,
// GCUPS = m·n / time, on prefixes of S. kunkelii × its mutated copy; --trace runs the GPU
// traceback instead (fast_trace_bench.cpp). CSV rows carry command, commit, device and date.

#include <cxxopts.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "bench/common/bench_data.hpp"
#include "bench/common/bench_gpu.hpp"
#include "bench/common/bench_record.hpp"
#include "bench/sw_fast/fast_trace_bench.hpp"
#include "cli/bench_registry.hpp"
#include "cli/option_values.hpp"
#include "common/error.hpp"
#include "cuda/engines/fast/fast_bands.hpp"
#include "cuda/engines/fast/fast_fill.hpp"
#include "scoring/scoring.hpp"

namespace swat::bench {

namespace {

using fast::fill_options;
using fast::fill_result;
using fast::fill_variant;

//! One row kind of the table: a name and the fill options behind it.
struct bench_variant {
  std::string name;
  fill_options options;
  int bands = -1;             //!< ≥ 0: fast_bands.hpp with this many bands on the device (0: one per round)
  bool through_host = false;  //!< bands hand over through mapped host memory
};

const char* variant_name(fill_variant v) {
  switch (v) {
    case fill_variant::score16: return "score16";
    case fill_variant::score32: return "score32";
    case fill_variant::origins32: return "origins32";
  }
  return "?";
}

int fast_main(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu bench fast", "Score-only GCUPS of the fast engine's fills");
  opts.add_options()
      ("lengths", "pair lengths (prefixes of S. kunkelii × its mutated copy; 0 = whole genome)",
       cxxopts::value<std::string>()->default_value("1000,4000,16000,64000,256000,0"))
      ("reps", "timed runs per length (median; 1 above 500k)", cxxopts::value<std::string>()->default_value("5"))
      ("variants", "score16, score32, origins32, or score16@MODE: score16 with a grid barrier of MODE "
       "(simple, tree, tree3, lockfree, cg, flag, stripe, lastin) instead of ready flags",
       cxxopts::value<std::string>()->default_value("score16,score32,origins32"))
      ("barrier-columns", "columns between two grid barriers of the score16@MODE variants (each value a row)",
       cxxopts::value<std::string>()->default_value("64"))
      ("bands", "also each score16/score32 variant cut into this many bands of query rows on this GPU, one "
       "after the other, or cycled over --devices (fast_bands.hpp: the multi-GPU hand-over; 0: bands of at most "
       "one round of co-resident warps each, as many on every GPU), comma-separated",
       cxxopts::value<std::string>()->default_value(""))
      ("through-host", "the --bands variants hand their border rows over through mapped host memory too")
      ("devices", "the --bands variants' bands cycled over these GPUs (comma-separated ids; default: this GPU)",
       cxxopts::value<std::string>()->default_value(""))
      ("max-blocks", "also each variant with its grid capped at these block counts (fewer warps in flight), "
       "comma-separated", cxxopts::value<std::string>()->default_value(""))
      ("reverse-target", "read the target backwards: an unrelated sequence of the same composition whose "
       "local scores stay small (score16 without overflow)")
      ("trace", "instead of the fills: full GPU traceback (fast_trace.hpp) of SARS-CoV-2 × RaTG13 and of "
       "the 1.46 Mb pair, time split into crossing fills, codes fills and CPU walk")
      ("long-pair", "instead of the fills: the 1.46 Mb pair's score passes, traceback and whole command "
       "(issue 26's long_pair CSV; --csv is written anew)")
      ("csv", "append rows to this CSV", cxxopts::value<std::string>()->default_value(""))
      ("commit", "commit recorded in the CSV", cxxopts::value<std::string>()->default_value("unknown"))
      ("h,help", "this help");
  const auto argv = cli::argv_of("swat-gpu bench fast", args);
  const auto r = opts.parse(int(argv.size()), argv.data());
  cli::reject_unmatched(r.unmatched());
  if (r.count("help")) {
    std::cout << opts.help() << "\n";
    return 0;
  }
  const std::string command = cli::command_line("bench fast", args);
  const int reps_option = int(cli::integer_value("--reps", r["reps"].as<std::string>(), 1, 1 << 20));
  const auto lengths = cli::integer_list("--lengths", r["lengths"].as<std::string>(), 0, 1ll << 31);
  const auto barrier_columns = cli::integer_list("--barrier-columns", r["barrier-columns"].as<std::string>(),
                                                 -(1 << 20), 1 << 20);
  const cuda::device_context dev = require_device("bench fast");
  if (r.count("long-pair"))
    return long_pair_bench(dev, reps_option, r["csv"].as<std::string>(), r["commit"].as<std::string>());
  if (r.count("trace"))
    return fast_trace_bench(dev, command, reps_option, r["csv"].as<std::string>(), r["commit"].as<std::string>());

  const auto query = read_dna("dna/spiroplasma_kunkelii_CP010899.1.fa");
  auto target = read_dna("dna/spiroplasma_kunkelii_CP010899.1_mutated_seed42.fa");
  const bool reversed = r.count("reverse-target") > 0;
  if (reversed) std::reverse(target.begin(), target.end());
  const scoring_scheme scheme = scoring::make_dna_scheme(2, -3, 5, 2);
  const std::string& device = dev.name();
  std::ofstream csv;
  if (!r["csv"].as<std::string>().empty()) {
    const std::string path = r["csv"].as<std::string>();
    const bool fresh = !std::ifstream(path).good();
    csv.open(path, std::ios::app);
    if (fresh) csv << "command,commit,device,date,variant,target,m,n,seconds,gcups,score,query_end,target_end,blocks,strips,ran,overflow_seconds,flag_wait_share\n";
  }
  std::vector<bench_variant> variants;
  for (const std::string& vname : cli::word_list(r["variants"].as<std::string>())) {
    const auto at = vname.find('@');
    const std::string base = vname.substr(0, at);
    fill_options o;
    if (base == "score16") o.variant = fill_variant::score16;
    else if (base == "score32") o.variant = fill_variant::score32;
    else if (base == "origins32") o.variant = fill_variant::origins32;
    else throw usage_error("bench fast: unknown variant " + vname + " (score16, score32, origins32, score16@MODE)");
    if (at == std::string::npos) {
      variants.push_back({vname, o});
      continue;
    }
    if (o.variant != fill_variant::score16) throw usage_error("bench fast: only score16 takes @MODE (" + vname + ")");
    o.grid_barrier = parse_sync_mode(vname.substr(at + 1));
    if (!is_persistent(*o.grid_barrier))
      throw usage_error("bench fast: " + vname + ": the grid-barrier fill takes a persistent mode");
    for (long long c : barrier_columns) {
      if (c < 32 || c % 32 != 0) throw usage_error("bench fast: --barrier-columns must be multiples of 32");
      o.barrier_columns = int(c);
      variants.push_back({vname + "/" + std::to_string(c), o});
    }
  }
  if (!r["bands"].as<std::string>().empty()) {
    const std::vector<bench_variant> plain = variants;
    for (long long b : cli::integer_list("--bands", r["bands"].as<std::string>(), 0, 64))
      for (const bench_variant& v : plain) {
        if (v.options.grid_barrier || v.options.variant == fill_variant::origins32) continue;
        for (bool host : r.count("through-host") ? std::vector<bool>{false, true} : std::vector<bool>{false})
          variants.push_back({v.name + "/bands" + std::to_string(b) + (host ? "h" : ""), v.options, int(b), host});
      }
  }
  if (!r["max-blocks"].as<std::string>().empty()) {
    const std::vector<bench_variant> plain = variants;
    for (long long b : cli::integer_list("--max-blocks", r["max-blocks"].as<std::string>(), 1, 1 << 20))
      for (bench_variant v : plain) {
        v.options.max_blocks = int(b);
        v.name += "/max" + std::to_string(b);
        variants.push_back(v);
      }
  }
  std::vector<int> band_devices{dev.id()};
  if (!r["devices"].as<std::string>().empty()) {
    band_devices.clear();
    for (long long d : cli::integer_list("--devices", r["devices"].as<std::string>(), 0, 1023)) {
      if (d >= cuda::device_count()) throw usage_error("bench fast: --devices: no GPU " + std::to_string(d));
      band_devices.push_back(int(d));
    }
  }
  fast::fill_context ctx(dev);
  std::printf("%-18s %9s %9s %10s %9s %9s %6s %s\n", "variant", "m", "n", "seconds", "GCUPS", "score", "wait%",
              "ran");
  for (long long len : lengths) {
    const std::size_t m = len > 0 ? std::min<std::size_t>(std::size_t(len), query.size()) : query.size();
    const std::size_t n = len > 0 ? std::min<std::size_t>(std::size_t(len), target.size()) : target.size();
    const residue_span q(query.data(), m), t(target.data(), n);
    for (const bench_variant& bv : variants) {
      const std::string& vname = bv.name;
      const fill_options& o = bv.options;
      const double cells = double(m) * double(n);
      const int reps = cells > 2.5e11 ? 1 : reps_option;
      fast::band_layout layout;
      layout.devices = band_devices;
      layout.through_host = bv.through_host;
      const auto run = [&] { return bv.bands >= 0 ? fast::fill_bands(q, t, scheme, o, bv.bands, layout) : ctx.fill(q, t, scheme, o); };
      fill_result res = run();  // warm-up
      std::vector<double> times;
      for (int k = 0; k < reps; ++k) {
        res = run();
        times.push_back(res.kernel_seconds);
      }
      if (bv.bands >= 0) {
        std::string waits;
        for (const double w : res.band_wait_shares) waits += (waits.empty() ? "" : " ") + std::to_string(int(100 * w + 0.5)) + "%";
        std::printf("  (%s: %lld bytes of border rows handed over, %.2f GB/s over the fill, %d through host memory; "
                    "flag waits by band: %s)\n",
                    vname.c_str(), (long long)res.handover_bytes, double(res.handover_bytes) / median(times) / 1e9,
                    res.handovers_through_host, waits.c_str());
      }
      const double sec = median(times);
      const double gcups = cells / sec / 1e9;
      std::printf("%-18s %9zu %9zu %10.5f %9.1f %9d %6.1f %s\n", vname.c_str(), m, n, sec, gcups, res.best.score,
                  100.0 * res.flag_wait_share,
                  res.overflowed ? "score32 (16-bit overflow, rerun)" : variant_name(res.ran));
      std::fflush(stdout);
      if (csv.is_open())
        csv << csv_quote(command) << "," << r["commit"].as<std::string>() << "," << csv_quote(device) << ","
            << utc_now() << "," << vname << "," << (reversed ? "reversed" : "mutated") << "," << m << "," << n << "," << sec << "," << gcups << ","
            << res.best.score << "," << res.best.query_end << "," << res.best.target_end << ","
            << res.blocks << "," << res.strips << "," << variant_name(res.ran) << "," << res.overflow_seconds << ","
            << res.flag_wait_share << "\n";
    }
  }
  return 0;
}

}  // namespace

//! Adds `bench fast` to registry (listed by bench/sw_fast/CMakeLists.txt).
void register_fast_bench(cli::bench_registry& registry) {
  registry.add({"fast", "fast register-tiled engine: score-only GCUPS, 1k to 1.46 Mb", true, &fast_main});
}

}  // namespace swat::bench

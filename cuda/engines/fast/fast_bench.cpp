// `bench fast` (fast_bench.hpp): kernel time of each fill variant by CUDA events, median of
// --reps runs after one warm-up, GCUPS = m·n / time.

#include "cuda/common/bench_record.hpp"
#include "cuda/engines/fast/fast_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include <cxxopts.hpp>

#include "common/error.hpp"
#include "cuda/common/cuda_check.hpp"
#include "cuda/engines/fast/fast_fill.hpp"
#include "cuda/engines/fast/fast_trace.hpp"
#include "io/fasta.hpp"
#include "scoring/scoring.hpp"

namespace swat::fast {

namespace {

//! One row kind of the table: a name and the fill options behind it.
struct bench_variant {
  std::string name;
  fill_options options;
};

const char* variant_name(fill_variant v) {
  switch (v) {
    case fill_variant::score16: return "score16";
    case fill_variant::score32: return "score32";
    case fill_variant::origins32: return "origins32";
  }
  return "?";
}

std::string data_dir() {
  if (const char* env = std::getenv("SWAT_SHARED_DATA")) return env;
  return SWAT_SHARED_DATA_DIR;
}

std::vector<std::uint8_t> read_one(const std::string& rel) {
  const auto set = io::read_fasta(data_dir() + "/" + rel, io::alphabet_request::dna, {});
  if (set.records.empty()) throw input_error(rel, "no record");
  return set.records.front().residues;
}

std::string csv_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

//! `bench fast --trace`: the GPU traceback of two real pairs, median of reps (one run for the
//! 1.46 Mb pair), with the split of trace_stats.
int trace_bench(const std::string& command, int reps, const std::string& csv_path, const std::string& commit) {
  struct pair_spec {
    const char* name;
    const char* query;
    const char* target;
  };
  const pair_spec pairs[] = {
      {"sarscov2 x ratg13", "dna/sarscov2_MN908947.3.fa", "dna/ratg13_MN996532.2.fa"},
      {"spiroplasma x mutated", "dna/spiroplasma_kunkelii_CP010899.1.fa",
       "dna/spiroplasma_kunkelii_CP010899.1_mutated_seed42.fa"}};
  const scoring_scheme scheme = scoring::make_dna_scheme(2, -3, 5, 2);
  const std::string device = cuda::device_name();
  std::ofstream csv;
  if (!csv_path.empty()) {
    const bool fresh = !std::ifstream(csv_path).good();
    csv.open(csv_path, std::ios::app);
    if (fresh)
      csv << "command,commit,device,date,pair,m,n,total_s,crossing_s,crossing_fills,codes_s,codes_fills,walk_s,"
             "band_rows,peak_bytes,root_flag_wait_share,score,query_begin,query_end,target_begin,target_end\n";
  }
  std::printf("%-22s %8s %8s %9s %9s %6s %9s %9s %6s %9s\n", "pair", "m", "n", "total s", "crossing", "wait%",
              "codes", "walk", "K", "score");
  for (const pair_spec& p : pairs) {
    const auto q = read_one(p.query), t = read_one(p.target);
    const int n_reps = double(q.size()) * double(t.size()) > 1e11 ? 1 : std::max(reps, 1);
    std::vector<std::pair<double, trace_stats>> runs;
    alignment a;
    for (int k = 0; k < n_reps; ++k) {
      auto backend = make_gpu_trace_backend(scheme, 20.0, trace_progress{});
      trace_options o;
      o.budget_bytes = std::int64_t(double(device_free_bytes()) * 0.9);
      trace_stats st;
      const auto t0 = std::chrono::steady_clock::now();
      a = trace_alignment(q, t, *backend, o, &st);
      runs.push_back({std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), st});
    }
    std::sort(runs.begin(), runs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    const auto& [total, st] = runs[runs.size() / 2];
    std::printf("%-22s %8zu %8zu %9.3f %9.3f %6.1f %9.3f %9.3f %6lld %9d\n", p.name, q.size(), t.size(), total,
                st.crossing_seconds, 100.0 * st.root_flag_wait_share, st.codes_seconds, st.walk_seconds, (long long)st.root_band_rows, a.score);
    std::fflush(stdout);
    if (csv.is_open())
      csv << csv_quote(command) << "," << commit << "," << csv_quote(device) << "," << cuda::utc_now() << ","
          << csv_quote(p.name) << "," << q.size() << "," << t.size() << "," << total << "," << st.crossing_seconds
          << "," << st.crossing_fills << "," << st.codes_seconds << "," << st.codes_fills << "," << st.walk_seconds
          << "," << st.root_band_rows << "," << st.peak_bytes << "," << st.root_flag_wait_share << "," << a.score << "," << a.query_begin + 1 << ","
          << a.query_end << "," << a.target_begin + 1 << "," << a.target_end << "\n";
  }
  return 0;
}

}  // namespace

int bench_main(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu bench fast", "Score-only GCUPS of the fast engine's fills");
  opts.add_options()
      ("lengths", "pair lengths (prefixes of S. kunkelii × its mutated copy; 0 = whole genome)",
       cxxopts::value<std::vector<long>>()->default_value("1000,4000,16000,64000,256000,0"))
      ("reps", "timed runs per length (median; 1 above 500k)", cxxopts::value<int>()->default_value("5"))
      ("variants", "score16, score32, origins32, or score16@MODE: score16 with a grid barrier of MODE "
       "(simple, tree, tree3, lockfree, cg, flag, stripe, lastin) instead of ready flags",
       cxxopts::value<std::vector<std::string>>()->default_value("score16,score32,origins32"))
      ("barrier-columns", "columns between two grid barriers of the score16@MODE variants (each value a row)",
       cxxopts::value<std::vector<int>>()->default_value("64"))
      ("reverse-target", "read the target backwards: an unrelated sequence of the same composition whose "
       "local scores stay small (score16 without overflow)")
      ("trace", "instead of the fills: full GPU traceback (fast_trace.hpp) of SARS-CoV-2 × RaTG13 and of "
       "the 1.46 Mb pair, time split into crossing fills, codes fills and CPU walk")
      ("csv", "append rows to this CSV", cxxopts::value<std::string>()->default_value(""))
      ("commit", "commit recorded in the CSV", cxxopts::value<std::string>()->default_value("unknown"))
      ("h,help", "this help");
  std::vector<std::string> store{"bench-fast"};
  store.insert(store.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : store) argv.push_back(s.data());
  const auto r = opts.parse(int(argv.size()), argv.data());
  if (r.count("help")) {
    std::cout << opts.help() << "\n";
    return 0;
  }
  std::string command = "bench fast";
  for (const auto& a : args) command += " " + a;
  if (r.count("trace"))
    return trace_bench(command, r["reps"].as<int>(), r["csv"].as<std::string>(), r["commit"].as<std::string>());

  const auto query = read_one("dna/spiroplasma_kunkelii_CP010899.1.fa");
  auto target = read_one("dna/spiroplasma_kunkelii_CP010899.1_mutated_seed42.fa");
  const bool reversed = r.count("reverse-target") > 0;
  if (reversed) std::reverse(target.begin(), target.end());
  const scoring_scheme scheme = scoring::make_dna_scheme(2, -3, 5, 2);
  const std::string device = cuda::device_name();
  std::ofstream csv;
  if (!r["csv"].as<std::string>().empty()) {
    const std::string path = r["csv"].as<std::string>();
    const bool fresh = !std::ifstream(path).good();
    csv.open(path, std::ios::app);
    if (fresh) csv << "command,commit,device,date,variant,target,m,n,seconds,gcups,score,query_end,target_end,blocks,strips,ran,overflow_seconds,flag_wait_share\n";
  }
  std::vector<bench_variant> variants;
  for (const std::string& vname : r["variants"].as<std::vector<std::string>>()) {
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
    for (int c : r["barrier-columns"].as<std::vector<int>>()) {
      if (c < 32 || c % 32 != 0) throw usage_error("bench fast: --barrier-columns must be multiples of 32");
      o.barrier_columns = c;
      variants.push_back({vname + "/" + std::to_string(c), o});
    }
  }
  fill_context ctx;
  std::printf("%-18s %9s %9s %10s %9s %9s %6s %s\n", "variant", "m", "n", "seconds", "GCUPS", "score", "wait%",
              "ran");
  for (long len : r["lengths"].as<std::vector<long>>()) {
    const std::size_t m = len > 0 ? std::min<std::size_t>(std::size_t(len), query.size()) : query.size();
    const std::size_t n = len > 0 ? std::min<std::size_t>(std::size_t(len), target.size()) : target.size();
    const residue_span q(query.data(), m), t(target.data(), n);
    for (const bench_variant& bv : variants) {
      const std::string& vname = bv.name;
      const fill_options& o = bv.options;
      const double cells = double(m) * double(n);
      const int reps = cells > 2.5e11 ? 1 : r["reps"].as<int>();
      fill_result res = ctx.fill(q, t, scheme, o);  // warm-up
      std::vector<double> times;
      for (int k = 0; k < reps; ++k) {
        res = ctx.fill(q, t, scheme, o);
        times.push_back(res.kernel_seconds);
      }
      std::sort(times.begin(), times.end());
      const double sec = times[times.size() / 2];
      const double gcups = cells / sec / 1e9;
      std::printf("%-18s %9zu %9zu %10.5f %9.1f %9d %6.1f %s\n", vname.c_str(), m, n, sec, gcups, res.best.score,
                  100.0 * res.flag_wait_share,
                  res.overflowed ? "score32 (16-bit overflow, rerun)" : variant_name(res.ran));
      std::fflush(stdout);
      if (csv.is_open())
        csv << csv_quote(command) << "," << r["commit"].as<std::string>() << "," << csv_quote(device) << ","
            << cuda::utc_now() << "," << vname << "," << (reversed ? "reversed" : "mutated") << "," << m << "," << n << "," << sec << "," << gcups << ","
            << res.best.score << "," << res.best.query_end << "," << res.best.target_end << ","
            << res.blocks << "," << res.strips << "," << variant_name(res.ran) << "," << res.overflow_seconds << ","
            << res.flag_wait_share << "\n";
    }
  }
  return 0;
}

}  // namespace swat::fast

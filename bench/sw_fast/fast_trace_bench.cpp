// `swat-gpu bench fast --trace`: the fast engine's full GPU traceback (fast_trace.hpp) of
// SARS-CoV-2 × RaTG13 and of the 1.46 Mb S. kunkelii pair, time split into crossing fills, codes
// fills and the CPU walk (median of --reps, one run for the 1.46 Mb pair).

#include "bench/sw_fast/fast_trace_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include <filesystem>
#include <iostream>
#include <unistd.h>

#include "bench/common/bench_data.hpp"
#include "bench/common/bench_process.hpp"
#include "bench/common/bench_record.hpp"
#include "common/error.hpp"
#include "cuda/engines/fast/fast_fill.hpp"
#include "cuda/engines/fast/fast_trace.hpp"
#include "scoring/scoring.hpp"

namespace swat::bench {

using namespace fast;

int fast_trace_bench(const cuda::device_context& dev, const std::string& command, int reps,
                     const std::string& csv_path, const std::string& commit) {
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
  const std::string& device = dev.name();
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
    const auto q = read_dna(p.query), t = read_dna(p.target);
    const int n_reps = double(q.size()) * double(t.size()) > 1e11 ? 1 : std::max(reps, 1);
    std::vector<std::pair<double, trace_stats>> runs;
    alignment a;
    for (int k = 0; k < n_reps; ++k) {
      auto backend = make_gpu_trace_backend(dev, scheme, 20.0, trace_progress{});
      trace_options o;
      o.budget_bytes = std::int64_t(double(dev.free_bytes()) * 0.9);
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
      csv << csv_quote(command) << "," << commit << "," << csv_quote(device) << "," << utc_now() << ","
          << csv_quote(p.name) << "," << q.size() << "," << t.size() << "," << total << "," << st.crossing_seconds
          << "," << st.crossing_fills << "," << st.codes_seconds << "," << st.codes_fills << "," << st.walk_seconds
          << "," << st.root_band_rows << "," << st.peak_bytes << "," << st.root_flag_wait_share << "," << a.score << "," << a.query_begin + 1 << ","
          << a.query_end << "," << a.target_begin + 1 << "," << a.target_end << "\n";
  }
  return 0;
}

int long_pair_bench(const cuda::device_context& dev, int reps, const std::string& csv_path, const std::string& commit) {
  namespace fs = std::filesystem;
  const char* query_file = "dna/spiroplasma_kunkelii_CP010899.1.fa";
  const char* target_file = "dna/spiroplasma_kunkelii_CP010899.1_mutated_seed42.fa";
  const auto q = read_dna(query_file), t = read_dna(target_file);
  const scoring_scheme scheme = scoring::make_dna_scheme(2, -3, 5, 2);
  const double cells = double(q.size()) * double(t.size());
  const std::string date = utc_now();
  std::ostringstream rows;
  const auto row = [&](const char* phase, std::vector<double> seconds) {
    const double s = median(seconds);
    rows << "skunkelii_1.46mb," << phase << "," << s << "," << cells / s / 1e9 << "," << commit << ","
         << csv_quote(dev.name()) << "," << date << "\n";
    std::fprintf(stderr, "%-24s %9.3f s %9.1f GCUPS\n", phase, s, cells / s / 1e9);
  };
  const auto since = [](std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  reps = std::max(reps, 1);
  {  // the score passes (kernel time), one fill context as a search's pair engine
    fill_context ctx(dev);
    for (const auto& [phase, variant] : {std::pair{"score", fill_variant::score16}, std::pair{"score32", fill_variant::score32}}) {
      std::vector<double> s;
      for (int k = 0; k < reps; ++k) {
        fill_options o;
        o.variant = variant;
        const fill_result r = ctx.fill(q, t, scheme, o);
        if (r.best.score != 2832494) throw runtime_failure("bench fast --long-pair: score " + std::to_string(r.best.score));
        s.push_back(r.kernel_seconds);
      }
      row(phase, s);
    }
  }
  std::vector<double> rows_s, trace_s, codes_s, kernels_s, reads_s, walk_s, one_s, eight_s;
  alignment special;
  for (int k = 0; k < reps; ++k) {  // the score pass that keeps special rows, then the traceback from them
    auto backend = make_gpu_trace_backend(dev, scheme, 20.0, trace_progress{});
    auto t0 = std::chrono::steady_clock::now();
    const best_cell best = backend->special_fill(q, t, trace_options{}.special_band_rows, true);
    rows_s.push_back(since(t0));
    trace_options o;
    o.budget_bytes = std::int64_t(double(dev.free_bytes() + backend->held_bytes()) * 0.9);
    trace_stats st;
    t0 = std::chrono::steady_clock::now();
    special = trace_alignment(residue_span(q).first(std::size_t(best.query_end)),
                              residue_span(t).first(std::size_t(best.target_end)), *backend, o, &st);
    trace_s.push_back(since(t0));
    codes_s.push_back(st.codes_seconds);
    kernels_s.push_back(st.codes_kernel_seconds);
    reads_s.push_back(st.band_read_seconds);
    walk_s.push_back(st.walk_seconds);
    if (!st.special_reused) throw runtime_failure("bench fast --long-pair: the special rows were not reused");
    // The same walk with no band filled ahead (the rows stay kept), then in batches of 4.
    for (const std::size_t at_once : {std::size_t(1), std::size_t(4)}) {
      trace_options fewer = o;
      fewer.bands_at_once = at_once;
      if (at_once == 1) fewer.bands_ahead_min_walk = std::numeric_limits<std::int64_t>::max();  // no ring
      t0 = std::chrono::steady_clock::now();
      const alignment again = trace_alignment(residue_span(q).first(std::size_t(best.query_end)),
                                              residue_span(t).first(std::size_t(best.target_end)), *backend, fewer, nullptr);
      (at_once == 1 ? one_s : eight_s).push_back(since(t0));
      if (!(again == special)) throw runtime_failure("bench fast --long-pair: bands ahead changed the alignment");
    }
  }
  row("score_with_special_rows", rows_s);
  row("traceback", trace_s);
  row("traceback_band_fills", codes_s);
  row("traceback_band_kernels", kernels_s);
  row("traceback_special_row_reads", reads_s);
  row("traceback_cpu_walk", walk_s);
  row("traceback_one_band_at_a_time", one_s);
  row("traceback_batches_of_4", eight_s);
  {  // the crossing-pointer root fill it replaced, once, for the same alignment
    auto backend = make_gpu_trace_backend(dev, scheme, 20.0, trace_progress{});
    trace_options o;
    o.special = false;
    o.budget_bytes = std::int64_t(double(dev.free_bytes()) * 0.9);
    const auto t0 = std::chrono::steady_clock::now();
    const alignment root = trace_alignment(q, t, *backend, o, nullptr);
    row("traceback_root_fill", {since(t0)});
    if (!(root == special)) throw runtime_failure("bench fast --long-pair: the two tracebacks differ");
  }
  // The whole command (CUDA start, reading, score pass, traceback, output).
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const fs::path dir = fs::temp_directory_path() / ("swat_long_pair_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::vector<double> full;
  for (int k = 0; k < reps; ++k)
    full.push_back(timed_command("bench fast --long-pair",
                                 {self, "align", shared_data_dir() + "/" + query_file, shared_data_dir() + "/" + target_file, "--strand", "plus",
                                  "--quiet", "-o", (dir / "out.tsv").string()},
                                 (dir / "stderr.txt").string()));
  row("full", full);
  fs::remove_all(dir);
  const std::string text = "case,phase,seconds,gcups,commit,device,date\n" + rows.str();
  if (csv_path.empty()) {
    std::cout << text;
  } else {
    std::ofstream out(csv_path);
    out << text;
    if (!out) throw runtime_failure("bench fast --long-pair: cannot write " + csv_path);
  }
  return 0;
}

}  // namespace swat::bench

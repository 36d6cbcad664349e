// `swat-gpu bench fast --trace`: the fast engine's full GPU traceback (fast_trace.hpp) of
// SARS-CoV-2 × RaTG13 and of the 1.46 Mb S. kunkelii pair, time split into crossing fills, codes
// fills and the CPU walk (median of --reps, one run for the 1.46 Mb pair).

#include "bench/sw_fast/fast_trace_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "bench/common/bench_data.hpp"
#include "bench/common/bench_record.hpp"
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

}  // namespace swat::bench

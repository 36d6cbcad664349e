// `swat-gpu bench cpu`: GCUPS of the CPU engine's score pass and of full alignment on seeded
// random DNA pairs (about 10% substitutions, so alignments are long, as in real use), or with
// --shapes whole commands against parasail (cpu_vs_parasail.hpp): options, main and registration.

#include <cxxopts.hpp>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

#include "bench/common/bench_data.hpp"
#include "bench/common/bench_record.hpp"
#include "bench/cpu_engine/cpu_vs_parasail.hpp"
#include "cli/bench_registry.hpp"
#include "cli/option_values.hpp"
#include "common/error.hpp"
#include "engine/cpu_engine.hpp"
#include "engine/cpu_kernels.hpp"
#include "engine/cpu_traceback.hpp"
#include "scoring/scoring.hpp"

namespace swat::bench {
namespace {

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

//! One alignment on the CPU engine's linear-space path (one thread, 1 GiB for the traceback).
alignment rectangle_align(residue_span q, residue_span t, const scoring_scheme& scheme) {
  const cpu::pass_result pass = cpu::score_pass(q, t, scheme, true, nullptr);
  if (pass.best.score <= 0) return {};
  return cpu::trace_rectangle(q.subspan(std::size_t(pass.query_begin), std::size_t(pass.best.query_end - pass.query_begin)),
                              t.subspan(std::size_t(pass.target_begin), std::size_t(pass.best.target_end - pass.target_begin)),
                              scheme, pass.best.score, std::size_t(1) << 30);
}

int cpu_main(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu bench cpu", "CPU engine throughput on seeded random DNA pairs");
  // clang-format off
  opts.add_options()
    ("lengths", "comma-separated pair lengths", cxxopts::value<std::string>()->default_value("1000,2000,4000,8461"))
    ("threads", "threads of the engine (one pair uses one thread)", cxxopts::value<std::string>()->default_value("1"))
    ("repeat", "timed repetitions (median reported)", cxxopts::value<std::string>()->default_value("3"))
    ("csv", "also write CSV to this file", cxxopts::value<std::string>())
    ("commit", "git commit recorded in the CSV (default: from git)", cxxopts::value<std::string>())
    ("shapes", "instead, whole `align --device cpu` commands against parasail on these shapes: issue_protein, "
               "issue_reads and those of bench shapes (DNA on the plus strand)", cxxopts::value<std::string>())
    ("shape-threads", "thread counts of --shapes, for both tools (0: every core)",
     cxxopts::value<std::string>()->default_value("0"))
    ("parasail", "unpacked Debian parasail package (DIR/usr/bin/parasail_aligner) for --shapes",
     cxxopts::value<std::string>())
    ("scale", "--scale of the bench shapes shapes in --shapes", cxxopts::value<std::string>()->default_value("0.02"))
    ("h,help", "this help");
  // clang-format on
  const auto argv = cli::argv_of("swat-gpu bench cpu", args);
  const auto r = opts.parse(int(argv.size()), argv.data());
  cli::reject_unmatched(r.unmatched());
  if (r.count("help")) {
    std::cout << opts.help() << "\n";
    return 0;
  }
  const int repeat = int(cli::integer_value("--repeat", r["repeat"].as<std::string>(), 1, 1 << 20));
  const std::string commit = r.count("commit") ? r["commit"].as<std::string>() : git_commit(SWAT_CPU_BENCH_SOURCE_DIR);
  if (r.count("shapes")) {
    vs_parasail_options o;
    o.shapes = cli::word_list(r["shapes"].as<std::string>());
    for (const long long t : cli::integer_list("--shape-threads", r["shape-threads"].as<std::string>(), 0, 1 << 16))
      o.threads.push_back(unsigned(t));
    if (r.count("parasail")) {
      o.parasail_dir = r["parasail"].as<std::string>();
      if (!std::filesystem::exists(o.parasail_dir + "/usr/bin/parasail_aligner"))
        throw usage_error("--parasail: no " + o.parasail_dir + "/usr/bin/parasail_aligner");
    }
    o.self = std::filesystem::read_symlink("/proc/self/exe").string();
    o.scale = cli::real_value("--scale", r["scale"].as<std::string>(), 1e-6, 1e6);
    o.repeat = repeat;
    if (r.count("csv")) o.csv_path = r["csv"].as<std::string>();
    o.command = cli::command_line("swat-gpu bench cpu", args);
    o.commit = commit;
    o.machine = cpu_model();
    run_cpu_vs_parasail(o);
    return 0;
  }
  const auto threads = unsigned(cli::integer_value("--threads", r["threads"].as<std::string>(), 0, 1 << 20));
  const auto lengths = cli::integer_list("--lengths", r["lengths"].as<std::string>(), 0, 1ll << 31);
  const scoring_scheme scheme = scoring::make_dna_scheme(2, -3, 5, 2);
  cpu_engine engine(threads);
  std::mt19937_64 rng(42);
  std::ostringstream csv;
  // align: the engine (its tiled path where the layout fits); rect: the linear-space path the
  // engine keeps for very long sequences in a small budget (score pass with origins, then the
  // alignment rectangle refilled and walked back), timed in the same run for the ratio.
  csv << "length,cells,score_only_s,score_only_gcups,align_s,align_gcups,rect_align_s,rect_align_gcups\n";
  std::cout << std::setw(8) << "length" << std::setw(14) << "score s" << std::setw(10) << "GCUPS"
            << std::setw(14) << "align s" << std::setw(10) << "GCUPS" << std::setw(14) << "rect s" << std::setw(10)
            << "GCUPS" << "\n";
  for (const long long length_option : lengths) {
    const auto length = std::size_t(length_option);
    const auto q = random_dna(rng, length);
    const auto t = mutate(rng, q);
    const double cells = double(length) * double(length);
    const double score_s = median_seconds(repeat, [&] { (void)engine.score_only(q, t, scheme); });
    const double align_s = median_seconds(repeat, [&] { (void)engine.align(q, t, scheme); });
    const double rect_s = median_seconds(repeat, [&] { (void)rectangle_align(q, t, scheme); });
    std::cout << std::setw(8) << length << std::setw(14) << score_s << std::setw(10) << std::setprecision(3)
              << cells / score_s / 1e9 << std::setw(14) << align_s << std::setw(10) << cells / align_s / 1e9
              << std::setw(14) << rect_s << std::setw(10) << cells / rect_s / 1e9 << "\n";
    csv << length << "," << cells << "," << score_s << "," << cells / score_s / 1e9 << "," << align_s << ","
        << cells / align_s / 1e9 << "," << rect_s << "," << cells / rect_s / 1e9 << "\n";
  }
  if (r.count("csv")) {
    std::ofstream out(r["csv"].as<std::string>());
    write_csv_provenance(out, "swat-gpu bench cpu: CPU engine, threads " + std::to_string(engine.threads()),
                         cli::command_line("swat-gpu bench cpu", args), commit, cpu_model());
    out << csv.str();
    if (!out) throw runtime_failure("cannot write " + r["csv"].as<std::string>());
  }
  return 0;
}

}  // namespace

//! Adds `bench cpu` to registry (listed by bench/cpu_engine/CMakeLists.txt).
void register_cpu_bench(cli::bench_registry& registry) {
  registry.add({"cpu", "CPU engine: GCUPS of the score pass and of full alignment on seeded random DNA", false,
                &cpu_main});
}

}  // namespace swat::bench

// `swat-gpu bench shapes`: whole `swat-gpu align` commands (GPU, and the CPU engine) and the peers
// (parasail, CUDASW++4.0) timed from start to exit on five shapes of work (shapes_data.hpp), the
// median of --repeat runs per tool; CSV rows shape,tool,phase,cells,seconds,gcups,commit,device,
// date and a table on stderr. Options, main and registration; the data and the running of
// commands live beside it (shapes_data.cpp, shapes_run.cpp).

#include <cxxopts.hpp>

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "bench/common/bench_data.hpp"
#include "bench/common/bench_record.hpp"
#include "bench/shapes/shapes_data.hpp"
#include "bench/shapes/shapes_run.hpp"
#include "cli/bench_registry.hpp"
#include "cli/option_values.hpp"
#include "common/error.hpp"

namespace swat::bench {
namespace {

namespace fs = std::filesystem;
using shapes::command;
using shapes::shape_data;

//! The tools, in the order a shape runs them.
constexpr std::array<std::string_view, 4> tool_names = {"swat-gpu", "swat-cpu", "parasail", "cudasw4"};

//! Everything a run needs besides the data.
struct settings {
  std::vector<std::string> tools;       //!< of tool_names, in their order
  std::vector<std::string> cpu_shapes;  //!< the shapes swat-cpu runs on
  int repeat = 1;                       //!< runs per tool and shape (median kept)
  double timeout_s = 300;               //!< parasail's time limit per run, seconds (0: none)
  std::string self;                     //!< this binary
  std::vector<std::string> gpu_args;    //!< swat-gpu's engine options
  std::vector<std::string> cpu_args;    //!< swat-cpu's engine options
  std::string parasail_dir;             //!< unpacked Debian parasail package ("" : none)
  std::string cudasw4_dir;              //!< folder with CUDASW++4.0's makedb and align ("" : none)
  std::string commit, device, date;     //!< provenance of every row
  std::string run_dir;                  //!< where the tools write their output
};

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

//! The data folder: --data-dir (created, kept) or a temporary one (removed unless --keep-data).
class data_folder {
 public:
  data_folder(const std::string& given, bool keep) : keep_(keep || !given.empty()) {
    if (!given.empty()) {
      fs::create_directories(given);
      path_ = given;
    } else {
      const char* tmp = std::getenv("TMPDIR");
      std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/swat-bench-shapes.XXXXXX";
      if (mkdtemp(pattern.data()) == nullptr) throw runtime_failure("bench shapes: cannot create " + pattern);
      path_ = pattern;
    }
    fs::create_directories(path_ + "/runs");
  }
  ~data_folder() {
    std::error_code ignored;
    if (!keep_) fs::remove_all(path_, ignored);
  }
  data_folder(const data_folder&) = delete;
  data_folder& operator=(const data_folder&) = delete;
  const std::string& path() const { return path_; }  //!< the folder
  bool kept() const { return keep_; }                 //!< left in place at the end

 private:
  std::string path_;
  bool keep_;
};

//! Writes each result as a CSV row (flushed) and a line of the table on stderr.
class results {
 public:
  results(std::ostream& csv, const settings& s) : csv_(csv), s_(s) {
    csv_ << "shape,tool,phase,cells,seconds,gcups,commit,device,date\n";
    std::fprintf(stderr, "%-13s %-9s %-6s %12s %11s %10s\n", "shape", "tool", "phase", "cells", "seconds", "GCUPS");
  }
  //! One row: cells of the DP, seconds of wall time.
  void add(const std::string& shape, std::string_view tool, std::string_view phase, std::uint64_t cells,
           double seconds) {
    const double gcups = seconds > 0 ? double(cells) / seconds / 1e9 : 0;
    char numbers[96];
    std::snprintf(numbers, sizeof numbers, "%llu,%.4f,%.3f", static_cast<unsigned long long>(cells), seconds, gcups);
    csv_ << shape << "," << tool << "," << phase << "," << numbers << "," << field(s_.commit) << ","
         << field(s_.device) << "," << s_.date << "\n";
    csv_.flush();
    std::fprintf(stderr, "%-13s %-9.*s %-6.*s %12.4g %11.4f %10.3f\n", shape.c_str(), int(tool.size()), tool.data(),
                 int(phase.size()), phase.data(), double(cells), seconds, gcups);
  }

 private:
  static std::string field(const std::string& s) {
    return s.find_first_of(",\"\n") == std::string::npos ? s : csv_quote(s);
  }
  std::ostream& csv_;
  const settings& s_;
};

//! What repeated runs of one command left: wall times and the text each printed (stderr, or
//! stdout and stderr together where merged).
struct runs {
  std::vector<double> seconds;     //!< per run, seconds
  std::vector<std::string> texts;  //!< per run
  bool timed_out = false;          //!< a run hit the time limit (no further runs)
};

//! Runs cmd s.repeat times; a nonzero exit is a runtime_failure naming shape, tool and the
//! command's last line of standard error (else of standard output).
runs run_repeated(const settings& s, const std::string& shape, std::string_view tool, const command& cmd,
                  double timeout_s, bool merge_output) {
  const std::string base = s.run_dir + "/" + std::string(tool);
  const std::string out_path = base + ".out", err_path = merge_output ? out_path : base + ".err";
  std::fprintf(stderr, "bench shapes: %s: %s\n", shape.c_str(), shapes::display(cmd).c_str());
  runs r;
  for (int k = 0; k < s.repeat; ++k) {
    const shapes::command_result result = shapes::run_command(cmd, out_path, err_path, timeout_s);
    if (result.timed_out) {
      std::fprintf(stderr, "bench shapes: %s: %.*s did not finish in %g s; no row\n", shape.c_str(), int(tool.size()),
                   tool.data(), timeout_s);
      r.timed_out = true;
      return r;
    }
    std::string text = shapes::file_text(err_path);
    if (result.exit_code != 0) {
      std::string line = shapes::last_line(text);
      if (line.empty()) line = shapes::last_line(shapes::file_text(out_path));
      throw runtime_failure("bench shapes: " + shape + ", " + std::string(tool) + ": command failed (exit " +
                            std::to_string(result.exit_code) + "): " + (line.empty() ? "(no output)" : line));
    }
    r.seconds.push_back(result.seconds);
    r.texts.push_back(std::move(text));
  }
  return r;
}

//! Where `tool` (swat-gpu, swat-cpu) writes the hits of shape d.
std::string hits_path(const settings& s, const shape_data& d, std::string_view tool) {
  return s.run_dir + "/" + d.name + "_" + std::string(tool) + ".tsv";
}

//! swat-gpu or swat-cpu: the whole `align` command, and its --timing scan.
void run_swat(const settings& s, const shape_data& d, std::string_view tool, results& out) {
  command cmd{{s.self, "align", d.query_path, d.db_path, "--quiet", "--timing", "--outfmt", "6 std", "-o",
               hits_path(s, d, tool)},
              {}};
  const auto& engine_args = tool == "swat-gpu" ? s.gpu_args : s.cpu_args;
  cmd.argv.insert(cmd.argv.end(), engine_args.begin(), engine_args.end());
  if (!d.protein && !d.both_strands) cmd.argv.insert(cmd.argv.end(), {"--strand", "plus"});
  runs r = run_repeated(s, d.name, tool, cmd, 0, false);
  out.add(d.name, tool, "whole", d.cells(), median(r.seconds));
  std::vector<double> scans;
  for (const std::string& text : r.texts)
    if (const auto scan = shapes::swat_scan_seconds(text)) scans.push_back(*scan);
  if (scans.size() == r.texts.size())
    out.add(d.name, tool, "scan", d.cells(), median(scans));
  else  // a --timing line without its scan stage is a defect of the line, not of the run: say so
    std::fprintf(stderr, "bench shapes: %s: %s: %zu of %zu runs printed no scan stage in --timing; no scan row\n",
                 d.name.c_str(), std::string(tool).c_str(), r.texts.size() - scans.size(), r.texts.size());
}

std::string with_library_path(const std::string& dir) {
  const char* old = std::getenv("LD_LIBRARY_PATH");
  return "LD_LIBRARY_PATH=" + dir + (old != nullptr && *old != '\0' ? ":" + std::string(old) : "");
}

//! parasail_aligner, scores only, every core; DNA on the plus strand (cells of one strand).
void run_parasail(const settings& s, const shape_data& d, results& out) {
  command cmd{{s.parasail_dir + "/usr/bin/parasail_aligner"},
              {with_library_path(s.parasail_dir + "/usr/lib/x86_64-linux-gnu")},
              true};
  if (d.protein)
    cmd.argv.insert(cmd.argv.end(),
                    {"-a", "sw_striped_profile_avx2_256_sat", "-x", "-m", "blosum62", "-o", "12", "-e", "1"});
  else
    cmd.argv.insert(cmd.argv.end(),
                    {"-a", "sw_striped_profile_avx2_256_32", "-x", "-d", "-M", "2", "-X", "3", "-o", "7", "-e", "2"});
  cmd.argv.insert(cmd.argv.end(), {"-t", std::to_string(std::max(1u, std::thread::hardware_concurrency())), "-f",
                                   d.db_path, "-q", d.query_path, "-g", s.run_dir + "/parasail.txt"});
  runs r = run_repeated(s, d.name, "parasail", cmd, s.timeout_s, true);
  if (!r.timed_out) out.add(d.name, "parasail", "whole", d.one_strand_cells(), median(r.seconds));
}

//! CUDASW++4.0 (protein_db only): makedb once (not timed), then align; its "Total time" is the scan.
void run_cudasw4(const settings& s, const shape_data& d, results& out) {
  const std::string env = with_library_path("/usr/local/cuda/lib64");
  const std::string db = s.run_dir + "/cudasw4_db";
  fs::create_directories(db);
  const command makedb{{s.cudasw4_dir + "/makedb", d.db_path, db + "/db"}, {env}};
  settings once = s;
  once.repeat = 1;
  (void)run_repeated(once, d.name, "cudasw4-makedb", makedb, 0, true);
  const command align{{s.cudasw4_dir + "/align", "--query", d.query_path, "--db", db + "/db", "--top", "10", "--gop",
                       "-12", "--gex", "-1", "--dpx", "--verbose"},
                      {env}};
  runs r = run_repeated(s, d.name, "cudasw4", align, 0, true);
  out.add(d.name, "cudasw4", "whole", d.cells(), median(r.seconds));
  std::vector<double> scans;
  for (const std::string& text : r.texts)
    if (const auto scan = shapes::cudasw4_scan_seconds(text)) scans.push_back(*scan);
  if (scans.size() == r.texts.size()) out.add(d.name, "cudasw4", "scan", d.cells(), median(scans));
}

//! The comma-separated names of text, each one of valid; throws usage_error naming option.
template <std::size_t n>
std::vector<std::string> names_of(std::string_view option, const std::string& text,
                                  const std::array<std::string_view, n>& valid) {
  std::vector<std::string> chosen;
  for (const std::string& w : cli::word_list(text)) {
    if (std::find(valid.begin(), valid.end(), w) == valid.end()) {
      std::string list;
      for (std::string_view v : valid) list += (list.empty() ? "" : ", ") + std::string(v);
      throw usage_error(std::string(option) + ": unknown name '" + w + "' (valid: " + list + ")");
    }
    if (!contains(chosen, w)) chosen.push_back(w);
  }
  if (chosen.empty()) throw usage_error(std::string(option) + ": no name given");
  std::vector<std::string> ordered;  // in the order of valid
  for (std::string_view v : valid)
    if (contains(chosen, v)) ordered.emplace_back(v);
  return ordered;
}

//! One line on stderr: the files of d and their sizes.
void describe(const shape_data& d) {
  std::fprintf(stderr, "bench shapes: %s: %llu queries (%llu residues) x %llu targets (%llu residues)%s, %.4g cells\n",
               d.name.c_str(), static_cast<unsigned long long>(d.queries),
               static_cast<unsigned long long>(d.query_residues), static_cast<unsigned long long>(d.targets),
               static_cast<unsigned long long>(d.db_residues), d.both_strands ? ", both strands" : "",
               double(d.cells()));
}

void require_file(std::string_view option, const std::string& path) {
  if (!fs::is_regular_file(path)) throw usage_error(std::string(option) + ": " + path + " not found");
}

int shapes_main(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu bench shapes",
                        "Whole `swat-gpu align` commands and peers on five shapes of work (bench/README.md)");
  const std::string all_shapes = "protein_db,reads_genome,genes_genome,all_vs_all,genome_pair";
  // clang-format off
  opts.add_options()
    ("shapes", "shapes to run", cxxopts::value<std::string>()->default_value(all_shapes))
    ("tools", "tools: swat-gpu,swat-cpu,parasail,cudasw4 (parasail, cudasw4: when their folder is given)",
     cxxopts::value<std::string>()->default_value("swat-gpu,swat-cpu,parasail,cudasw4"))
    ("cpu-shapes", "shapes swat-cpu runs on", cxxopts::value<std::string>()->default_value(all_shapes))
    ("repeat", "runs per tool and shape (median kept)", cxxopts::value<std::string>()->default_value("1"))
    ("seed", "seed of the data", cxxopts::value<std::string>()->default_value(std::to_string(shapes::default_seed)))
    ("scale", "multiplies the counts of queries, targets and reads (cells in the rows are the actual ones)",
     cxxopts::value<std::string>()->default_value("1"))
    ("data-dir", "write the data here and keep it (default: a temporary folder)", cxxopts::value<std::string>())
    ("keep-data", "keep the temporary data folder (its path is printed)")
    ("data-only", "write the data of --shapes into --data-dir and run nothing")
    ("out", "CSV file (default: standard output)", cxxopts::value<std::string>())
    ("commit", "git commit recorded (default: from git)", cxxopts::value<std::string>())
    ("device-name", "device recorded (default: nvidia-smi's first GPU, else cpu)", cxxopts::value<std::string>())
    ("gpu-args", "engine options of swat-gpu", cxxopts::value<std::string>()->default_value("--device gpu"))
    ("cpu-args", "engine options of swat-cpu", cxxopts::value<std::string>()->default_value("--device cpu"))
    ("parasail", "unpacked Debian parasail package (DIR/usr/bin/parasail_aligner)", cxxopts::value<std::string>())
    ("cudasw4", "folder with CUDASW++4.0's makedb and align", cxxopts::value<std::string>())
    ("timeout", "parasail's time limit per run in seconds (0: none)",
     cxxopts::value<std::string>()->default_value("300"))
    ("h,help", "this help");
  // clang-format on
  const auto argv = cli::argv_of("swat-gpu bench shapes", args);
  const auto r = opts.parse(int(argv.size()), argv.data());
  cli::reject_unmatched(r.unmatched());
  if (r.count("help")) {
    std::cout << opts.help() << "\n";
    return 0;
  }
  settings s;
  const std::vector<std::string> shape_list = names_of("--shapes", r["shapes"].as<std::string>(), shapes::shape_names);
  s.tools = names_of("--tools", r["tools"].as<std::string>(), tool_names);
  s.cpu_shapes = names_of("--cpu-shapes", r["cpu-shapes"].as<std::string>(), shapes::shape_names);
  s.repeat = int(cli::integer_value("--repeat", r["repeat"].as<std::string>(), 1, 1000));
  s.timeout_s = cli::real_value("--timeout", r["timeout"].as<std::string>(), 0, 1e7);
  s.gpu_args = shapes::split_words("--gpu-args", r["gpu-args"].as<std::string>());
  s.cpu_args = shapes::split_words("--cpu-args", r["cpu-args"].as<std::string>());
  shapes::data_options data;
  data.seed = std::uint64_t(cli::integer_value("--seed", r["seed"].as<std::string>(), 0, INT64_MAX));
  data.scale = cli::real_value("--scale", r["scale"].as<std::string>(), 1e-6, 1000);
  if (r.count("data-only")) {
    if (r.count("data-dir") == 0) throw usage_error("--data-only needs --data-dir DIR");
    data.dir = r["data-dir"].as<std::string>();
    fs::create_directories(data.dir);
    for (const std::string& name : shape_list) describe(shapes::make_shape(name, data));
    return 0;
  }
  const bool tools_given = r.count("tools") > 0;
  for (const auto& [tool, option] : {std::pair{"parasail", "parasail"}, std::pair{"cudasw4", "cudasw4"}}) {
    if (!contains(s.tools, tool)) continue;
    if (r.count(option) == 0) {
      if (tools_given) throw usage_error(std::string("--tools ") + tool + " needs --" + option + " DIR");
      std::erase(s.tools, tool);
    }
  }
  if (contains(s.tools, "parasail")) {
    s.parasail_dir = r["parasail"].as<std::string>();
    require_file("--parasail", s.parasail_dir + "/usr/bin/parasail_aligner");
  }
  if (contains(s.tools, "cudasw4")) {
    s.cudasw4_dir = r["cudasw4"].as<std::string>();
    require_file("--cudasw4", s.cudasw4_dir + "/makedb");
    require_file("--cudasw4", s.cudasw4_dir + "/align");
  }
  s.self = fs::read_symlink("/proc/self/exe").string();
  s.commit = r.count("commit") ? r["commit"].as<std::string>() : git_commit(SWAT_SHAPES_SOURCE_DIR);
  s.device = r.count("device-name") ? r["device-name"].as<std::string>() : gpu_name_or_cpu();
  if (s.device.empty()) s.device = "cpu";
  s.date = utc_now();

  const data_folder folder(r.count("data-dir") ? r["data-dir"].as<std::string>() : "", r.count("keep-data") > 0);
  data.dir = folder.path();
  s.run_dir = folder.path() + "/runs";
  std::unique_ptr<std::ofstream> file;
  if (r.count("out")) {
    file = std::make_unique<std::ofstream>(r["out"].as<std::string>());
    if (!*file) throw runtime_failure("bench shapes: cannot write " + r["out"].as<std::string>());
  }
  std::ostream& csv = file ? *file : std::cout;
  char settings_text[96];
  std::snprintf(settings_text, sizeof settings_text, "median of %d, seed %llu, scale %g", s.repeat,
                static_cast<unsigned long long>(data.seed), data.scale);
  const std::string title =
      std::string("swat-gpu bench shapes: whole commands, ").append(settings_text).append(", host ").append(cpu_model());
  write_csv_provenance(csv, title, cli::command_line("swat-gpu bench shapes", args), s.commit, s.device);
  results out(csv, s);

  for (const std::string& name : shape_list) {
    const shape_data d = shapes::make_shape(name, data);
    describe(d);
    for (const char* tool : {"swat-gpu", "swat-cpu"}) fs::remove(hits_path(s, d, tool));  // none of an earlier run
    for (const std::string& tool : s.tools) {
      if (tool == "swat-gpu") run_swat(s, d, tool, out);
      if (tool == "swat-cpu" && contains(s.cpu_shapes, name)) run_swat(s, d, tool, out);
      if (tool == "parasail") run_parasail(s, d, out);
      if (tool == "cudasw4" && d.name == "protein_db") run_cudasw4(s, d, out);
    }
    // Both swat-gpu and the CPU engine ran: their outputs must be the same bytes.
    const std::string gpu_hits = hits_path(s, d, "swat-gpu"), cpu_hits = hits_path(s, d, "swat-cpu");
    if (fs::exists(gpu_hits) && fs::exists(cpu_hits)) {
      const bool same = shapes::file_text(gpu_hits) == shapes::file_text(cpu_hits);
      std::fprintf(stderr, "bench shapes: %s: swat-gpu's output %s swat-cpu's (%s)\n", name.c_str(),
                   same ? "equals" : "DIFFERS FROM", "6 std");
      if (!same) throw runtime_failure("bench shapes: " + name + ": swat-gpu and swat-cpu wrote different hits");
    }
  }
  if (file && !(file->flush())) throw runtime_failure("bench shapes: cannot write " + r["out"].as<std::string>());
  if (folder.kept()) std::fprintf(stderr, "bench shapes: data kept in %s\n", folder.path().c_str());
  return 0;
}

}  // namespace

//! Adds `bench shapes` to registry (listed by bench/shapes/CMakeLists.txt).
void register_shapes_bench(cli::bench_registry& registry) {
  registry.add({"shapes",
                "whole `align` commands (GPU, CPU engine, parasail, CUDASW++4.0) on five shapes of work, GCUPS",
                false, &shapes_main});
}

}  // namespace swat::bench

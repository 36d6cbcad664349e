// `swat-gpu bench gpus`: the same `swat-gpu align` command on 1, 2 or more GPUs of one machine (--gpus
// N), interleaved, in the same run: its whole time (process start to exit), and the scan and
// traceback stages its --timing line reports. Every output must be byte for byte the output on
// the fewest GPUs (else the benchmark fails). Cases:
//   protein_x1   db_queries.fa (7 queries) against the Swiss-Prot subset;
//   protein_x50  the same against the subset written 50 times (names made distinct);
//   protein_x500 … 500 times (829 MB; not in the default set);
//   dna_db       the four viral genomes against the 293 fragments of 5 kb of S. kunkelii's genome,
//                both strands, every alignment of each pair (--max-hsps 0);
//   long_pair    S. kunkelii (1.46 Mb) against its mutated copy, plus strand, full alignment;
//   long_pair_x2 the genome followed by its copy against the copy followed by the genome
//                (2.93 Mb, one alignment along the whole pair; not in the default set);
//   long_pair_x4 the same twice over (5.86 Mb; not in the default set).
// CSV rows case,gpus,phase,seconds,commit,device,date (phases whole, scan, traceback; medians).
// --gpus N lets the planner use fewer GPUs where more would not pay (the search's --timing says
// which it used, printed once per count); --exact passes the list 0,…,N−1, which it must use.

#include <cxxopts.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "bench/common/bench_data.hpp"
#include "bench/common/bench_process.hpp"
#include "bench/common/bench_record.hpp"
#include "cli/bench_registry.hpp"
#include "cli/option_values.hpp"
#include "common/error.hpp"

namespace swat::bench {
namespace {

namespace fs = std::filesystem;

//! The seconds of a stage in a --timing line ("scan 0.541 s, E-values", "traceback 0.030 s)").
double stage_seconds(const std::string& timing, const std::regex& stage, const std::string& what) {
  std::smatch m;
  if (!std::regex_search(timing, m, stage))
    throw runtime_failure("bench gpus: no " + what + " in the --timing line: " + timing);
  return std::stod(m[1].str());
}

struct bench_case {
  std::string name, query, db;
  std::vector<std::string> options;
};

//! The residues of a FASTA file's records, as one string.
std::string residues_of(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw runtime_failure("bench gpus: cannot read " + path);
  std::string line, residues;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '>') residues += line;
  return residues;
}

//! The 293 fragments of 5 kb (the last one shorter) of genome's first record, as FASTA.
void write_fragments(const std::string& genome, const std::string& out_path) {
  const std::string residues = residues_of(genome);
  std::ofstream out(out_path);
  for (std::size_t at = 0, k = 1; at < residues.size(); at += 5000, ++k)
    out << ">frag" << k << "\n" << residues.substr(at, 5000) << "\n";
  if (!out) throw runtime_failure("bench gpus: cannot write " + out_path);
}

int gpus_main(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu bench gpus", "The same align command on 1, 2 or more GPUs of one machine");
  // clang-format off
  opts.add_options()
    ("cases", "protein_x1,protein_x50,dna_db,long_pair (a comma-separated choice; also protein_x500, long_pair_x2, long_pair_x4)",
     cxxopts::value<std::string>()->default_value("protein_x1,protein_x50,dna_db,long_pair"))
    ("gpus", "GPU counts compared (--gpus N of align), a comma-separated list",
     cxxopts::value<std::string>()->default_value("1,2"))
    ("exact", "pass each count as the list of its GPUs (--gpus 0,1 rather than --gpus 2): the search runs on all of "
     "them, where a count lets the planner use fewer for work too small to gain from more")
    ("repeat", "runs of each count per case (median kept)", cxxopts::value<std::string>()->default_value("3"))
    ("engine-args", "engine options of every align command", cxxopts::value<std::string>()->default_value("--device gpu"))
    ("csv", "CSV written", cxxopts::value<std::string>()->default_value("multigpu.csv"))
    ("dir", "folder for the generated databases and outputs (default: a new temporary folder)", cxxopts::value<std::string>())
    ("device-name", "device recorded (default: nvidia-smi's first GPU, else cpu)", cxxopts::value<std::string>())
    ("commit", "git commit recorded (default: from git)", cxxopts::value<std::string>())
    ("h,help", "this help");
  // clang-format on
  const auto argv = cli::argv_of("swat-gpu bench gpus", args);
  const auto r = opts.parse(int(argv.size()), argv.data());
  if (r.count("help")) {
    std::cout << opts.help();
    return 0;
  }
  cli::reject_unmatched(r.unmatched());
  const int repeat = int(cli::integer_value("--repeat", r["repeat"].as<std::string>(), 1, 1000));
  const bool exact = r.count("exact") > 0;
  std::vector<int> counts;
  for (const long long n : cli::integer_list("--gpus", r["gpus"].as<std::string>(), 1, 64)) counts.push_back(int(n));
  if (counts.empty()) throw usage_error("--gpus: no GPU count");
  std::vector<std::string> engine;
  {
    std::istringstream words(r["engine-args"].as<std::string>());
    for (std::string w; words >> w;) engine.push_back(w);
  }
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  std::string dir;
  if (r.count("dir")) {
    dir = r["dir"].as<std::string>();
    fs::create_directories(dir);
  } else {
    std::string templ = (fs::temp_directory_path() / "swat-bench-gpus-XXXXXX").string();
    if (!::mkdtemp(templ.data())) throw runtime_failure("bench gpus: mkdtemp failed");
    dir = templ;
  }
  const std::string data = shared_data_dir();
  const std::string subset = data + "/protein/swissprot_subset_mmseqs2.fa";
  std::vector<bench_case> cases;
  for (const std::string& name : cli::word_list(r["cases"].as<std::string>())) {
    if (name == "protein_x1") {
      cases.push_back({name, data + "/protein/db_queries.fa", subset, {}});
    } else if (name == "protein_x50" || name == "protein_x500") {
      const int copies = name == "protein_x50" ? 50 : 500;
      const std::string db = dir + "/swissprot_x" + std::to_string(copies) + ".fa";
      if (!fs::exists(db)) write_copies(subset, db, copies);
      cases.push_back({name, data + "/protein/db_queries.fa", db, {}});
    } else if (name == "dna_db") {
      const std::string viral = dir + "/viral.fa", fragments = dir + "/fragments.fa";
      {
        std::ofstream out(viral);
        for (const char* g : {"spiroplasma_virus_SkV1_NC_009987.1.fa", "lambda_NC_001416.1.fa", "stx2_phage_II_AP005154.1.fa",
                              "sarscov2_MN908947.3.fa"})
          out << file_text(data + "/dna/" + g);
        if (!out) throw runtime_failure("bench gpus: cannot write " + viral);
      }
      write_fragments(data + "/dna/spiroplasma_kunkelii_CP010899.1.fa", fragments);
      cases.push_back({name, viral, fragments, {"--max-hsps", "0"}});
    } else if (name == "long_pair") {
      cases.push_back({name, data + "/dna/spiroplasma_kunkelii_CP010899.1.fa",
                       data + "/dna/spiroplasma_kunkelii_CP010899.1_mutated_seed42.fa", {"--strand", "plus"}});
    } else if (name == "long_pair_x2" || name == "long_pair_x4") {
      // A pair two or four times as long, one alignment along it: the genome then its copy
      // against the copy then the genome (twice over for x4).
      const int times = name == "long_pair_x2" ? 1 : 2;
      const std::string genome = residues_of(data + "/dna/spiroplasma_kunkelii_CP010899.1.fa");
      const std::string copy = residues_of(data + "/dna/spiroplasma_kunkelii_CP010899.1_mutated_seed42.fa");
      const std::string q = dir + "/" + name + "_query.fa", t = dir + "/" + name + "_target.fa";
      {
        std::ofstream qo(q), to(t);
        qo << ">" << name << "_genome_copy\n";
        to << ">" << name << "_copy_genome\n";
        for (int k = 0; k < times; ++k) {
          qo << genome << copy;
          to << copy << genome;
        }
        qo << "\n";
        to << "\n";
        if (!qo.flush() || !to.flush()) throw runtime_failure("bench gpus: cannot write " + q + " and " + t);
      }
      cases.push_back({name, q, t, {"--strand", "plus"}});
    } else {
      throw usage_error("--cases: unknown case '" + name +
                        "' (valid: protein_x1, protein_x50, protein_x500, dna_db, long_pair, long_pair_x2, long_pair_x4)");
    }
  }
  const std::string commit = r.count("commit") ? r["commit"].as<std::string>() : git_commit(SWAT_GPUS_SOURCE_DIR);
  std::string device = r.count("device-name") ? r["device-name"].as<std::string>() : gpu_name_or_cpu();
  if (device.empty()) device = "cpu";
  const std::string date = utc_now();
  const std::string csv_path = r["csv"].as<std::string>();
  std::ofstream csv(csv_path);
  if (!csv) throw runtime_failure("cannot write " + csv_path);
  csv << "case,gpus,phase,seconds,commit,device,date\n";
  std::fprintf(stderr, "%-12s %5s %9s %9s %9s\n", "case", "gpus", "whole_s", "scan_s", "trace_s");
  const std::regex scan_stage(R"(scan ([0-9.]+) s, E-values)"), trace_stage(R"(traceback ([0-9.]+) s\))");
  const std::string err = dir + "/stderr.txt";
  for (const bench_case& c : cases) {
    std::vector<std::vector<double>> whole(counts.size()), scan(counts.size()), trace(counts.size());
    for (int k = 0; k < repeat; ++k) {
      for (std::size_t g = 0; g < counts.size(); ++g) {  // interleaved: drift hits every count alike
        const std::string out = dir + "/" + c.name + "_" + std::to_string(counts[g]) + ".out";
        std::string gpus = std::to_string(counts[g]);
        if (exact) {
          gpus.clear();
          for (int d = 0; d < counts[g]; ++d) gpus += (d > 0 ? "," : "") + std::to_string(d);
          if (counts[g] == 1) gpus += ",";  // "0,": the list of one id, not a count
        }
        std::vector<std::string> argv{self, "align", c.query, c.db, "--gpus", gpus, "--timing", "--quiet", "-o", out};
        argv.insert(argv.end(), c.options.begin(), c.options.end());
        argv.insert(argv.end(), engine.begin(), engine.end());
        whole[g].push_back(timed_command("bench gpus", argv, err));
        const std::string timing = file_text(err);
        scan[g].push_back(stage_seconds(timing, scan_stage, "scan"));
        trace[g].push_back(stage_seconds(timing, trace_stage, "traceback"));
        if (k == 0) {  // the GPUs the search ran on, as its --timing line says
          std::smatch m;
          static const std::regex on(R"(engine on ([^|]*) ready)");
          if (std::regex_search(timing, m, on))
            std::fprintf(stderr, "%-12s %5d on %s\n", c.name.c_str(), counts[g], m[1].str().c_str());
        }
      }
      const std::string first = file_text(dir + "/" + c.name + "_" + std::to_string(counts[0]) + ".out");
      for (std::size_t g = 1; g < counts.size(); ++g)
        if (file_text(dir + "/" + c.name + "_" + std::to_string(counts[g]) + ".out") != first)
          throw runtime_failure("bench gpus: " + c.name + " on " + std::to_string(counts[g]) + " GPUs differs from " +
                                std::to_string(counts[0]));
    }
    for (std::size_t g = 0; g < counts.size(); ++g) {
      const double w = median(whole[g]), s = median(scan[g]), t = median(trace[g]);
      std::fprintf(stderr, "%-12s %5d %9.3f %9.3f %9.3f\n", c.name.c_str(), counts[g], w, s, t);
      for (const auto& [phase, seconds] : {std::pair<const char*, double>{"whole", w}, {"scan", s}, {"traceback", t}})
        csv << c.name << "," << counts[g] << "," << phase << "," << seconds << "," << commit << "," << csv_quote(device)
            << "," << date << "\n";
    }
  }
  if (!r.count("dir")) fs::remove_all(dir);
  return 0;
}

}  // namespace

void register_gpus_bench(cli::bench_registry& registry) {
  registry.add({"gpus", "the same align command on 1, 2 or more GPUs (protein ×1, ×50, DNA database, long pair), seconds", false,
                &gpus_main});
}

}  // namespace swat::bench

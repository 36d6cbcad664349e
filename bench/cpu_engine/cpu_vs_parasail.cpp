// `swat-gpu bench cpu --shapes …`: swat-gpu's CPU engine against parasail, whole commands
// (cpu_vs_parasail.hpp).

#include "bench/cpu_engine/cpu_vs_parasail.hpp"

#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "bench/common/bench_data.hpp"
#include "bench/common/bench_record.hpp"
#include "bench/shapes/shapes_data.hpp"
#include "bench/shapes/shapes_run.hpp"
#include "common/error.hpp"

namespace swat::bench {
namespace {

namespace fs = std::filesystem;

struct fasta_record {
  std::string name, letters;
};

std::vector<fasta_record> read_fasta(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw input_error(path, "cannot read the file");
  std::vector<fasta_record> out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '>') {
      out.push_back({line.substr(1), {}});
    } else if (!out.empty()) {
      for (const char c : line)
        if (c != '\r' && c != ' ') out.back().letters += c;
    }
  }
  return out;
}

std::uint64_t write_fasta(const std::string& path, const std::vector<fasta_record>& records) {
  std::ofstream out(path);
  std::uint64_t residues = 0;
  for (const fasta_record& r : records) {
    out << '>' << r.name << '\n' << r.letters << '\n';
    residues += r.letters.size();
  }
  if (!out) throw runtime_failure("bench cpu: cannot write " + path);
  return residues;
}

//! The files of one shape and its one-strand cells.
struct shape_files {
  std::string name, query_path, db_path;
  bool protein = false;
  double cells = 0;  //!< Σ query × Σ target residues (one strand)
};

shape_files issue_shape(const std::string& name, const std::string& dir) {
  const std::string data = shared_data_dir();
  shape_files f{name, dir + "/" + name + "_queries.fa", dir + "/" + name + "_db.fa", name == issue_protein_shape, 0};
  std::vector<fasta_record> queries, db;
  if (f.protein) {
    queries = read_fasta(data + "/protein/db_queries.fa");
    queries.resize(std::min<std::size_t>(queries.size(), 6));
    db = read_fasta(data + "/protein/swissprot_subset_mmseqs2.fa");
  } else {
    const std::vector<fasta_record> mutated = read_fasta(data + "/dna/spiroplasma_kunkelii_CP010899.1_mutated_seed42.fa");
    db = read_fasta(data + "/dna/spiroplasma_kunkelii_CP010899.1.fa");
    if (mutated.empty() || mutated[0].letters.size() < 905000) throw input_error(data, "the mutated S. kunkelii genome is shorter than 905 kb");
    for (const std::size_t at : {std::size_t(200000), std::size_t(900000)})
      queries.push_back({"read_" + std::to_string(at), mutated[0].letters.substr(at, 5000)});
  }
  f.cells = double(write_fasta(f.query_path, queries)) * double(write_fasta(f.db_path, db));
  return f;
}

shape_files make_files(const std::string& name, const std::string& dir, double scale) {
  if (name == issue_protein_shape || name == issue_reads_shape) return issue_shape(name, dir);
  if (!shapes::is_shape(name)) throw usage_error("bench cpu: unknown shape '" + name + "'");
  shapes::data_options o;
  o.dir = dir;
  o.scale = scale;
  const shapes::shape_data d = shapes::make_shape(name, o);
  return {d.name, d.query_path, d.db_path, d.protein, double(d.one_strand_cells())};
}

//! parasail's variants worth trying per alphabet (the profile variants of 8-bit saturation
//! checks, 16 and 32 bits).
std::vector<std::string> parasail_variants(bool protein) {
  if (protein) return {"sw_striped_profile_avx2_256_sat", "sw_scan_profile_avx2_256_sat", "sw_striped_profile_avx2_256_16"};
  return {"sw_striped_profile_avx2_256_16", "sw_striped_profile_avx2_256_sat", "sw_striped_profile_avx2_256_32"};
}

struct tool_run {
  std::string tool;
  shapes::command cmd;
  std::vector<double> seconds;
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

void run_cpu_vs_parasail(const vs_parasail_options& o) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/swat-bench-cpu.XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) throw runtime_failure("bench cpu: cannot create " + dir);
  struct remove_dir {
    std::string path;
    ~remove_dir() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } cleanup{dir};
  const std::string library = o.parasail_dir + "/usr/lib/x86_64-linux-gnu";
  std::ostringstream rows;
  const std::string date = utc_now();
  std::printf("%-14s %7s  %-40s %9s %8s %9s\n", "shape", "threads", "tool", "seconds", "GCUPS", "vs best");
  for (const std::string& name : o.shapes) {
    const shape_files f = make_files(name, dir, o.scale);
    for (const unsigned t_option : o.threads) {
      const unsigned threads = t_option ? t_option : std::max(1u, std::thread::hardware_concurrency());
      const std::string t = std::to_string(threads);
      std::vector<tool_run> runs;
      shapes::command swat{{o.self, "align", f.query_path, f.db_path, "--device", "cpu", "-t", t, "--quiet", "--outfmt",
                            "6 std", "-o", dir + "/hits.tsv"},
                           {}};
      if (!f.protein) swat.argv.insert(swat.argv.end(), {"--strand", "plus"});
      runs.push_back({"swat-gpu", swat, {}});
      if (!o.parasail_dir.empty())
        for (const std::string& variant : parasail_variants(f.protein)) {
          shapes::command p{{o.parasail_dir + "/usr/bin/parasail_aligner", "-a", variant, "-x"},
                            {"LD_LIBRARY_PATH=" + library},
                            true};
          if (f.protein) p.argv.insert(p.argv.end(), {"-m", "blosum62", "-o", "12", "-e", "1"});
          else p.argv.insert(p.argv.end(), {"-d", "-M", "2", "-X", "3", "-o", "7", "-e", "2"});
          p.argv.insert(p.argv.end(), {"-t", t, "-f", f.db_path, "-q", f.query_path, "-g", dir + "/parasail.txt"});
          runs.push_back({"parasail " + variant, p, {}});
        }
      // Interleaved, so that other load on the machine falls on every tool alike.
      for (int k = 0; k < o.repeat; ++k)
        for (tool_run& r : runs) {
          const std::string out = dir + "/run.out";
          const shapes::command_result result = shapes::run_command(r.cmd, out, out, 0);
          if (result.exit_code != 0)
            throw runtime_failure("bench cpu: " + name + ", " + r.tool + ": command failed (exit " +
                                  std::to_string(result.exit_code) + "): " + shapes::last_line(shapes::file_text(out)));
          r.seconds.push_back(result.seconds);
        }
      double best_peer = 0;
      for (std::size_t k = 1; k < runs.size(); ++k) {
        const double s = median_of(runs[k].seconds);
        if (best_peer == 0 || s < best_peer) best_peer = s;
      }
      for (const tool_run& r : runs) {
        const double s = median_of(r.seconds), gcups = f.cells / s / 1e9;
        std::printf("%-14s %7u  %-40s %9.3f %8.2f %9s\n", name.c_str(), threads, r.tool.c_str(), s, gcups,
                    best_peer > 0 ? (std::to_string(s / best_peer).substr(0, 5) + "x").c_str() : "-");
        rows << name << "," << csv_quote(r.tool) << "," << threads << "," << s << "," << gcups << "," << o.commit << ","
             << csv_quote(o.machine) << "," << date << "\n";
      }
      std::fflush(stdout);
    }
  }
  if (!o.csv_path.empty()) {
    std::ofstream out(o.csv_path);
    write_csv_provenance(out, "swat-gpu bench cpu --shapes: whole swat-gpu align --device cpu vs parasail_aligner "
                              "(scores only), DNA on the plus strand, median of " + std::to_string(o.repeat) +
                              " interleaved runs",
                         o.command, o.commit, o.machine);
    out << "shape,tool,threads,seconds,gcups,commit,machine,date\n" << rows.str();
    if (!out) throw runtime_failure("bench cpu: cannot write " + o.csv_path);
  }
}

}  // namespace swat::bench

// db_scan_bench: GCUPS of the database scan (score only, no traceback) for every group width and
// queue mode on a database replicated in memory, e.g. the 7 queries of db_queries.fa against
// the Swiss-Prot subset ×1, ×10, ×50. The database is prepared once per configuration (its
// time is reported as prepare_s); scan_s is the median of --reps searches of every query.
//   db_scan_bench --query Q.fa --db DB.fa --scale 1,10,50 --groups 8,16,32 --modes queue,static

#include <cxxopts.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "cuda/common/bench_record.hpp"
#include "cuda/engines/dbsearch/db_scan.hpp"
#include "io/fasta.hpp"
#include "scoring/scoring.hpp"

namespace {

using namespace swat;

int run(int argc, char** argv) {
  cxxopts::Options opts("db_scan_bench", "database scan GCUPS per group width and queue mode");
  // clang-format off
  opts.add_options()
    ("query", "query FASTA", cxxopts::value<std::string>())
    ("db", "database FASTA", cxxopts::value<std::string>())
    ("scale", "database copies, comma-separated", cxxopts::value<std::vector<int>>()->default_value("1"))
    ("groups", "lanes per pair, comma-separated (8,16,32; 0 = chosen per query)", cxxopts::value<std::vector<int>>()->default_value("0"))
    ("rows", "query rows per lane, comma-separated (16,32; 0 = chosen per query)", cxxopts::value<std::vector<int>>()->default_value("0"))
    ("per-query", "also time every query alone")
    ("modes", "queue and/or static", cxxopts::value<std::vector<std::string>>()->default_value("queue"))
    ("reps", "timed searches (median)", cxxopts::value<int>()->default_value("3"))
    ("matrix", "protein matrix", cxxopts::value<std::string>()->default_value("BLOSUM62"))
    ("gap-open", "gap open", cxxopts::value<int>())
    ("gap-extend", "gap extend", cxxopts::value<int>())
    ("alphabet", "dna|protein", cxxopts::value<std::string>()->default_value("protein"))
    ("csv", "append CSV rows to this file", cxxopts::value<std::string>())
    ("commit", "git commit for the CSV", cxxopts::value<std::string>()->default_value("unknown"))
    ("h,help", "this help");
  // clang-format on
  const auto r = opts.parse(argc, argv);
  if (r.count("help") || !r.count("query") || !r.count("db")) {
    std::cout << opts.help() << "\n";
    return r.count("help") ? 0 : 2;
  }
  const bool dna = r["alphabet"].as<std::string>() == "dna";
  const auto request = dna ? io::alphabet_request::dna : io::alphabet_request::protein;
  const sequence_set q = io::read_fasta(r["query"].as<std::string>(), request, {});
  const sequence_set d = io::read_fasta(r["db"].as<std::string>(), request, {});
  const scoring_scheme scheme =
      dna ? scoring::make_dna_scheme(2, -3, r.count("gap-open") ? r["gap-open"].as<int>() : 5,
                                     r.count("gap-extend") ? r["gap-extend"].as<int>() : 2)
          : scoring::make_protein_scheme(r["matrix"].as<std::string>(), r.count("gap-open") ? r["gap-open"].as<int>() : 11,
                                         r.count("gap-extend") ? r["gap-extend"].as<int>() : 1);
  std::vector<residue_span> queries;
  std::uint64_t query_residues = 0;
  for (const auto& rec : q.records) {
    queries.push_back(rec.residues);
    query_residues += rec.residues.size();
  }

  std::ofstream csv;
  if (r.count("csv")) {
    const std::string path = r["csv"].as<std::string>();
    const bool fresh = !std::ifstream(path).good();
    csv.open(path, std::ios::app);
    if (fresh) {
      std::string command;
      for (int k = 0; k < argc; ++k) command += (k ? " " : "") + std::string(argv[k]);
      swat::cuda::write_csv_provenance(csv, "db_scan_bench: database scan (score only)", command,
                                       r["commit"].as<std::string>());
      csv << "scale,targets,residues,group_lanes,rows_per_lane,mode,chunks,prepare_s,scan_s,cells,gcups,rescans\n";
    }
  }
  std::printf("%6s %9s %12s %5s %4s %7s %6s %9s %9s %10s %8s\n", "scale", "targets", "residues", "lanes", "rows", "mode",
              "chunks", "prep_s", "scan_s", "GCUPS", "rescans");
  for (int scale : r["scale"].as<std::vector<int>>()) {
    std::vector<residue_span> targets;
    std::uint64_t residues = 0;
    for (int c = 0; c < scale; ++c)
      for (const auto& rec : d.records) {
        targets.push_back(rec.residues);
        residues += rec.residues.size();
      }
    for (int g : r["groups"].as<std::vector<int>>()) {
      for (int rows : r["rows"].as<std::vector<int>>()) {
      for (const std::string& mode : r["modes"].as<std::vector<std::string>>()) {
        dbsearch::scan_options o;
        o.group_lanes = g;
        o.rows_per_lane = rows;
        o.task_queue = mode != "static";
        dbsearch::db_scanner scanner(targets, scheme, o);
        const double prepare_s = scanner.timing().prepare_s + scanner.timing().upload_s;
        std::vector<best_cell> cells(queries.size() * targets.size());
        std::vector<double> times;
        std::size_t rescans = 0;
        for (int k = 0; k < std::max(1, r["reps"].as<int>()) + 1; ++k) {
          std::vector<dbsearch::pair_index> rescan;
          scanner.search(queries, cells, rescan, {});
          rescans = rescan.size();
          if (k > 0) times.push_back(scanner.timing().scan_s);  // the first search warms up
        }
        std::sort(times.begin(), times.end());
        const double scan_s = times[times.size() / 2];
        const double total_cells = double(query_residues) * double(residues);
        const double gcups = total_cells / scan_s / 1e9;
        std::printf("%6d %9zu %12llu %5d %4d %7s %6zu %9.4f %9.4f %10.1f %8zu\n", scale, targets.size(),
                    (unsigned long long)residues, g, rows, mode.c_str(), scanner.timing().chunks, prepare_s, scan_s, gcups,
                    rescans);
        std::fflush(stdout);
        if (csv.is_open())
          csv << scale << "," << targets.size() << "," << residues << "," << g << "," << rows << "," << mode << ","
              << scanner.timing().chunks << "," << prepare_s << "," << scan_s << "," << total_cells << "," << gcups
              << "," << rescans << "\n";
        if (r.count("per-query")) {
          for (std::size_t k = 0; k < queries.size(); ++k) {
            std::vector<dbsearch::pair_index> rescan;
            std::vector<best_cell> one(targets.size());
            scanner.search(std::span(queries).subspan(k, 1), one, rescan, {});
            const double s = scanner.timing().scan_s;
            std::printf("    query %zu (%zu aa): %.4f s, %.1f GCUPS\n", k, queries[k].size(), s,
                        double(queries[k].size()) * double(residues) / s / 1e9);
          }
        }
      }
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "db_scan_bench: %s\n", e.what());
    return 1;
  }
}

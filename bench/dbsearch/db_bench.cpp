// `swat-gpu bench db`: GCUPS of the database scan (score only, no traceback) on a database
// replicated in memory, e.g. the 7 queries of db_queries.fa against the Swiss-Prot subset ×1,
// ×10, ×50, per scan shape (lanes per pair, rows per lane; 0 = chosen per batch), task queue or
// static partition, and number of device workers. The database is prepared once per
// configuration (prepare_s); scan_s is the median of --reps searches of every query after one
// warm-up. Whole commands against CUDASW++4.0 and parasail: bench/dbsearch/run_db.sh.

#include <cxxopts.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench/common/bench_data.hpp"
#include "bench/common/bench_gpu.hpp"
#include "bench/common/bench_record.hpp"
#include "cli/bench_registry.hpp"
#include "cli/option_values.hpp"
#include "common/error.hpp"
#include "cuda/engines/dbsearch/db_scan.hpp"
#include "io/fasta.hpp"
#include "scoring/scoring.hpp"

namespace swat::bench {

namespace {

int db_main(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu bench db", "Database scan GCUPS per shape, queue mode and device workers");
  const std::string data = shared_data_dir();
  // clang-format off
  opts.add_options()
    ("query", "query FASTA", cxxopts::value<std::string>()->default_value(data + "/protein/db_queries.fa"))
    ("db", "database FASTA", cxxopts::value<std::string>()->default_value(data + "/protein/swissprot_subset_mmseqs2.fa"))
    ("scale", "database copies, comma-separated", cxxopts::value<std::string>()->default_value("1,10,50"))
    ("groups", "lanes per pair: 8, 16, 32 or 0 (chosen per batch), comma-separated", cxxopts::value<std::string>()->default_value("0"))
    ("rows", "query rows per lane: 16, 32 or 0 (chosen per batch), comma-separated", cxxopts::value<std::string>()->default_value("0"))
    ("warps", "warps per block: 8, 12, 16 where a kernel runs them, or 0 (chosen per batch), comma-separated",
     cxxopts::value<std::string>()->default_value("0"))
    ("modes", "queue and/or static", cxxopts::value<std::string>()->default_value("queue,static"))
    ("pipeline", "auto (the plan's model), off (one warp per pair) and/or on (the warps of a block share "
     "a pair wherever a width-32 shape allows), comma-separated", cxxopts::value<std::string>()->default_value("auto"))
    ("slices", "pipelined blocks: each warp's strip of profile in shared memory (shared, where it fits) and/or "
     "read through L1 (l1), comma-separated", cxxopts::value<std::string>()->default_value("shared"))
    ("transpose", "off (the database's sequences are the scan's targets) and/or on (the queries are, as "
     "db_engine's transposed search: many queries against a few targets), comma-separated",
     cxxopts::value<std::string>()->default_value("off"))
    ("workers", "device workers on GPU 0, comma-separated (each one a host thread on the chunk queue)",
     cxxopts::value<std::string>()->default_value("1"))
    ("reps", "timed searches (median)", cxxopts::value<std::string>()->default_value("3"))
    ("per-query", "also time every query alone")
    ("alphabet", "dna|protein", cxxopts::value<std::string>()->default_value("protein"))
    ("csv", "append CSV rows to this file", cxxopts::value<std::string>())
    ("commit", "git commit for the CSV", cxxopts::value<std::string>()->default_value(""))
    ("h,help", "this help");
  // clang-format on
  std::vector<const char*> argv = cli::argv_of("swat-gpu bench db", args);
  const auto r = opts.parse(int(argv.size()), argv.data());
  if (r.count("help")) {
    std::cout << opts.help() << "\n";
    return 0;
  }
  cli::reject_unmatched(r.unmatched());
  const cuda::device_context device = require_device("bench db");
  const bool dna = r["alphabet"].as<std::string>() == "dna";
  const auto request = dna ? io::alphabet_request::dna : io::alphabet_request::protein;
  const sequence_set q = io::read_fasta(r["query"].as<std::string>(), request, {});
  const sequence_set d = io::read_fasta(r["db"].as<std::string>(), request, {});
  const scoring_scheme scheme =
      dna ? scoring::make_dna_scheme(2, -3, 5, 2) : scoring::make_protein_scheme("BLOSUM62", 11, 1);
  std::vector<residue_span> queries;
  std::uint64_t query_residues = 0;
  for (const auto& rec : q.records) {
    queries.push_back(rec.residues);
    query_residues += rec.residues.size();
  }
  const int reps = int(cli::integer_value("--reps", r["reps"].as<std::string>(), 1, 1000));

  std::ofstream csv;
  if (r.count("csv")) {
    const std::string path = r["csv"].as<std::string>();
    const bool fresh = !std::ifstream(path).good();
    csv.open(path, std::ios::app);
    if (!csv) throw runtime_failure("cannot write " + path);
    if (fresh) {
      write_csv_provenance(csv, "swat-gpu bench db: database scan (score only)", cli::command_line("swat-gpu bench db", args),
                           r["commit"].as<std::string>(), device.describe());
      csv << "scale,targets,residues,group_lanes,rows_per_lane,mode,pipeline,workers,chunks,prepare_s,scan_s,cells,gcups,"
             "rescans\n";
    }
  }
  std::printf("%6s %9s %12s %5s %4s %7s %5s %7s %6s %9s %9s %10s %8s\n", "scale", "targets", "residues", "lanes", "rows",
              "mode", "pipe", "workers", "chunks", "prep_s", "scan_s", "GCUPS", "rescans");
  for (long long scale : cli::integer_list("--scale", r["scale"].as<std::string>(), 1, 10000)) {
    std::vector<residue_span> targets;
    std::uint64_t residues = 0;
    for (long long c = 0; c < scale; ++c)
      for (const auto& rec : d.records) {
        targets.push_back(rec.residues);
        residues += rec.residues.size();
      }
    for (long long g : cli::integer_list("--groups", r["groups"].as<std::string>(), 0, 32))
      for (long long rows : cli::integer_list("--rows", r["rows"].as<std::string>(), 0, 32))
        for (const std::string& mode : cli::word_list(r["modes"].as<std::string>()))
          for (const std::string& pipe : cli::word_list(r["pipeline"].as<std::string>()))
          for (const std::string& slices : cli::word_list(r["slices"].as<std::string>()))
          for (const std::string& transpose : cli::word_list(r["transpose"].as<std::string>()))
          for (long long warps : cli::integer_list("--warps", r["warps"].as<std::string>(), 0, 16))
          for (long long workers : cli::integer_list("--workers", r["workers"].as<std::string>(), 1, 64)) {
            if (mode != "queue" && mode != "static") throw usage_error("--modes: '" + mode + "' is not queue or static");
            if (pipe != "auto" && pipe != "off" && pipe != "on")
              throw usage_error("--pipeline: '" + pipe + "' is not auto, off or on");
            if (pipe == "on" && warps == 12) {  // no 12-warp kernel runs pipelined launches (db_policy.cuh)
              std::printf("# --pipeline on with --warps 12 skipped: no 12-warp kernel runs pipelined launches\n");
              continue;
            }
            dbsearch::scan_options o;
            o.group_lanes = int(g);
            o.rows_per_lane = int(rows);
            o.warps_per_block = int(warps);
            o.task_queue = mode == "queue";
            o.pipeline = pipe == "auto" ? 0 : pipe == "off" ? -1 : 1;
            if (slices != "shared" && slices != "l1") throw usage_error("--slices: '" + slices + "' is not shared or l1");
            o.pipe_shared_slices = slices == "shared";
            o.devices.assign(std::size_t(workers), device.id());
            if (transpose != "off" && transpose != "on") throw usage_error("--transpose: '" + transpose + "' is not off or on");
            o.rows_first = transpose == "on";
            const std::vector<residue_span>& scan_targets = o.rows_first ? queries : targets;
            const std::vector<residue_span>& scan_queries = o.rows_first ? targets : queries;
            dbsearch::db_scanner scanner(scan_targets, scheme, o);
            const double prepare_s = scanner.timing().prepare_s + scanner.timing().upload_s;
            std::vector<best_cell> cells(queries.size() * targets.size());
            std::vector<double> times;
            std::size_t rescans = 0;
            for (int k = 0; k <= reps; ++k) {
              std::vector<dbsearch::pair_index> rescan;
              scanner.search(scan_queries, cells, rescan, {});
              rescans = rescan.size();
              if (k > 0) times.push_back(scanner.timing().scan_s);  // the first search warms up
            }
            const double scan_s = median(times);
            const double total_cells = double(query_residues) * double(residues);
            const double gcups = total_cells / scan_s / 1e9;
            // The pipeline column: /l1 profiles through L1, /t transposed, /wN N warps per block forced.
            const std::string pipe_label = pipe + (slices == "l1" ? "/l1" : "") + (o.rows_first ? "/t" : "") +
                                           (warps > 0 ? "/w" + std::to_string(warps) : "");
            std::printf("%6lld %9zu %12llu %5lld %4lld %7s %5s %7lld %6zu %9.4f %9.4f %10.1f %8zu\n", scale,
                        targets.size(), (unsigned long long)residues, g, rows, mode.c_str(), pipe_label.c_str(), workers,
                        scanner.timing().chunks, prepare_s, scan_s, gcups, rescans);
            std::fflush(stdout);
            if (csv.is_open())
              csv << scale << "," << targets.size() << "," << residues << "," << g << "," << rows << "," << mode << ","
                  << pipe_label << "," << workers << "," << scanner.timing().chunks << "," << prepare_s << "," << scan_s << "," << total_cells
                  << "," << gcups << "," << rescans << "\n";
            if (r.count("per-query") && !o.rows_first) {  // (transposed: the scanner holds the queries)
              for (std::size_t k = 0; k < queries.size(); ++k) {
                std::vector<dbsearch::pair_index> rescan;
                std::vector<best_cell> one(targets.size());
                scanner.search(std::span(queries).subspan(k, 1), one, rescan, {});
                const double s = scanner.timing().scan_s;
                std::printf("    query %zu (%zu residues): %.4f s, %.1f GCUPS\n", k, queries[k].size(), s,
                            double(queries[k].size()) * double(residues) / s / 1e9);
              }
            }
          }
  }
  return 0;
}

}  // namespace

void register_db_bench(cli::bench_registry& registry) {
  registry.add({"db", "database search: scan GCUPS per shape, queue mode and workers on a replicated database", true,
                &db_main});
}

}  // namespace swat::bench

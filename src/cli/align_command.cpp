// `swat-gpu align`: command-line parsing (cxxopts), once, into pipeline::align_options — every
// value typed here (option_values.hpp), the engine options resolved through the engine registry
// (--device, --kernel, --sync, --tile checked whatever the device).

#include <cxxopts.hpp>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/search_options.hpp"
#include "common/error.hpp"
#include "dist/distributed.hpp"
#include "engine/registry.hpp"
#include "engine/sync_mode.hpp"
#include "io/fasta.hpp"
#include "output/output.hpp"
#include "engine/gpu_selection.hpp"
#include "pipeline/align_pipeline.hpp"
#include "server/client.hpp"

namespace swat::cli {
namespace {

const std::string conventions = R"(
Conventions:
  Scores      Optimal local alignment (Smith-Waterman, Gotoh affine gaps). A gap of length k
              costs gap-open + k * gap-extend (BLAST/SeqAn3 convention): with --gap-open 5
              --gap-extend 2 a 1-residue gap costs 7.
  Defaults    DNA: --match 2 --mismatch -3 --gap-open 5 --gap-extend 2 (blastn).
              Protein: --matrix BLOSUM62 --gap-open 11 --gap-extend 1 (blastp).
  Residues    DNA is case-insensitive, U reads as T, N and the other IUPAC codes score as a
              mismatch against everything (N included). Protein: the 20 amino acids plus
              B J Z X U O and '*' as the matrix scores them (letters a matrix lacks score as X);
              any other letter is an input error.
  Alphabet    )" + std::string(io::alphabet_auto_rule) + R"(
  Coordinates 1-based inclusive in blast6, pair and json output; SAM follows its spec
              (POS 1-based, unaligned query ends soft-clipped).
  Ties        Among equal best scores the alignment with the smallest target end is reported,
              then the smallest query end. The traceback prefers a diagonal step, then a gap in
              the query, then a gap in the target, and opens a gap rather than extending one on
              equal scores. Every engine follows the same rule, so outputs compare byte for byte.
  Hits        Per query, sorted by score (descending) then by target order in DB.
  E-values    --stats auto: NCBI's Karlin-Altschul parameters where BLAST tabulates the scheme;
              else fitted to the search's own scores (500 or more database sequences); else
              island-method estimates; else none (evalue/bitscore nan, --evalue an error).
  Server      `swat-gpu serve DB.fa --socket PATH` keeps DB and the engine ready; `align QUERY.fa
              --server PATH [output options]` is answered from it with exactly what `align
              QUERY.fa DB.fa` writes (its command line recorded with DB and the server's options;
              scoring and engine options are the server's). See docs/serve.md.
  Exit codes  0 success, 1 runtime failure, 2 bad usage or input (one line on stderr naming
              the file, record and position). Output files are written atomically
              (temporary file + rename, mode kept, links followed); FIFOs and devices are
              written in place; an output that is an input is refused.
)";

//! An optional integer option (unset: the alphabet's default).
std::optional<int> optional_int(const cxxopts::ParseResult& r, const char* name) {
  if (!r.count(name)) return std::nullopt;
  return int(integer_value(std::string("--") + name, r[name].as<std::string>(), INT_MIN, INT_MAX));
}

//! A non-negative integer option.
std::uint64_t count_value(const cxxopts::ParseResult& r, const char* name, std::uint64_t max) {
  return std::uint64_t(integer_value(std::string("--") + name, r[name].as<std::string>(), 0, (long long)max));
}

//! --kernel help from the engines this build has.
std::string kernel_help(const engine_registry& engines) {
  const std::string names = engines.gpu_names("|");
  if (names.empty()) return "GPU engine (this build has none; see --version)";
  std::string best, best_sync;
  int rank = 0, rank_sync = 0;
  for (const engine_entry& e : engines.entries()) {
    if (e.target != engine_target::gpu) continue;
    if (e.auto_rank > rank) rank = e.auto_rank, best = e.name;
    if (e.takes_sync && e.auto_rank > rank_sync) rank_sync = e.auto_rank, best_sync = e.name;
  }
  std::string help = "GPU engine: " + names + " or auto (see --version); auto = " + best;
  if (!best_sync.empty() && best_sync != best) help += ", or " + best_sync + " when --sync is given";
  return help;
}

const std::vector<std::string> names_of_search_options = {
    "alphabet", "match", "mismatch", "matrix", "matrix-file", "gap-open", "gap-extend", "device", "threads",
    "cpu-mem", "kernel", "sync", "tile", "max-gpu-mem", "gpus"};

//! The command line an answer of a server records (docs/serve.md): the client's words with
//! `--server PATH` replaced by the server's database as given to serve, then the server's options
//! (--alphabet, scoring, engine) that the client did not give itself: the one-shot command that
//! writes the same bytes. Throws usage_error where the client's --alphabet or --device contradicts
//! the server.
std::string server_command_line(const std::vector<std::string>& args, const cxxopts::ParseResult& r,
                                const server::welcome_info& w, const std::string& device, const std::string& cpu_name) {
  if (r.count("alphabet")) {
    const std::string asked = r["alphabet"].as<std::string>();
    if (io::parse_alphabet_request(asked) != io::alphabet_request::auto_detect &&
        std::string(io::to_string(io::parse_alphabet_request(asked))) != w.database_alphabet)
      throw usage_error("--alphabet " + asked + ": the server's database " + w.database + " is " + w.database_alphabet);
  }
  if (device != "auto" && (device == "cpu") != (w.engine == cpu_name))
    throw usage_error("--device " + device + ": the server runs the " + w.engine + " engine on " + w.device +
                      " (engine options belong to the server)");
  std::vector<std::string> words;
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (args[k] == "--server") {
      words.push_back(w.database);
      ++k;
    } else if (args[k].rfind("--server=", 0) == 0) {
      words.push_back(w.database);
    } else {
      words.push_back(args[k]);
    }
  }
  std::vector<std::string> given;
  for (const cxxopts::KeyValue& kv : r.arguments()) given.push_back(kv.key());
  for (const auto& [name, value] : w.options)
    if (std::find(given.begin(), given.end(), name) == given.end()) {
      words.push_back("--" + name);
      words.push_back(value);
    }
  return command_line("swat-gpu align", words);
}

bool engine_left = false;  // set once run_align left its GPU engine for the exit

}  // namespace

bool gpu_engine_left() { return engine_left; }

void add_search_options(cxxopts::Options& opts, const engine_registry& engines) {
  // clang-format off
  opts.add_options("Input")
    ("alphabet", "auto|dna|protein", cxxopts::value<std::string>()->default_value("auto"))
    ;
  opts.add_options("Scoring")
    ("match", "DNA match score (> 0) [2]", cxxopts::value<std::string>())
    ("mismatch", "DNA mismatch score (<= 0) [-3]", cxxopts::value<std::string>())
    ("matrix", "protein matrix: BLOSUM45|BLOSUM50|BLOSUM62|BLOSUM80|BLOSUM90|PAM30|PAM70|PAM250 [BLOSUM62]",
     cxxopts::value<std::string>())
    ("matrix-file", "protein matrix in NCBI/BLAST text format", cxxopts::value<std::string>())
    ("gap-open", "gap open penalty (>= 0) [DNA 5, protein 11]", cxxopts::value<std::string>())
    ("gap-extend", "gap extension penalty (>= 0) [DNA 2, protein 1]", cxxopts::value<std::string>());
  opts.add_options("Engine")
    ("device", "cpu|gpu|gpu:ID|auto (auto: GPU if present, else CPU with a notice; gpu:ID: CUDA device ID)",
     cxxopts::value<std::string>()->default_value("auto"))
    ("t,threads", "CPU threads (0 = all cores)", cxxopts::value<std::string>()->default_value("0"))
    ("cpu-mem", "CPU traceback memory budget in MiB", cxxopts::value<std::string>()->default_value("1024"))
    ("kernel", kernel_help(engines), cxxopts::value<std::string>()->default_value("auto"))
    ("sync", "GPU inter-block sync of the paper kernels: " + sync_mode_names() +
             " (cpu, cpu-explicit, graph: one launch per step; the others: one persistent kernel), or auto",
     cxxopts::value<std::string>()->default_value("auto"))
    ("tile", "tile edge in cells for --kernel tiled (0 = default)", cxxopts::value<std::string>()->default_value("0"))
    ("max-gpu-mem", "GPU memory budget in MiB (0 = free device memory)", cxxopts::value<std::string>()->default_value("0"))
    ("gpus", "GPUs of a search: all | N (the first N) | LIST of ids (0,1; 2, alone); all and N are the most "
             "the planner uses (fewer where more would not pay), a LIST is used as given; a database is scanned "
             "over them, a long pair filled in bands of rows over them; CUDA_VISIBLE_DEVICES applies",
     cxxopts::value<std::string>()->default_value("all"));
  // clang-format on
}

pipeline::scoring_options scoring_of(const cxxopts::ParseResult& r) {
  pipeline::scoring_options s;
  s.match = optional_int(r, "match");
  s.mismatch = optional_int(r, "mismatch");
  s.gap_open = optional_int(r, "gap-open");
  s.gap_extend = optional_int(r, "gap-extend");
  if (r.count("matrix")) s.matrix = r["matrix"].as<std::string>();
  if (r.count("matrix-file")) s.matrix_file = r["matrix-file"].as<std::string>();
  return s;
}

engine_plan engine_of(const cxxopts::ParseResult& r, const engine_registry& engines) {
  engine_options engine;
  const std::string sync = r["sync"].as<std::string>();
  if (sync != "auto") engine.sync = parse_sync_mode(sync);
  const long long tile = integer_value("--tile", r["tile"].as<std::string>(), INT_MIN, INT_MAX);
  if (tile < 0) throw usage_error("--tile must be 0 (default) or a positive cell count");
  engine.tile = int(tile);
  engine.max_gpu_mem_bytes = count_value(r, "max-gpu-mem", 1ull << 40) << 20;
  engine.gpus = parse_gpu_selection(r["gpus"].as<std::string>());  // malformed values fail whatever the device
  engine.cpu_threads = unsigned(count_value(r, "threads", UINT_MAX));
  const auto cpu_mem_mib = count_value(r, "cpu-mem", ~0ull >> 1);
  if (cpu_mem_mib < 16 || cpu_mem_mib > (1ull << 24)) throw usage_error("--cpu-mem must be 16 … 16777216 MiB");
  engine.cpu_memory_bytes = cpu_mem_mib << 20;
  engine_plan plan = plan_engine(engines, parse_device_choice(r["device"].as<std::string>()),
                                 r["kernel"].as<std::string>(), std::move(engine));
  // GPU options given: the planner leaves the GPU to them (engine/plan.hpp).
  if (r.count("gpus") || r.count("max-gpu-mem")) plan.gpu_asked = true;
  return plan;
}

const std::vector<std::string>& search_option_names() { return names_of_search_options; }

std::vector<std::pair<std::string, std::string>> given_search_options(const cxxopts::ParseResult& r) {
  std::vector<std::pair<std::string, std::string>> given;
  for (const cxxopts::KeyValue& kv : r.arguments())
    if (std::find(names_of_search_options.begin(), names_of_search_options.end(), kv.key()) != names_of_search_options.end())
      given.emplace_back(kv.key(), kv.value());
  return given;
}

int align_command(const engine_registry& engines, const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu align", "Align every query against every database sequence");
  opts.positional_help("QUERY.fa DB.fa").show_positional_help();
  // clang-format off
  opts.add_options("Input")
    ("query", "query FASTA (.gz ok; - for standard input)", cxxopts::value<std::string>())
    ("db", "database FASTA (.gz ok; - for standard input) or a prepared database's PREFIX (swat-gpu makedb)",
     cxxopts::value<std::string>())
    ("server", "answer from a warm `swat-gpu serve` listening on this socket instead of reading DB "
               "(docs/serve.md; the scheme and the engine are the server's)", cxxopts::value<std::string>())
    ("strand", "DNA strands of the queries searched: both|plus|minus [both]", cxxopts::value<std::string>());
  add_search_options(opts, engines);
  opts.add_options("Output")
    ("outfmt", "6 [columns…] | 7 [columns…] | blast6 [extra columns…] | sam | bam | pair | json (see below)",
     cxxopts::value<std::string>()->default_value("blast6"))
    ("o,out", "output file, written atomically (default: stdout)", cxxopts::value<std::string>())
    ("max-hits", "hits (targets) reported per query", cxxopts::value<std::string>()->default_value("10"))
    ("max-hsps", "alignments reported per query-target pair: the best ones that share no aligned residue "
                 "pair (Waterman-Eggert), each above --min-score/--evalue; 0 = all", cxxopts::value<std::string>()->default_value("1"))
    ("min-score", "smallest score reported", cxxopts::value<std::string>()->default_value("1"))
    ("evalue", "largest E-value reported (> 0; BLAST's default 10; an error where the search has no E-values)",
     cxxopts::value<std::string>()->default_value("10"))
    ("dbsize", "database residues for E-values and the length adjustment, e.g. the whole database's for a "
               "shard of it searched alone [the database's]", cxxopts::value<std::string>())
    ("dbseqs", "database sequences for E-values and the length adjustment [the database's]",
     cxxopts::value<std::string>())
    ("stats", "E-values: auto (analytic where the scheme has Karlin-Altschul parameters, else fitted to the "
              "search's scores, else none) | analytic | empirical | none", cxxopts::value<std::string>()->default_value("auto"))
    ("sam-hit-only", "SAM/BAM: no unmapped records for queries without hits")
    ("quiet", "no notices and no progress line")
    ("timing", "one line on stderr with the wall time of each stage (read, engine start, align, output)")
    ("h,help", "this help");
  // clang-format on
  opts.parse_positional({"query", "db"});

  const std::vector<std::string> words = split_attached_values(args, "ot");  // -oFILE, -t4
  const auto argv = argv_of("swat-gpu align", words);
  const auto r = opts.parse(int(argv.size()), argv.data());
  if (r.count("help")) {
    std::cout << opts.help() << conventions << "\n" << output::outfmt_help() << "\n";
    return 0;
  }
  reject_unmatched(r.unmatched());
  const bool to_server = r.count("server") > 0;
  if (to_server) {
    if (!r.count("query")) throw usage_error("align --server needs QUERY (try: swat-gpu align --help)");
    if (r.count("db")) throw usage_error("with --server the database is the server's: give QUERY only");
    for (const char* name : {"threads", "cpu-mem", "kernel", "sync", "tile", "max-gpu-mem", "gpus", "dbsize", "dbseqs"})
      if (r.count(name))
        throw usage_error(std::string("--") + name + " belongs to the server: give it to swat-gpu serve");
  } else if (!r.count("query") || !r.count("db")) {
    throw usage_error("align needs QUERY and DB (try: swat-gpu align --help)");
  }

  pipeline::align_options o;
  o.query_path = r["query"].as<std::string>();
  if (!to_server) o.db_path = r["db"].as<std::string>();
  if (o.query_path == "-" && o.db_path == "-")
    throw usage_error("QUERY and DB cannot both be '-' (standard input is one stream)");
  o.alphabet = io::parse_alphabet_request(r["alphabet"].as<std::string>());
  o.scoring = scoring_of(r);
  if (r.count("strand")) o.strand_option = pipeline::parse_strand_choice(r["strand"].as<std::string>());
  o.engine = engine_of(r, engines);
  o.outfmt_text = r["outfmt"].as<std::string>();
  o.outfmt = output::parse_outfmt(o.outfmt_text);
  if (r.count("out")) {
    o.out_path = r["out"].as<std::string>();
    if (o.out_path.empty()) throw usage_error("-o/--out: the output path is empty (use -o - for stdout)");
  }
  o.max_hits = std::size_t(count_value(r, "max-hits", ~0ull >> 1));
  if (o.max_hits == 0) throw usage_error("--max-hits must be at least 1");
  o.max_hsps = std::size_t(count_value(r, "max-hsps", ~0ull >> 1));
  o.stats.min_score = int(integer_value("--min-score", r["min-score"].as<std::string>(), INT_MIN, INT_MAX));
  const std::string evalue = r["evalue"].as<std::string>();
  o.evalue_text = evalue;
  char* end = nullptr;
  o.stats.max_evalue = std::strtod(evalue.c_str(), &end);
  if (evalue.empty() || *end != '\0' || !(o.stats.max_evalue > 0))  // !(x > 0) also catches NaN
    throw usage_error("--evalue must be a positive number (got '" + evalue + "')");
  o.stats.evalue_given = r.count("evalue") > 0;
  o.stats.choice = scoring::parse_stats_choice(r["stats"].as<std::string>());
  for (const auto& [name, value] : {std::pair{"dbsize", &o.db_residues}, std::pair{"dbseqs", &o.db_sequences}})
    if (r.count(name)) {
      *value = count_value(r, name, ~0ull >> 1);
      if (**value == 0) throw usage_error(std::string("--") + name + " must be at least 1");
    }
  o.outfmt.sam_hit_only = r.count("sam-hit-only") > 0;
  o.quiet = r.count("quiet") > 0;
  if (r.count("timing")) o.timing = [](const std::string& line) { std::cerr << "swat-gpu: " << line << "\n"; };
  const bool quiet = o.quiet;
  const pipeline::notice_fn notice = [quiet](const std::string& line) {
    if (!quiet) std::cerr << "swat-gpu: " << line << "\n";
  };
  // Under mpirun every rank runs this command: a client would ask the server (and write) once per
  // rank, and only rank 0 has the standard input.
  if (const int ranks = dist::launched_ranks(); ranks > 1) {
    if (to_server)
      throw usage_error("--server: a client runs as one process, not as " + std::to_string(ranks) +
                        " ranks of mpirun (run it without mpirun)");
    if (o.query_path == "-" || o.db_path == "-")
      throw usage_error("standard input ('-') reaches only one of mpirun's " + std::to_string(ranks) +
                        " ranks: give the queries and the database as files");
  }
  if (to_server) {
    server::client_options c;
    c.socket_path = r["server"].as<std::string>();
    if (r.count("alphabet")) c.alphabet = o.alphabet;
    c.request = std::move(o);
    const std::string device = r.count("device") ? r["device"].as<std::string>() : "auto";
    const std::string cpu_name = c.request.engine.cpu ? c.request.engine.cpu->name : "cpu";
    c.prepare = [&](const server::welcome_info& w) { return server_command_line(args, r, w, device, cpu_name); };
    server::run_client(c, std::cout, notice);
    return 0;
  }
  o.command_line = command_line("swat-gpu align", args);

  o.process_ends_after = true;  // main returns right after
  o.leave_gpu_engine = [](std::unique_ptr<swat::engine> eng) {
    (void)eng.release();  // reclaimed with the process (main ends it right after)
    engine_left = true;
  };
  if (dist::launched_ranks() > 0) {  // under mpirun: one search over the job's ranks
    dist::run_align(o, std::cout, notice);
    return 0;
  }
  pipeline::run_align(o, std::cout, notice);
  return 0;
}

}  // namespace swat::cli

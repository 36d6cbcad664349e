#include "pipeline/align_pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <future>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "engine/cpu_engine.hpp"
#include "output/atomic_file.hpp"
#include "pipeline/gpu_engines.hpp"
#include "pipeline/progress.hpp"
#include "scoring/karlin.hpp"
#include "scoring/scoring.hpp"

namespace swat::pipeline {

device_choice parse_device_choice(std::string_view text) {
  if (text == "cpu") return device_choice::cpu;
  if (text == "gpu") return device_choice::gpu;
  if (text == "auto") return device_choice::auto_select;
  throw usage_error("unknown --device '" + std::string(text) + "' (valid: cpu, gpu, auto)");
}

scoring_scheme build_scheme(alphabet_kind alphabet, const scoring_options& o) {
  if (alphabet == alphabet_kind::dna) {
    if (!o.matrix.empty() || !o.matrix_file.empty())
      throw usage_error("--matrix/--matrix-file are for protein; DNA uses --match/--mismatch "
                        "(force protein scoring with --alphabet protein)");
    return scoring::make_dna_scheme(o.match.value_or(2), o.mismatch.value_or(-3),
                                    o.gap_open.value_or(5), o.gap_extend.value_or(2));
  }
  if (o.match || o.mismatch)
    throw usage_error("--match/--mismatch are for DNA; protein uses --matrix or --matrix-file");
  const int open = o.gap_open.value_or(11);
  const int extend = o.gap_extend.value_or(1);
  if (!o.matrix_file.empty()) {
    if (!o.matrix.empty()) throw usage_error("give either --matrix or --matrix-file, not both");
    scoring::validate_gaps(open, extend);
    return scoring::load_matrix_file(o.matrix_file, open, extend);
  }
  return scoring::make_protein_scheme(o.matrix.empty() ? "BLOSUM62" : o.matrix, open, extend);
}

std::unique_ptr<engine> make_engine(const align_options& options, const notice_fn& notice) {
  auto cpu = [&] { return std::make_unique<cpu_engine>(options.threads, options.cpu_memory_bytes); };
  gpu_engine_options gpu_options = options.gpu;
  gpu_options.cpu_threads = options.threads;
  gpu_options.cpu_memory_bytes = options.cpu_memory_bytes;
  gpu_options.quiet = options.quiet;
  gpu_options.notice = [&notice](const std::string& line) { notice("notice: " + line); };
  switch (options.device) {
    case device_choice::cpu:
      return cpu();
    case device_choice::gpu: {
      std::string why;
      if (auto gpu = make_gpu_engine(gpu_options, why)) return gpu;
      throw usage_error("--device gpu: " + why + " (use --device cpu)");
    }
    case device_choice::auto_select: {
      std::string why;
      if (auto gpu = make_gpu_engine(gpu_options, why)) return gpu;
      notice("notice: " + why + "; aligning on the CPU");
      return cpu();
    }
  }
  throw std::logic_error("make_engine: unhandled device choice");
}

std::vector<std::size_t> rank_targets(const std::vector<best_cell>& cells, std::int32_t min_score,
                                      std::size_t max_hits) {
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < cells.size(); ++t)
    if (cells[t].score > 0 && cells[t].score >= min_score) order.push_back(t);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return cells[a].score > cells[b].score; });
  if (order.size() > max_hits) order.resize(max_hits);
  return order;
}

namespace {

// Reads both inputs; in auto mode both files must come out as the same alphabet.
std::pair<sequence_set, sequence_set> read_inputs(const align_options& options, const notice_fn& notice) {
  const io::warning_fn warn = [&](const std::string& w) { notice("warning: " + w); };
  sequence_set queries = io::read_fasta(options.query_path, options.alphabet, warn);
  sequence_set targets = io::read_fasta(options.db_path, options.alphabet, warn);
  if (queries.alphabet != targets.alphabet)
    throw usage_error(options.query_path + " reads as " + std::string(to_string(queries.alphabet)) +
                      " but " + options.db_path + " as " + std::string(to_string(targets.alphabet)) +
                      "; choose one with --alphabet dna|protein");
  return {std::move(queries), std::move(targets)};
}

// Best hits of every query, in query order: with more targets than --max-hits the engine first
// scores every query × target (a database search) and only the reported hits are aligned; with
// fewer, every pair is aligned and ranked by its alignment. Alignments of all queries go to
// the engine in one batch.
// min_scores[q]: the smallest score query q reports (--min-score and --evalue together).
std::vector<output::hit> search_all(engine& eng, const scoring_scheme& scheme, const align_options& options,
                                    const sequence_set& queries, const sequence_set& targets,
                                    const std::vector<std::int32_t>& min_scores, progress_line& progress,
                                    double& scan_s) {
  using clock = std::chrono::steady_clock;
  const std::size_t nq = queries.records.size(), nt = targets.records.size();
  const progress_fn report = [&](std::uint64_t cells) { progress.add(cells); };
  const bool all_kept = nt <= options.max_hits;
  std::vector<best_cell> cells;
  std::vector<std::vector<std::size_t>> keep(nq);
  if (!all_kept) {
    const auto t0 = clock::now();
    std::vector<residue_span> qs, ts;
    for (const auto& r : queries.records) qs.push_back(r.residues);
    for (const auto& r : targets.records) ts.push_back(r.residues);
    cells.resize(nq * nt);
    eng.search(qs, ts, scheme, cells, report);
    for (std::size_t q = 0; q < nq; ++q)
      keep[q] = rank_targets(std::vector<best_cell>(cells.begin() + std::ptrdiff_t(q * nt),
                                                    cells.begin() + std::ptrdiff_t((q + 1) * nt)),
                             min_scores[q], options.max_hits);
    scan_s = std::chrono::duration<double>(clock::now() - t0).count();
  } else {
    for (auto& k : keep) {
      k.resize(nt);
      std::iota(k.begin(), k.end(), std::size_t{0});
    }
  }
  std::vector<pair_job> jobs;
  for (std::size_t q = 0; q < nq; ++q)
    for (std::size_t t : keep[q]) jobs.push_back({q, t, queries.records[q].residues, targets.records[t].residues});
  std::vector<alignment> alns(jobs.size());
  eng.align_many(jobs, scheme, alns, all_kept ? report : progress_fn{});

  std::vector<output::hit> hits;
  std::size_t k = 0;
  for (std::size_t q = 0; q < nq; ++q) {
    const std::size_t first = k;
    std::vector<best_cell> traced(nt);
    for (std::size_t t : keep[q]) {
      const alignment& a = alns[k++];
      const best_cell* scanned = all_kept ? nullptr : &cells[q * nt + t];
      if (scanned && (a.score != scanned->score || a.query_end != scanned->query_end ||
                      a.target_end != scanned->target_end))
        throw runtime_failure("internal error: " + eng.name() + " engine gave score " +
                              std::to_string(scanned->score) + " then an alignment of " + std::to_string(a.score) +
                              " for " + queries.records[q].name + " vs " + targets.records[t].name);
      traced[t] = {a.score, a.query_end, a.target_end};
    }
    // With every target traced, ranking happens after the alignments are known.
    const std::vector<std::size_t> order = all_kept ? rank_targets(traced, min_scores[q], options.max_hits) : keep[q];
    for (std::size_t t : order) {
      const auto pos = std::size_t(std::find(keep[q].begin(), keep[q].end(), t) - keep[q].begin());
      hits.push_back({q, t, std::move(alns[first + pos])});
    }
  }
  return hits;
}

// Every engine scores in int32: refuse inputs whose best possible score could overflow it.
void check_score_range(const sequence_set& queries, const sequence_set& targets, const scoring_scheme& scheme) {
  std::uint64_t longest_query = 0, longest_target = 0;
  for (const auto& q : queries.records) longest_query = std::max<std::uint64_t>(longest_query, q.residues.size());
  for (const auto& t : targets.records) longest_target = std::max<std::uint64_t>(longest_target, t.residues.size());
  const std::uint64_t bound = std::min(longest_query, longest_target) * std::uint64_t(std::max(scheme.max_score(), 0));
  if (bound > std::uint64_t(1) << 30)
    throw usage_error("scores could reach " + std::to_string(bound) +
                      ", beyond the 32-bit range the engines use; lower the match/matrix scores");
}

// The smallest score each query reports: --min-score, raised to the score whose E-value is
// --evalue in the query's search space.
std::vector<std::int32_t> min_scores_of(const align_options& options, const scoring::karlin_params& params,
                                        const sequence_set& queries, std::uint64_t db_residues, std::size_t db_sequences) {
  std::vector<std::int32_t> min_scores;
  for (const auto& q : queries.records) {
    const double space = scoring::effective_search_space(params, q.residues.size(), db_residues, db_sequences);
    const std::int64_t by_evalue = scoring::min_score_for_evalue(params, options.max_evalue, space);
    min_scores.push_back(std::int32_t(std::clamp<std::int64_t>(by_evalue, options.min_score, INT32_MAX)));
  }
  return min_scores;
}

}  // namespace

void run_align(const align_options& options, std::ostream& stdout_stream, const notice_fn& notice_in) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto since_start = [&start] { return std::chrono::duration<double>(clock::now() - start).count(); };
  // The engine (for the GPU: the CUDA context, ~0.2–0.3 s on the H100 VM) starts in a second
  // thread while the inputs are read. Its notices wait until the inputs have been read and
  // checked: a bad input still gets its one error line and nothing else, and the order of the
  // lines does not depend on the threads.
  std::mutex engine_mutex;
  bool hold_engine_notices = true;
  std::vector<std::string> held_notices;
  const notice_fn engine_notice = [&](const std::string& line) {
    {
      const std::lock_guard<std::mutex> lock(engine_mutex);
      if (hold_engine_notices) {
        held_notices.push_back(line);
        return;
      }
    }
    notice_in(line);
  };
  double engine_s = 0;
  auto engine_ready = std::async(std::launch::async, [&] {
    std::unique_ptr<engine> e = make_engine(options, engine_notice);
    engine_s = since_start();
    return e;
  });
  auto [queries, targets] = read_inputs(options, notice_in);
  const double read_s = since_start();
  const scoring_scheme scheme = build_scheme(queries.alphabet, options.scoring);
  check_score_range(queries, targets, scheme);
  output::check_inputs(options.outfmt, queries, targets);
  // E-value parameters: NCBI's table for the scheme, else an estimate (while the engine starts).
  const scoring::karlin_params evalue_params = scoring::karlin_params_for(scheme);
  std::unique_ptr<engine> eng = engine_ready.get();
  const double ready_s = since_start();
  {
    const std::lock_guard<std::mutex> lock(engine_mutex);
    hold_engine_notices = false;
  }
  for (const std::string& line : held_notices) notice_in(line);
  if (evalue_params.source == scoring::karlin_source::estimated)
    notice_in("notice: E-values: NCBI BLAST has no table for this scoring scheme; using " +
              scoring::describe(evalue_params));

  std::uint64_t total_cells = 0, db_residues = 0;
  for (const auto& t : targets.records) db_residues += t.residues.size();
  for (const auto& q : queries.records) total_cells += std::uint64_t(q.residues.size()) * db_residues;

  std::vector<output::hit> hits;
  double scan_s = 0;
  {
    // A single pair on the GPU gets the engine's own fill progress line instead.
    const bool single_gpu_pair = eng->name() != "cpu" && queries.records.size() * targets.records.size() == 1;
    progress_line progress("aligning", total_cells, !options.quiet && !single_gpu_pair);
    const std::vector<std::int32_t> min_scores =
        min_scores_of(options, evalue_params, queries, db_residues, targets.records.size());
    hits = search_all(*eng, scheme, options, queries, targets, min_scores, progress, scan_s);
  }

  const double aligned_s = since_start();

  const output::run_context ctx{queries, targets, scheme, SWAT_VERSION_STRING, options.command_line,
                                db_residues, eng->name(), eng->name() == "cpu" ? "cpu" : "gpu", &evalue_params};
  if (options.out_path.empty() || options.out_path == "-") {
    output::write_hits(stdout_stream, options.outfmt, ctx, hits);
    stdout_stream.flush();
    if (!stdout_stream) throw runtime_failure("error writing to standard output");
  } else {
    output::atomic_file file(options.out_path);
    output::write_hits(file.stream(), options.outfmt, ctx, hits);
    file.commit();
  }
  if (options.timing) {
    char line[480];
    std::string stages;
    for (const auto& [stage, seconds] : eng->stage_seconds()) {
      char part[80];
      std::snprintf(part, sizeof part, "%s %.3f s, ", stage.c_str(), seconds);
      stages += part;
    }
    const double align_s = aligned_s - ready_s;
    std::snprintf(line, sizeof line,
                  "timing: read %.3f s | %s engine ready %.3f s (started with the read) | align %.3f s "
                  "(%.3g cells, %.1f GCUPS; %sscan %.3f s, traceback %.3f s) | output %.3f s | total %.3f s",
                  read_s, eng->name().c_str(), engine_s, align_s, double(total_cells),
                  double(total_cells) / std::max(align_s, 1e-9) / 1e9, stages.c_str(), scan_s, align_s - scan_s,
                  since_start() - aligned_s, since_start());
    options.timing(line);
  }
}

}  // namespace swat::pipeline

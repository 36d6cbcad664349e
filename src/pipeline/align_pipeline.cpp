// `swat-gpu align` (align_pipeline.hpp): read → plan → engine → output. The engine comes from
// the registry through the plan the CLI resolved (engine/registry.hpp); the pipeline never
// names an engine.

#include "pipeline/align_pipeline.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/score_range.hpp"
#include "output/atomic_file.hpp"
#include "pipeline/progress.hpp"
#include "scoring/scoring.hpp"

namespace swat::pipeline {

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
  return build_engine(options.engine, [&notice](const std::string& line) { notice("notice: " + line); });
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

// Aligns one query against every target and appends its best hits.
void search_query(engine& eng, const scoring_scheme& scheme, const align_options& options,
                  const sequence_set& queries, std::size_t q, const sequence_set& targets,
                  progress_line& progress, std::vector<output::hit>& hits) {
  std::vector<pair_job> jobs;
  jobs.reserve(targets.records.size());
  for (std::size_t t = 0; t < targets.records.size(); ++t)
    jobs.push_back({q, t, queries.records[q].residues, targets.records[t].residues});
  const progress_fn report = [&](std::uint64_t cells) { progress.add(cells); };

  std::vector<std::size_t> keep;
  std::vector<best_cell> cells(jobs.size());
  const bool all_kept = jobs.size() <= options.max_hits;
  if (!all_kept) {
    // Score every target first, then trace back only the hits that are reported.
    eng.score_many(jobs, scheme, cells, report);
    keep = rank_targets(cells, options.min_score, options.max_hits);
  } else {
    keep.resize(jobs.size());
    std::iota(keep.begin(), keep.end(), std::size_t{0});
  }
  std::vector<pair_job> kept_jobs;
  for (std::size_t t : keep) kept_jobs.push_back(jobs[t]);
  std::vector<alignment> alns(kept_jobs.size());
  eng.align_many(kept_jobs, scheme, alns, all_kept ? report : progress_fn{});

  std::vector<best_cell> traced(jobs.size());
  for (std::size_t k = 0; k < keep.size(); ++k) {
    const alignment& a = alns[k];
    if (!all_kept && (a.score != cells[keep[k]].score || a.query_end != cells[keep[k]].query_end ||
                      a.target_end != cells[keep[k]].target_end))
      throw runtime_failure("internal error: " + eng.name() + " engine gave score " +
                            std::to_string(cells[keep[k]].score) + " then an alignment of " +
                            std::to_string(a.score) + " for " + queries.records[q].name + " vs " +
                            targets.records[keep[k]].name);
    traced[keep[k]] = {a.score, a.query_end, a.target_end};
  }
  // With every target traced, ranking happens after the alignments are known.
  const std::vector<std::size_t> order = all_kept ? rank_targets(traced, options.min_score, options.max_hits) : keep;
  for (std::size_t t : order) {
    const auto k = std::size_t(std::find(keep.begin(), keep.end(), t) - keep.begin());
    hits.push_back({q, t, std::move(alns[k])});
  }
}

// Every engine scores in int32: refuse inputs whose best possible score could overflow it.
void check_score_range(const sequence_set& queries, const sequence_set& targets, const scoring_scheme& scheme) {
  std::uint64_t longest_query = 0, longest_target = 0;
  for (const auto& q : queries.records) longest_query = std::max<std::uint64_t>(longest_query, q.residues.size());
  for (const auto& t : targets.records) longest_target = std::max<std::uint64_t>(longest_target, t.residues.size());
  if (!within_score_range(longest_query, longest_target, scheme))
    throw usage_error("scores could reach " + std::to_string(best_score_bound(longest_query, longest_target, scheme)) +
                      ", beyond the 32-bit range the engines use; lower the match/matrix scores");
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
  // The fill progress of a single long pair (engines that report one) shows on the progress line.
  std::atomic<progress_line*> fill_line{nullptr};
  align_options with_progress = options;
  with_progress.engine.options.fill_progress = [&fill_line](double fraction, double elapsed) {
    if (progress_line* line = fill_line.load()) line->fill(fraction, elapsed);
  };
  double engine_s = 0;
  auto engine_ready = std::async(std::launch::async, [&] {
    std::unique_ptr<engine> e = make_engine(with_progress, engine_notice);
    engine_s = since_start();
    return e;
  });
  auto [queries, targets] = read_inputs(options, notice_in);
  const double read_s = since_start();
  const scoring_scheme scheme = build_scheme(queries.alphabet, options.scoring);
  check_score_range(queries, targets, scheme);
  std::unique_ptr<engine> eng = engine_ready.get();
  const double ready_s = since_start();
  {
    const std::lock_guard<std::mutex> lock(engine_mutex);
    hold_engine_notices = false;
  }
  for (const std::string& line : held_notices) notice_in(line);

  std::uint64_t total_cells = 0, db_residues = 0;
  for (const auto& t : targets.records) db_residues += t.residues.size();
  for (const auto& q : queries.records) total_cells += std::uint64_t(q.residues.size()) * db_residues;

  std::vector<output::hit> hits;
  {
    progress_line progress("aligning", total_cells, !options.quiet);
    struct detach {  // the engine stops reaching the line before it goes, exceptions included
      std::atomic<progress_line*>& line;
      ~detach() { line.store(nullptr); }
    } detach_fill{fill_line};
    if (queries.records.size() * targets.records.size() == 1) fill_line.store(&progress);
    for (std::size_t q = 0; q < queries.records.size(); ++q)
      search_query(*eng, scheme, options, queries, q, targets, progress, hits);
  }

  const double aligned_s = since_start();

  const output::run_context ctx{queries, targets, scheme, SWAT_VERSION_STRING, options.command_line,
                                db_residues};
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
    char line[320];
    std::snprintf(line, sizeof line,
                  "timing: read %.3f s | %s engine ready %.3f s (started with the read) | align %.3f s "
                  "(%.3g cells, %.1f GCUPS) | output %.3f s | total %.3f s",
                  read_s, eng->name().c_str(), engine_s, aligned_s - ready_s, double(total_cells),
                  double(total_cells) / std::max(aligned_s - ready_s, 1e-9) / 1e9, since_start() - aligned_s,
                  since_start());
    options.timing(line);
  }
}

}  // namespace swat::pipeline

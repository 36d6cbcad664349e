// A search session (search_session.hpp): the database, scheme and engine of `swat-gpu serve`.

#include "pipeline/search_session.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <map>
#include <stdexcept>
#include <system_error>

#include "common/error.hpp"
#include "pipeline/database.hpp"

namespace swat::pipeline {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

//! Whether the request names any scoring option (then it must make the session's scheme).
bool gives_scoring(const scoring_options& o) {
  return o.match || o.mismatch || o.gap_open || o.gap_extend || !o.matrix.empty() || !o.matrix_file.empty();
}

std::string num(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace

std::string describe_scheme(const scoring_scheme& scheme) {
  return scheme.matrix_name + ", gap open " + std::to_string(scheme.gap_open) + ", gap extend " +
         std::to_string(scheme.gap_extend);
}

search_session::search_session(session_options options, const notice_fn& notice) : options_(std::move(options)) {
  const auto start = clock_type::now();
  align_options as_align;
  as_align.engine = options_.engine;
  // The engine starts while the database is read (as run_align starts it).
  const auto start_engine = [&] { return make_engine(as_align, notice); };
  std::future<std::unique_ptr<engine>> engine_ready;
  try {
    engine_ready = std::async(std::launch::async, start_engine);
  } catch (const std::system_error&) {
    engine_ready = std::async(std::launch::deferred, start_engine);
  }
  const io::warning_fn warn = [&](const std::string& w) { notice("warning: " + w); };
  try {
    targets_ = read_database(options_.db_path, options_.alphabet, warn, options_.engine.options.cpu_threads, &read_);
  } catch (...) {
    if (engine_ready.valid()) engine_ready.wait();  // its thread refers to this frame
    throw;
  }
  scheme_ = build_scheme(targets_.alphabet, options_.scoring);
  engine_ = engine_ready.get();
  prepare();
  ready_s_ = seconds_since(start);
}

search_session::search_session(session_options options, sequence_set targets, std::unique_ptr<engine> eng,
                               const notice_fn& notice, const database_read& read)
    : options_(std::move(options)), targets_(std::move(targets)), read_(read) {
  const auto start = clock_type::now();
  scheme_ = build_scheme(targets_.alphabet, options_.scoring);
  if (!eng) {
    align_options as_align;
    as_align.engine = options_.engine;
    eng = make_engine(as_align, notice);
  }
  engine_ = std::move(eng);
  prepare();
  ready_s_ = seconds_since(start);
}

void search_session::prepare() {
  // The targets stay where they are for the session's life: a database engine keeps them
  // prepared (packed, on the GPU) between searches.
  std::vector<residue_span> pinned;
  for (const auto& t : targets_.records) pinned.push_back(t.residues);
  if (options_.pin) engine_->pin_targets(pinned);
  if (options_.warm_up && !targets_.records.empty()) {
    // A short piece of the first target (and, for DNA, its reverse complement: the minus strand
    // is searched as more queries of the same scan) against every target.
    const residue_span first = targets_.records.front().residues;
    std::vector<std::uint8_t> piece(first.begin(), first.begin() + std::ptrdiff_t(std::min<std::size_t>(first.size(), 32)));
    std::vector<std::vector<std::uint8_t>> pieces{piece};
    if (targets_.alphabet == alphabet_kind::dna) pieces.push_back(reverse_complement(piece));
    const std::vector<residue_span> qs(pieces.begin(), pieces.end());
    std::vector<best_cell> cells(qs.size() * pinned.size());
    engine_->search(qs, pinned, scheme_, cells, {});
  }
}

std::unique_ptr<engine> search_session::release_engine() {
  const std::lock_guard<std::mutex> lock(engine_mutex_);
  if (engine_ && options_.pin) engine_->pin_targets({});
  return std::move(engine_);
}

search_session::~search_session() = default;

std::vector<output::hit_record> search_session::hits(const checked_search& checked, sequence_set& queries,
                                                     const progress_fn& cells) {
  const std::lock_guard<std::mutex> lock(engine_mutex_);
  if (!engine_) throw std::logic_error("search_session::hits after release_engine");
  const search_result found = search_hits(*engine_, scheme_, checked, queries, targets_, false, nullptr, cells);
  const output::run_context ctx{queries, targets_, scheme_, SWAT_VERSION_STRING, checked.searching.command_line,
                                found.times.db_residues, engine_->name(), engine_->device(), &*found.statistics};
  return output::hit_records(ctx, found.hits);
}

std::vector<std::int32_t> search_session::scores(const checked_search& checked, sequence_set& queries,
                                                 const progress_fn& cells) {
  const std::lock_guard<std::mutex> lock(engine_mutex_);
  if (!engine_) throw std::logic_error("search_session::scores after release_engine");
  const std::size_t nq = queries.records.size(), nt = targets_.records.size();
  const strand_choice strand = checked.searching.strand;
  // As search_hits scans both strands: the reverse complements are more queries of one search.
  std::vector<residue_span> qs;
  std::vector<std::vector<std::uint8_t>> reversed;
  if (strand != strand_choice::minus)
    for (const auto& q : queries.records) qs.push_back(q.residues);
  if (strand != strand_choice::plus) {
    reversed.reserve(nq);
    for (const auto& q : queries.records) qs.push_back(reversed.emplace_back(reverse_complement(q.residues)));
  }
  std::vector<residue_span> ts;
  for (const auto& t : targets_.records) ts.push_back(t.residues);
  std::vector<best_cell> found(qs.size() * nt);
  if (!found.empty()) engine_->search(qs, ts, scheme_, found, cells);
  std::vector<std::int32_t> best(nq * nt, 0);
  for (std::size_t k = 0; k < found.size(); ++k) best[k % (nq * nt)] = std::max(best[k % (nq * nt)], found[k].score);
  return best;
}

checked_search search_session::check(const align_options& request, const sequence_set& queries) const {
  check_alphabets(request.query_path, queries, targets_, read_.prepared);
  if (gives_scoring(request.scoring)) {
    const scoring_scheme asked = build_scheme(targets_.alphabet, request.scoring);
    if (!(asked == scheme_))
      throw usage_error("scoring options belong to the server: it scores with " + describe_scheme(scheme_) +
                        ", this request asks for " + describe_scheme(asked));
  }
  checked_search checked = check_search(request, queries, targets_, scheme_);
  checked.searching.engine = options_.engine;  // --threads of the statistics' fits: the server's
  return checked;
}

session_answer search_session::answer(const checked_search& checked, sequence_set& queries, std::ostream& out) {
  const auto asked = clock_type::now();
  const std::lock_guard<std::mutex> lock(engine_mutex_);
  session_answer answer;
  answer.wait_s = seconds_since(asked);
  // The engine's stages add up over its searches: this search's are the difference.
  const auto stages_before = engine_->stage_seconds();
  const std::size_t decisions_before = engine_->decisions().size();
  const auto t0 = clock_type::now();
  const search_times times = search_and_write(*engine_, scheme_, checked, queries, targets_, out, false);
  answer.search_s = std::chrono::duration<double>(times.aligned - t0).count();
  answer.output_s = seconds_since(times.aligned);

  std::map<std::string, double> before(stages_before.begin(), stages_before.end());
  std::string stages;
  for (const auto& [stage, seconds] : engine_->stage_seconds()) {
    const double s = seconds - (before.count(stage) ? before[stage] : 0.0);
    if (s > 0) stages += stage + num(" %.3f s, ", s);
  }
  for (const auto& [stage, seconds] : times.stages) stages += "pipeline: " + stage + num(" %.3f s, ", seconds);
  std::string decided;
  const std::vector<std::string> decisions = engine_->decisions();
  for (std::size_t k = decisions.size() >= decisions_before ? decisions_before : 0; k < decisions.size(); ++k)
    decided += "; " + decisions[k];
  const double align_s = answer.search_s;
  answer.timing = "server: wait" + num(" %.3f s | ", answer.wait_s) + engine_->name() + " engine on " +
                  engine_->device() + num(" | align %.3f s (", align_s) + num("%.3g cells, ", double(times.total_cells)) +
                  num("%.1f GCUPS; ", double(times.total_cells) / std::max(align_s, 1e-9) / 1e9) + stages +
                  num("scan %.3f s, E-values ", times.scan_s) + times.stats_method + num(" %.3f s, ", times.fit_s) +
                  num("traceback %.3f s)", align_s - times.scan_s - times.fit_s) +
                  num(" | output %.3f s", answer.output_s) + (decided.empty() ? "" : " | plan: " + decided.substr(2));
  return answer;
}

}  // namespace swat::pipeline

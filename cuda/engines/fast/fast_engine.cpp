// The fast engine: GPU fill with origins, CPU bounded-memory traceback of the rectangle (or the
// GPU traceback of long pairs), its fits-check and its registration as --kernel fast.

#include "cuda/engines/fast/fast_engine.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/score_range.hpp"
#include "cuda/common/device_context.hpp"
#include "cuda/engines/fast/fast_bands.hpp"
#include "cuda/engines/fast/fast_fill.hpp"
#include "cuda/engines/fast/fast_trace.hpp"
#include "engine/cpu_traceback.hpp"
#include "engine/gpu_selection.hpp"
#include "engine/registry.hpp"
#include "engine/windows.hpp"

namespace swat::fast {

namespace {

class fast_engine final : public engine {
 public:
  explicit fast_engine(const engine_options& o)
      : options_(o),
        progress_fn_(o.fill_progress),
        budget_bytes_(std::size_t(o.cpu_memory_bytes ? o.cpu_memory_bytes : default_cpu_memory_bytes)),
        dev_(o.gpu_id),
        ctx_(dev_),
        band_devices_(resolve_gpu_selection(o.gpus, cuda::device_count())) {
    if (progress_fn_) progress_ = trace_progress{&call_progress, &progress_fn_};
    if (band_devices_.size() < 2) band_devices_.clear();
    if (!band_devices_.empty() && o.notice) {
      const std::string line = band_path_notice(band_devices_, [](int a, int b) { return cuda::peer_access(a, b); });
      if (!line.empty()) o.notice(line);
    }
  }

  std::string name() const override { return "gpu-fast"; }
  std::string device() const override {
    std::string d = "GPU " + std::to_string(dev_.id()) + ": " + dev_.describe();
    if (!band_devices_.empty()) d += "; long pairs filled in bands over GPUs " + device_list_text(band_devices_);
    return d;
  }

  //! The fits-check: the int8 profile and the score-range bound.
  std::string unfit_reason(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (scheme_fits(scheme) && within_score_range(query.size(), target.size(), scheme)) return {};
    return "scores outside [-127, 127] or a score bound above 2^30";
  }

  alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (query.empty() || target.empty()) return {};
    dev_.make_current();
    if (double(query.size()) * double(target.size()) >= gpu_trace_min_cells &&
        std::int64_t(target.size()) <= trace_max_columns)
      return gpu_trace(query, target, scheme);
    fill_options fo;
    fo.variant = fill_variant::origins32;
    const fill_result r = ctx_.fill(query, target, scheme, fo);
    if (r.best.score <= 0) return {};
    const std::int64_t qb = r.query_begin, tb = r.target_begin;
    alignment aln = cpu::trace_rectangle(
        query.subspan(std::size_t(qb), std::size_t(r.best.query_end - qb)),
        target.subspan(std::size_t(tb), std::size_t(r.best.target_end - tb)), scheme, r.best.score,
        budget_bytes_);
    aln.query_begin += qb;
    aln.query_end += qb;
    aln.target_begin += tb;
    aln.target_end += tb;
    return aln;
  }

  //! score_many's batches of tall pairs so far: their time and their launches' (--timing).
  //! score_many's batches and the tracebacks; the band fills' stage names its counts (of every
  //! pair so far, summed as the seconds are).
  std::vector<std::pair<std::string, double>> stage_seconds() const override {
    std::vector<std::pair<std::string, double>> out = stages_;
    for (auto& [name, seconds] : out)
      if (name == band_fills_stage)
        name = "pair tracebacks: bands " + std::to_string(traced_bands_) + " filled (" + std::to_string(bands_ahead_) +
               " from fills ahead, " + std::to_string(bands_ahead_missed_) + " missed)";
    return out;
  }

  //! One GPU's batches: with several GPUs (--gpus) a scan of windows spreads over all of them.
  bool scores_tall_pairs_at_once(residue_span query, residue_span target, const scoring_scheme& scheme) const override {
    return band_devices_.empty() && scheme_relative16(scheme) && tall_rows(query, target, scheme) != tall_side::none;
  }

  best_cell score_only(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    if (query.empty() || target.empty()) return {};
    fill_options fo;
    fo.variant = std::min(query.size(), target.size()) >= score16_min_length ? fill_variant::score16
                                                                               : fill_variant::score32;
    const bool try16 = fo.variant == fill_variant::score16;
    // A pair whose alignment may follow (a search's long pair) keeps its special rows: the
    // traceback then starts from them instead of filling the matrix again (fast_trace.hpp).
    const bool keeps_special = double(query.size()) * double(target.size()) >= special_min_cells &&
                               std::int64_t(target.size()) <= trace_max_columns &&
                               std::int64_t(query.size()) <= (1ll << 31) - 1024;
    // Several GPUs (--gpus): a long pair's query rows in bands of one round of strips cycled over
    // the GPUs, each band handing its last row to the next (fast_bands.hpp), its special rows
    // written into the first GPU's memory when they fit there. A pair that keeps special rows
    // where the bands cannot write them (spreads_special) is filled on one GPU with its rows:
    // the walk from them beats bands without them, whose alignment refills the whole matrix in
    // bands (the 1.46 Mb pair: 0.18 against 1.66 s of traceback).
    if (in_bands(query.size(), target.size()) && (!keeps_special || spreads_special())) {
      if (keeps_special)
        if (const std::optional<best_cell> best = special_score(query, target, scheme, try16, true)) return *best;
      band_layout layout;
      layout.devices = band_devices_;
      return fill_bands(query, target, scheme, fo, 0, layout).best;  // bands of one round, cycled over the GPUs
    }
    // A short query against a long target (a gene against a genome window) is filled transposed:
    // the target's rows make many strips where the query's made a few (a strip is one warp), with
    // the rows-first tie rule, so that the best cell is the same.
    if (scheme.symmetric() && query.size() < transpose_max_query && target.size() >= transpose_min_ratio * query.size()) {
      fill_options to;
      to.rows_first = true;
      to.variant = scheme_relative16(scheme) ? fill_variant::score16 : fill_variant::score32;
      const best_cell b = ctx_.fill(target, query, scheme, to).best;
      return {b.score, b.target_end, b.query_end};
    }
    if (keeps_special)
      if (const std::optional<best_cell> best = special_score(query, target, scheme, try16, false)) return *best;
    return ctx_.fill(query, target, scheme, fo).best;
  }

  //! Tall, narrow pairs (a gene against a genome or a wide window of one: score_only's
  //! transposed fills, and the same shape the other way round) in batches of one launch each, so
  //! that their strips share the GPU; the other pairs one after the other, as score_only.
  //!
  //! A batch takes as long as its cells at the GPU's rate, or as its longest chain of strips
  //! (each strip starts batch_strip_lag steps after the one above it), whichever is longer. A
  //! pair whose chain would be the longer is cut into windows of its long side (the rows) that
  //! overlap by the reach bound of engine/windows.hpp, at least four overlaps wide: every
  //! alignment lies whole in a window, so the best of the windows' best cells (tie rule on the
  //! long side's coordinates) is the pair's.
  void score_many(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<best_cell> results,
                  const progress_fn& progress) override {
    // The tall pairs as the batches take them: rows, columns, transposed (the target as the rows).
    struct tall_pair {
      std::size_t job = 0;
      batch_pair pair;
    };
    std::vector<tall_pair> tall;
    if (scheme_relative16(scheme))
      for (std::size_t k = 0; k < jobs.size(); ++k) {
        const tall_side side = tall_rows(jobs[k].query, jobs[k].target, scheme);
        if (side == tall_side::none) continue;
        const bool transposed = side == tall_side::target;
        tall.push_back({k, {transposed ? jobs[k].target : jobs[k].query, transposed ? jobs[k].query : jobs[k].target,
                            transposed}});
      }
    if (tall.empty()) return engine::score_many(jobs, scheme, results, progress);
    std::vector<bool> batched(jobs.size(), false);
    for (const tall_pair& tp : tall) batched[tp.job] = true;
    for (std::size_t k = 0; k < jobs.size(); ++k)
      if (!batched[k]) {
        results[k] = score_only(jobs[k].query, jobs[k].target, scheme);
        if (progress) progress(std::uint64_t(jobs[k].query.size()) * jobs[k].target.size());
      }
    dev_.make_current();
    // The pieces: each tall pair whole, or its windows.
    struct piece {
      std::size_t job = 0;
      std::int64_t start = 0;  // of the window on the rows
      batch_pair pair;
      bool whole = true;       // the whole pair, not a window of it
    };
    const std::int64_t rows_per_strip = batch_strip_rows();
    const auto strips = [&](std::int64_t rows) { return (rows + rows_per_strip - 1) / rows_per_strip; };
    double steps = 0;  // strip steps of the whole batch
    for (const tall_pair& tp : tall)
      steps += double(strips(std::int64_t(tp.pair.rows.size()))) * double(tp.pair.columns.size() + score16_last_row_lag());
    const double round_steps = steps / double(std::max(1, ctx_.batch_round_warps(scheme)));
    const std::int64_t lag = batch_lag();
    std::vector<piece> pieces;
    for (const tall_pair& tp : tall) {
      const std::size_t k = tp.job;
      const residue_span rows = tp.pair.rows, columns = tp.pair.columns;
      const bool transposed = tp.pair.rows_first;
      const auto m = std::int64_t(rows.size()), n = std::int64_t(columns.size());
      std::int64_t width = m;
      const std::int64_t overlap = window_overlap(n, scheme);
      const double strip_steps = double(n + score16_last_row_lag());
      if (lag > 0 && overlap > 0 && double(strips(m) * lag) + strip_steps > round_steps) {
        const double fits = (round_steps - strip_steps) / double(lag) * double(rows_per_strip);
        width = std::max<std::int64_t>(4 * overlap, fits > 0 ? std::int64_t(fits) : 0);
      }
      if (width >= m) {
        pieces.push_back({k, 0, tp.pair});
        continue;
      }
      for (std::int64_t from = 0;; from += width - overlap) {
        const std::int64_t to = std::min(m, from + width);
        pieces.push_back({k, from, {rows.subspan(std::size_t(from), std::size_t(to - from)), columns, transposed}, false});
        if (to == m) break;
      }
    }
    const auto started = std::chrono::steady_clock::now();
    double kernel_seconds = 0;
    std::size_t launches = 0;
    std::vector<best_cell> best(jobs.size());
    // The longest pieces first: when the budget splits them, the longest chains of strips start
    // in the first batch.
    std::stable_sort(pieces.begin(), pieces.end(),
                     [](const piece& a, const piece& b) { return a.pair.rows.size() > b.pair.rows.size(); });
    // A batch's budget, taken when it starts (a piece alone may have grown the traceback's buffers).
    const auto budget_now = [&] {
      std::int64_t budget = std::int64_t(double(dev_.free_bytes()) * 0.5) + ctx_.held_bytes();
      if (options_.max_gpu_mem_bytes > 0)
        budget = std::min<std::int64_t>(budget, std::int64_t(options_.max_gpu_mem_bytes) - (trace_ ? trace_->held_bytes() : 0));
      return budget;
    };
    std::int64_t budget = 0;
    std::vector<batch_pair> pairs;
    std::vector<const piece*> in;
    std::int64_t bytes = 0;
    const auto take = [&](const piece& p, best_cell c) {  // a piece's cell as its pair's, kept if it beats
      if (c.score <= 0) return;
      if (p.pair.rows_first) std::swap(c.query_end, c.target_end);
      (p.pair.rows_first ? c.target_end : c.query_end) += p.start;
      best_cell& b = best[p.job];
      if (cell_beats(c.score, c.query_end, c.target_end, b.score, b.query_end, b.target_end)) b = c;
    };
    const auto run = [&] {
      if (pairs.empty()) return;
      if (pairs.size() == 1 && in.front()->whole) {  // a whole pair alone: as score_only, the right way round
        const piece& p = *in.front();
        best_cell c = p.pair.rows_first ? score_only(p.pair.columns, p.pair.rows, scheme)
                                        : score_only(p.pair.rows, p.pair.columns, scheme);
        if (p.pair.rows_first) std::swap(c.query_end, c.target_end);  // back to the piece's rows × columns
        take(p, c);
      } else {
        const std::vector<fill_result> out = ctx_.fill_batch(pairs, scheme, fill_options{});
        for (std::size_t b = 0; b < pairs.size(); ++b) take(*in[b], out[b].best);
        kernel_seconds += out.front().kernel_seconds;
        ++launches;
      }
      pairs.clear();
      in.clear();
      bytes = 0;
    };
    for (const piece& p : pieces) {
      const std::int64_t need = batch_pair_bytes(std::int64_t(p.pair.rows.size()), std::int64_t(p.pair.columns.size()));
      if (!pairs.empty() && bytes + need > budget) run();
      if (pairs.empty()) budget = budget_now();
      pairs.push_back(p.pair);
      in.push_back(&p);
      bytes += need;
    }
    run();
    // Under --max-gpu-mem the batches' buffer goes: the traceback that may follow has the budget.
    if (options_.max_gpu_mem_bytes > 0) ctx_.release();
    stages_.push_back({"tall pairs at once " + std::to_string(tall.size()) + " (" + std::to_string(pieces.size()) +
                           " pieces, " + std::to_string(launches) + " launches)",
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()});
    stages_.push_back({"tall pairs at once: gpu", kernel_seconds});
    std::uint64_t cells = 0;
    for (const tall_pair& tp : tall) {
      results[tp.job] = best[tp.job];
      cells += std::uint64_t(tp.pair.rows.size()) * tp.pair.columns.size();
    }
    if (progress) progress(cells);
  }

 private:
  //! Pairs of at least this many cells trace on the GPU (fast_trace.hpp); smaller ones take the
  //! origins fill and the CPU's rectangle tracer.
  static void call_progress(void* user, double fraction, double elapsed) {
    (*static_cast<fill_progress_fn*>(user))(fraction, elapsed);
  }

  static constexpr double gpu_trace_min_cells = double(1 << 24);
  //! A score-only pair is cut into bands over several GPUs from this many cells and this many
  //! query rows per band (four strips of the 16-bit fill).
  static constexpr double band_min_cells = double(1 << 28);
  static constexpr double band_min_rows = 4096;
  //! Score-only fills of pairs whose shorter sequence has at least this many residues take the
  //! packed 16-bit fill (rerun at 32 bits on overflow), shorter ones the 32-bit fill. H100
  //! (bench/results/fast_h100_v3.csv, fast_8461_30k_h100.csv): at 1.46 Mb score16 runs 2.2× faster;
  //! up to ~64k both are latency-bound within ±10 % on unrelated pairs, while on similar pairs
  //! score16 is up to 20 % slower (its best-cell bookkeeping runs on most steps) and pays ~10 ms
  //! to detect an overflow (a 30k pair scoring 58,190: 0.025 s against 0.015 s).
  static constexpr std::size_t score16_min_length = std::size_t(1) << 17;
  //! A GPU traceback's backend is kept for the next pair while it holds at most this much device
  //! memory (a megabase pair's checkpoint rows, gigabytes, are freed at once).
  static constexpr std::int64_t kept_trace_bytes = std::int64_t(256) << 20;

  //! Score-only pairs with a query shorter than this and a target at least transpose_min_ratio
  //! times as long are filled transposed (fewer than 64 strips of the query: one warp each).
  static constexpr std::size_t transpose_max_query = std::size_t(1) << 16;
  static constexpr std::size_t transpose_min_ratio = 4;
  //! score_many's batches take pairs whose longer side is at least this many times the shorter
  //! (a 40 kb gene against a 0.11 Mb genome: 109 strips of 40 kb columns).
  static constexpr std::size_t batch_min_ratio = 2;
  //! Score-only pairs of at least this many cells keep the special rows of their fill for the
  //! traceback that may follow (a few gigabytes for a megabase pair: at most half the free memory).
  static constexpr double special_min_cells = double(1ll << 32);

  //! Steps one strip of a batch starts after the strip above it (score_many's chains of strips):
  //! 96 more than its last row's lag (160 steps). One H100
  //! (bench/results/tall_batch_h100.csv): an 8.7 kb gene against a 1.46 Mb genome, both strands,
  //! filled whole took 0.070 s, in the windows this lag gives 0.017 s; genes_genome, whose chains
  //! are as long as its work, the same with it as without (0.39 s).
  static std::int64_t batch_lag() { return 96 + score16_last_row_lag(); }
  static std::int64_t batch_strip_rows() { return variant_strip_rows(fill_variant::score16); }

  //! Whether a long pair's special rows can be filled in bands over band_devices_: the first is
  //! dev_ (where the rows and the walk are), every one reaches its memory (peer access), and no
  //! --max-gpu-mem cap (the bands' own buffers on dev_ are outside the rows' budget).
  bool spreads_special() {
    if (!spreads_special_)
      spreads_special_ = !band_devices_.empty() && band_devices_.front() == dev_.id() &&
                         options_.max_gpu_mem_bytes == 0 && bands_reach_first(band_devices_);
    dev_.make_current();
    return *spreads_special_;
  }

  //! Whether score_only fills the pair in row bands over several GPUs (--gpus).
  bool in_bands(std::size_t query, std::size_t target) const {
    const double bands = double(band_devices_.size());
    return bands >= 2 && double(query) >= bands * band_min_rows && double(query) * double(target) >= band_min_cells;
  }

  //! Which side of a tall, narrow pair score_many's batches take as rows (none: not such a pair):
  //! the longer, at least batch_min_ratio times the shorter, which is shorter than
  //! transpose_max_query (its strips are the rows' 1,024-row strips, many of them; a target as the
  //! rows only with symmetric scores, filled transposed as score_only does). A long query's
  //! special rows are not kept in a batch: score_many's pairs are many, and one pair's rows are
  //! all the traceback could reuse.
  enum class tall_side { none, query, target };
  tall_side tall_rows(residue_span query, residue_span target, const scoring_scheme& scheme) const {
    const std::size_t q = query.size(), t = target.size();
    if (q == 0 || t == 0) return tall_side::none;
    if (in_bands(q, t)) return tall_side::none;
    const std::size_t shorter = std::min(q, t), longer = std::max(q, t);
    if (shorter >= transpose_max_query || longer < batch_min_ratio * shorter) return tall_side::none;
    if (t > q) return scheme.symmetric() ? tall_side::target : tall_side::none;
    return tall_side::query;
  }

  //! The score pass of a long pair through the traceback backend, keeping its special rows
  //! (nullopt when they do not fit: the plain fill runs); spread: in bands over the GPUs of
  //! --gpus (the rows on the first, dev_).
  std::optional<best_cell> special_score(residue_span query, residue_span target, const scoring_scheme& scheme,
                                         bool try16, bool spread) {
    dev_.make_current();
    if (!(trace_scheme_ == scheme)) trace_.reset();
    if (trace_) trace_->drop_special();
    std::int64_t budget = std::int64_t(double(dev_.free_bytes() + (trace_ ? trace_->held_bytes() : 0)) * 0.5);
    if (options_.max_gpu_mem_bytes > 0)
      budget = std::min<std::int64_t>(budget, std::int64_t(options_.max_gpu_mem_bytes) - ctx_.held_bytes());
    const std::int64_t k = special_band_rows(std::int64_t(query.size()), std::int64_t(target.size()), budget,
                                             trace_options{}.special_band_rows);
    if (k == 0) return std::nullopt;
    if (!trace_) {
      trace_ = make_gpu_trace_backend(dev_, scheme, fill_options{}.watchdog_seconds, progress_);
      trace_scheme_ = scheme;
    }
    try {
      trace_->spread_special_fills(spread ? band_devices_ : std::vector<int>{});
      const auto t0 = std::chrono::steady_clock::now();
      const best_cell best = trace_->special_fill(query, target, k, try16);
      if (trace_->special_kept().fill_bands > 0)
        add_stage("long pairs' score passes in bands over GPUs " + device_list_text(band_devices_),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      return best;
    } catch (...) {
      dev_.make_current();  // the bands may have left another GPU current
      trace_.reset();
      throw;
    }
  }

  alignment gpu_trace(residue_span query, residue_span target, const scoring_scheme& scheme) {
    // Several GPUs (--gpus): the special rows the score pass kept (its bands over the GPUs wrote
    // them into dev_'s memory) serve the walk on dev_, as on one GPU. Without them the banded
    // backend fills the special rows in bands over the GPUs, or where they do not fit, runs the
    // root crossing fill in one row band per GPU, each keeping its checkpoint rows (fast_trace.hpp,
    // make_banded_trace_backend); the walk and the segments run on the first GPU, whose free
    // memory is the budget.
    const bool over_gpus = in_bands(query.size(), target.size());
    const bool kept_here = trace_ && trace_scheme_ == scheme && special_rows_serve(trace_->special_kept(), query, target);
    const bool banded = over_gpus && !kept_here;
    // One GPU: the backend (its stream, pinned staging and device buffer) stays for the next
    // pair of the same scheme; a database search aligns its large hits one after the other, and
    // making and freeing those per pair cost more than a small pair's fills. Freed here while
    // dev_ is current (align made it so; `first` below may make another GPU current).
    if (banded || !(trace_scheme_ == scheme)) trace_.reset();
    // Under --max-gpu-mem the score pass's buffer goes first (as after score_many's batches): the
    // traceback has the whole budget (a 1.46 Mb pair under 64 MiB needs it for one checkpoint row).
    if (options_.max_gpu_mem_bytes > 0) ctx_.release();
    const cuda::device_context first = banded ? cuda::device_context(band_devices_.front()) : dev_;
    trace_options to;
    to.budget_bytes = std::int64_t(double(first.free_bytes() + (trace_ ? trace_->held_bytes() : 0)) * 0.9);
    if (options_.max_gpu_mem_bytes > 0)
      to.budget_bytes = std::min<std::int64_t>(to.budget_bytes, std::int64_t(options_.max_gpu_mem_bytes) -
                                                                    (first.id() == dev_.id() ? ctx_.held_bytes() : 0));
    // A kept buffer only grows: one larger than this pair's budget (the fill context grew since,
    // under --max-gpu-mem) is given back first, so the cap holds.
    if (trace_ && trace_->held_bytes() > to.budget_bytes) trace_.reset();
    if (banded) {
      auto backend = make_banded_trace_backend(band_devices_, scheme, fill_options{}.watchdog_seconds, progress_,
                                               false, options_.max_gpu_mem_bytes == 0);
      return trace_alignment(query, target, *backend, to, nullptr);
    }
    if (!trace_) {
      trace_ = make_gpu_trace_backend(dev_, scheme, fill_options{}.watchdog_seconds, progress_);
      trace_scheme_ = scheme;
    }
    try {
      trace_->spread_special_fills(over_gpus && spreads_special() ? band_devices_ : std::vector<int>{});
      const auto t0 = std::chrono::steady_clock::now();
      trace_stats st;
      alignment aln = trace_alignment(query, target, *trace_, to, &st);
      add_stage("pair tracebacks", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (st.bands > 0) {
        add_stage(band_fills_stage, st.codes_seconds);
        add_stage("pair tracebacks: band kernels", st.codes_kernel_seconds);
        add_stage("pair tracebacks: band copies", st.codes_copy_seconds);
        add_stage("pair tracebacks: band launches", st.codes_launch_seconds);
        add_stage("pair tracebacks: band waits", st.codes_wait_seconds);
        add_stage("pair tracebacks: band codes fetched whole after a missed line", st.codes_refetch_seconds);
        add_stage("pair tracebacks: special row reads", st.band_read_seconds);
        add_stage("pair tracebacks: walks", st.walk_seconds);
        traced_bands_ += st.bands;
        bands_ahead_ += st.bands_ahead;
        bands_ahead_missed_ += st.bands_ahead_missed;
      }
      if (trace_->held_bytes() > kept_trace_bytes) trace_.reset();  // a long pair's checkpoint rows go
      return aln;
    } catch (...) {
      trace_.reset();  // nothing of a failed traceback is reused
      throw;
    }
  }

  static constexpr const char* band_fills_stage = "pair tracebacks: band fills";
  std::int64_t traced_bands_ = 0, bands_ahead_ = 0, bands_ahead_missed_ = 0;  //!< of the tracebacks so far
  //! Adds seconds to the stage of that name (stage_seconds), a new one at the end.
  void add_stage(const std::string& name, double seconds) {
    const auto same = std::find_if(stages_.begin(), stages_.end(), [&](const auto& st) { return st.first == name; });
    if (same == stages_.end()) stages_.emplace_back(name, seconds);
    else same->second += seconds;
  }

  engine_options options_;
  fill_progress_fn progress_fn_;
  std::size_t budget_bytes_;
  cuda::device_context dev_;
  fill_context ctx_;
  std::vector<int> band_devices_;  //!< --gpus when it names two or more (a GPU named twice: tests)
  std::optional<bool> spreads_special_;  //!< spreads_special(), once asked
  trace_progress progress_;
  std::vector<std::pair<std::string, double>> stages_;  //!< score_many's batches, the tracebacks (stage_seconds)
  std::unique_ptr<trace_backend> trace_;  //!< the one-GPU traceback backend, kept between pairs
  scoring_scheme trace_scheme_;           //!< the scheme trace_ was made for

 public:
  ~fast_engine() override {
    if (!trace_) return;
    try {
      dev_.make_current();  // its stream and memory are dev_'s; the caller's thread may be on another GPU
    } catch (...) {         // a destructor does not throw: the frees below still run
    }
    trace_.reset();
  }
};

}  // namespace

std::unique_ptr<swat::engine> make_fast_engine(const engine_options& options) {
  return std::make_unique<fast_engine>(options);
}

void register_engines(engine_registry& registry) {
  engine_entry e;
  e.name = "fast";
  e.target = engine_target::gpu;
  e.summary = "GPU, register-tiled wavefront with ready flags, int32/packed int16 DPX (the default)";
  e.auto_rank = 3;
  e.make = [](const engine_options& o) { return make_fast_engine(o); };
  registry.add(std::move(e));
}

}  // namespace swat::fast

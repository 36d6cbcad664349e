// The database-search engine: the scan for many targets, the wrapped pair engine for the rest.

#include "cuda/engines/dbsearch/db_engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <future>
#include <system_error>
#include <optional>
#include <thread>

#include "common/parallel.hpp"
#include "cuda/common/device_context.hpp"
#include "cuda/engines/dbsearch/db_align.hpp"
#include "cuda/engines/dbsearch/db_boxes.hpp"
#include "cuda/engines/dbsearch/db_unique.hpp"
#include "engine/gpu_selection.hpp"
#include "engine/registry.hpp"
#include "engine/windows.hpp"

namespace swat::dbsearch {

namespace {

class db_engine final : public engine {
 public:
  db_engine(std::unique_ptr<engine> pairs, std::unique_ptr<engine> boxes, scan_options options, int gpu_id,
            pair_engine_factory more_pairs)
      : pairs_(std::move(pairs)),
        cpu_(std::move(boxes)),
        options_(std::move(options)),
        dev_(gpu_id),
        more_pairs_(std::move(more_pairs)) {}

  std::string name() const override { return "gpu-db"; }
  //! The pair engine's GPU, and the scan's GPUs when --gpus names others.
  std::string device() const override {
    std::vector<int> scan = options_.devices;
    std::sort(scan.begin(), scan.end());
    scan.erase(std::unique(scan.begin(), scan.end()), scan.end());
    if (scan == std::vector<int>{dev_.id()}) return pairs_->device();
    return pairs_->device() + "; database scan on GPUs " + device_list_text(scan);
  }

  std::string unfit_reason(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    return pairs_->unfit_reason(query, target, scheme);
  }

  alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    return pairs_->align(query, target, scheme);
  }
  best_cell score_only(residue_span query, residue_span target, const scoring_scheme& scheme) override {
    return pairs_->score_only(query, target, scheme);
  }
  //! The stages of every search and alignment batch so far, those of the same name summed
  //! (a command's windows and its other pairs are several searches), then the pair engine's (its
  //! batches of tall pairs, its tracebacks) and the lanes' pair engines' (summed over the lanes,
  //! which run at once).
  std::vector<std::pair<std::string, double>> stage_seconds() const override {
    std::vector<std::pair<std::string, double>> merged, all = stages_;
    for (auto& stage : pairs_->stage_seconds()) all.push_back(std::move(stage));
    // The pair engines' band-fill stage names its counts ("pair tracebacks: bands N filled (A from
    // fills ahead, M missed)"): the lanes' are one stage whose counts are summed too.
    long long bands = 0, ahead = 0, missed = 0;
    double band_seconds = 0;
    bool band_stage = false;
    for (const auto& lane : box_engines_)
      for (auto& [name, seconds] : lane->stage_seconds()) {
        long long b = 0, a = 0, m = 0;
        if (std::sscanf(name.c_str(), "pair tracebacks: bands %lld filled (%lld from fills ahead, %lld missed)", &b, &a,
                        &m) == 3) {
          bands += b;
          ahead += a;
          missed += m;
          band_seconds += seconds;
          band_stage = true;
          continue;
        }
        all.emplace_back("lanes: " + name, seconds);
      }
    if (band_stage)
      all.emplace_back("lanes: pair tracebacks: bands " + std::to_string(bands) + " filled (" + std::to_string(ahead) +
                           " from fills ahead, " + std::to_string(missed) + " missed)",
                       band_seconds);
    for (const auto& [name, seconds] : all) {
      const auto same = std::find_if(merged.begin(), merged.end(), [&](const auto& m) { return m.first == name; });
      if (same == merged.end()) merged.emplace_back(name, seconds);
      else same->second += seconds;
    }
    return merged;
  }
  bool scans_first() const override { return true; }
  void pin_targets(std::span<const residue_span> targets) override {
    pinned_.assign(targets.begin(), targets.end());
    pinned_scanner_.reset();
  }
  std::vector<std::string> decisions() const override { return decisions_; }

  //! Hits with a known best cell at the end of their prefixes get their box from one batched
  //! reverse pass (db_align.hpp) and are aligned in it: boxes of up to max_gpu_box_cells many at
  //! once on the GPU (db_boxes.hpp), larger ones by the pair engines; every other job goes to the
  //! pair engine whole.
  void align_many(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<alignment> results,
                  const progress_fn& progress) override {
    const auto began = std::chrono::steady_clock::now();
    const std::int32_t limit = 32767 - scheme.max_score();
    std::vector<std::size_t> boxed, whole, pruned;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      const pair_job& j = jobs[k];
      const best_cell& c = j.known;
      const bool at_end = c.score > 0 && std::size_t(c.query_end) == j.query.size() &&
                          std::size_t(c.target_end) == j.target.size();
      // The reverse pass reads only the ends of the prefixes that an alignment of the hit's
      // score can reach (a read's hit in a window's overlap: the read × about its own length).
      // (the pruned pass needs a cost per gap residue: without one a gap's chain never ends)
      if (at_end && c.score <= limit && scan_supports(scheme) && scheme.gap_extend > 0)
        (reach_cells(std::int64_t(j.query.size()), std::int64_t(j.target.size()), c.score, scheme) <= max_hit_cells
             ? boxed
             : pruned)
            .push_back(k);
      else
        whole.push_back(k);
    }
    // Reach windows too large for one warp (a weak hit deep into a long gene): the reverse pass
    // on the CPU over the cells that stay positive (pruned_reach), on every core; the hits whose
    // paths stay alive over too many cells are aligned whole.
    std::vector<std::optional<box_extent>> preset(boxed.size());
    if (!pruned.empty()) {
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<std::optional<box_extent>> found(pruned.size());
      parallel_for(pruned.size(), 0, 1, [&](std::size_t p) {
        const pair_job& j = jobs[pruned[p]];
        found[p] = pruned_reach(j.query, j.target, j.known.score, scheme, max_pruned_cells);
      });
      std::size_t boxed_now = 0;
      for (std::size_t p = 0; p < pruned.size(); ++p) {
        if (!found[p]) {
          whole.push_back(pruned[p]);
          continue;
        }
        boxed.push_back(pruned[p]);
        preset.push_back(found[p]);
        ++boxed_now;
      }
      stages_.push_back({"pruned reverse pass " + std::to_string(pruned.size()) + " (" + std::to_string(boxed_now) +
                             " boxed)",
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
    }
    // A large hit's reverse pass is one warp's long walk over its reach window, while its box
    // fill runs on many warps at once: such a hit skips the reverse pass and is aligned in its
    // whole reach window (a rectangle ending at the best cell that holds every alignment of the
    // hit's score ending there, so the same alignment: db_align.hpp), when the GPU's boxes take
    // that window.
    const double gpu_box_limit = std::min(double(options_.large_box_cells), max_gpu_box_cells);
    std::vector<box_extent> boxes(boxed.size());
    std::vector<residue_span> qs, ts;
    std::vector<std::int32_t> scores;
    std::vector<std::size_t> reversed, early;
    std::size_t windows = 0;  // hits aligned in their whole reach window
    for (std::size_t b = 0; b < boxed.size(); ++b) {
      if (preset[b]) {
        boxes[b] = *preset[b];
        early.push_back(b);
        continue;
      }
      const pair_job& j = jobs[boxed[b]];
      const std::int64_t m = std::int64_t(j.query.size()), n = std::int64_t(j.target.size());
      const double cells = reach_cells(m, n, j.known.score, scheme);
      if (cells >= direct_box_min_cells && cells <= gpu_box_limit) {
        const std::int64_t span = reach_span(m, n, j.known.score, scheme);
        boxes[b] = box_extent{std::min(m, span), std::min(n, span)};
        early.push_back(b);
        ++windows;
        continue;
      }
      reversed.push_back(b);
      qs.push_back(j.query);
      ts.push_back(j.target);
      scores.push_back(j.known.score);
    }
    using clock = std::chrono::steady_clock;
    const auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
    // The boxes known before the reverse pass (reach windows, pruned passes) go to the GPU while
    // the reverse pass runs (all-against-all genes: 1,118 windows of whole genes beside 8,882
    // reverse passes); the reverse pass's boxes follow.
    std::vector<std::pair<std::int64_t, std::int64_t>> offset(jobs.size());
    box_group first_boxes = group_boxes(jobs, boxed, early, boxes, offset, gpu_box_limit, whole);
    const bool both = !first_boxes.small_unique.empty() && !reversed.empty();
    auto first_done = std::async(std::launch::async, [&] { align_small_boxes(first_boxes, scheme, both ? 8 : 4); });
    auto t0 = clock::now();
    reach_seconds reach;
    std::vector<box_extent> found;
    try {
      found = reverse_reach(qs, ts, scores, scheme, dev_, &reach);
    } catch (...) {
      first_done.wait();
      throw;
    }
    for (std::size_t r = 0; r < reversed.size(); ++r) boxes[reversed[r]] = found[r];
    stages_.push_back({"reverse pass " + std::to_string(qs.size()), since(t0)});
    stages_.push_back({"reverse pass host", reach.host});
    stages_.push_back({"reverse pass gpu", reach.gpu});
    if (windows > 0) stages_.push_back({"reach windows as boxes " + std::to_string(windows), 0.0});
    t0 = clock::now();
    box_group later_boxes = group_boxes(jobs, boxed, reversed, boxes, offset, gpu_box_limit, whole);
    // Boxes up to large_box_cells: filled and walked on the GPU many at once (db_boxes.hpp), in a
    // thread of their own while this one gives the pair engines the larger boxes.
    auto later_done = std::async(std::launch::async, [&] { align_small_boxes(later_boxes, scheme, both ? 8 : 4); });
    std::vector<pair_job> large = first_boxes.large;
    large.insert(large.end(), later_boxes.large.begin(), later_boxes.large.end());
    std::vector<std::size_t> large_at = first_boxes.large_at;
    large_at.insert(large_at.end(), later_boxes.large_at.begin(), later_boxes.large_at.end());
    std::vector<std::size_t> large_first = first_of_equal(large);
    const std::vector<pair_job> large_unique = pick_unique(large, large_first);
    std::vector<alignment> large_out(large_unique.size());
    // A whole pair whose best cell ends its prefixes (a score beyond the 16-bit reverse pass, or
    // a reach window too large for it) is cut to that window: it holds every optimal path into
    // the best cell, so the pair engine's alignment of it is the same (db_align.hpp), on fewer
    // cells (a 40 kb gene's hit 64 kb into a genome: the last 43.6 kb).
    std::vector<pair_job> rest;
    std::vector<std::pair<std::int64_t, std::int64_t>> rest_at;
    for (std::size_t k : whole) {
      pair_job j = jobs[k];
      std::pair<std::int64_t, std::int64_t> at{0, 0};
      const std::int64_t m = std::int64_t(j.query.size()), n = std::int64_t(j.target.size());
      if (j.known.score > 0 && j.known.query_end == m && j.known.target_end == n) {
        const std::int64_t span = reach_span(m, n, j.known.score, scheme);
        at = {std::max<std::int64_t>(0, m - span), std::max<std::int64_t>(0, n - span)};
        j.query = j.query.subspan(std::size_t(at.first));
        j.target = j.target.subspan(std::size_t(at.second));
        j.known.query_end -= at.first;
        j.known.target_end -= at.second;
      }
      rest.push_back(j);
      rest_at.push_back(at);
    }
    std::vector<alignment> rest_out(rest.size());
    double large_s = 0;
    try {
      align_large(large_unique, scheme, large_out);
      large_s = since(t0);
    } catch (...) {
      first_done.wait();
      later_done.wait();
      throw;
    }
    std::exception_ptr failed;
    for (auto* done : {&first_done, &later_done}) try {
        done->get();
      } catch (...) {
        if (!failed) failed = std::current_exception();
      }
    if (failed) std::rethrow_exception(failed);
    redo_unreached(first_boxes, scheme);
    redo_unreached(later_boxes, scheme);
    t0 = clock::now();
    // Whole pairs (boxes too large for the reverse pass, saturated or without a known cell):
    // several at once on the lanes too.
    const bool laned = on_lanes(rest, [&](engine& e, std::size_t k) {
      rest_out[k] = e.align(rest[k].query, rest[k].target, scheme);
      if (progress) progress(std::uint64_t(rest[k].query.size()) * rest[k].target.size());
    });
    if (!laned) pairs_->align_many(rest, scheme, rest_out, progress);
    const double whole_s = since(t0);
    const auto name = [](const char* what, std::size_t all, std::size_t unique) {
      std::string text = std::string(what) + " " + std::to_string(all);
      if (unique != all) text += " (" + std::to_string(unique) + " distinct)";
      return text;
    };
    box_seconds on_gpu = first_boxes.seconds;
    on_gpu.host += later_boxes.seconds.host;
    on_gpu.gpu += later_boxes.seconds.gpu;
    on_gpu.reserve += later_boxes.seconds.reserve;
    on_gpu.fill += later_boxes.seconds.fill;
    on_gpu.walk += later_boxes.seconds.walk;
    const std::size_t small_all = first_boxes.small.size() + later_boxes.small.size();
    const std::size_t small_distinct = first_boxes.small_unique.size() + later_boxes.small_unique.size();
    const std::size_t redone = first_boxes.redone + later_boxes.redone;
    stages_.push_back({name("gpu boxes", small_all, small_distinct), std::max(first_boxes.wall_s, later_boxes.wall_s)});
    if (both) stages_.push_back({"gpu boxes before the reverse pass " + std::to_string(first_boxes.small.size()), first_boxes.wall_s});
    stages_.push_back({"gpu boxes host", on_gpu.host});
    stages_.push_back({"gpu boxes gpu", on_gpu.gpu});
    stages_.push_back({"gpu boxes gpu: buffer", on_gpu.reserve});
    stages_.push_back({"gpu boxes gpu: fill", on_gpu.fill});
    stages_.push_back({"gpu boxes gpu: walk", on_gpu.walk});
    if (redone > 0) stages_.push_back({"boxes the GPU did not reach " + std::to_string(redone), 0.0});
    if (!large.empty()) stages_.push_back({name("large boxes", large.size(), large_unique.size()), large_s});
    if (!rest.empty()) stages_.push_back({"whole pairs " + std::to_string(rest.size()), whole_s});
    for (const box_group* g : {&first_boxes, &later_boxes})
      for (std::size_t b = 0; b < g->small.size(); ++b)
        results[g->small_at[b]] = shifted(g->out[g->small_first[b]], offset[g->small_at[b]]);
    for (std::size_t b = 0; b < large.size(); ++b)
      results[large_at[b]] = shifted(large_out[large_first[b]], offset[large_at[b]]);
    for (std::size_t b = 0; b < rest.size(); ++b) results[whole[b]] = shifted(std::move(rest_out[b]), rest_at[b]);
    stages_.push_back({"hits aligned " + std::to_string(jobs.size()) + " (all of the above)",
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count()});
  }

  void score_many(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<best_cell> results,
                  const progress_fn& progress) override {
    const bool one_query = std::all_of(jobs.begin(), jobs.end(), [&](const pair_job& j) {
      return j.query.data() == jobs.front().query.data() && j.query.size() == jobs.front().query.size();
    });
    if (jobs.size() < min_scan_targets || !one_query || !scan_supports(scheme))
      return pairs_->score_many(jobs, scheme, results, progress);
    std::vector<residue_span> targets;
    targets.reserve(jobs.size());
    for (const pair_job& j : jobs) targets.push_back(j.target);
    const residue_span query = jobs.front().query;
    scan(std::span(&query, 1), targets, scheme, results, progress);
  }

  bool scores_tall_pairs_at_once(residue_span query, residue_span target, const scoring_scheme& scheme) const override {
    return pairs_->scores_tall_pairs_at_once(query, target, scheme);
  }
  //! Tall pairs whole (a search of too few tasks for a scan of windows): the pair engine's batches.
  void score_tall_pairs(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<best_cell> results,
                        const progress_fn& progress) override {
    pairs_->score_many(jobs, scheme, results, progress);
  }

  void search(std::span<const residue_span> queries, std::span<const residue_span> targets,
              const scoring_scheme& scheme, std::span<best_cell> results, const progress_fn& progress) override {
    if (!scan_supports(scheme)) return engine::search(queries, targets, scheme, results, progress);
    if (queries.size() * targets.size() < min_scan_targets) {
      // Too few pairs for a scan: all of them to the pair engine at once (a few genes against a
      // few genomes fill the GPU together in its batches, fast_engine's score_many).
      std::vector<pair_job> jobs;
      jobs.reserve(queries.size() * targets.size());
      for (std::size_t q = 0; q < queries.size(); ++q)
        for (std::size_t t = 0; t < targets.size(); ++t) jobs.push_back({q, t, queries[q], targets[t]});
      return pairs_->score_many(jobs, scheme, results, progress);
    }
    scan(queries, targets, scheme, results, progress);
  }

 private:
  //! Whether to scan the other way round: the queries as the database and the targets as the
  //! queries (with the rows-first tie rule, so the best cells are the same). Many queries against
  //! a few targets (reads or gene fragments against a few genomes) pack into pairs of targets of
  //! one length and cut the work into many short strips instead of a few long ones.
  bool transposed_search(std::span<const residue_span> queries, std::span<const residue_span> targets,
                         const scoring_scheme& scheme) const {
    if (options_.transpose < 0 || !scheme.symmetric()) return false;  // swapped sides score the same only then
    std::uint64_t query_residues = 0, target_residues = 0;
    for (const residue_span& q : queries) {
      if (q.size() > std::size_t(options_.max_target_length)) return false;  // every query must fit as a target
      query_residues += q.size();
    }
    if (options_.transpose > 0) return true;
    // Targets longer than the scan takes (a long side's wide windows, a genome) would go whole
    // to the pair engine: scanned as queries instead, against the queries as the database.
    for (const residue_span& t : targets)
      if (t.size() > std::size_t(options_.max_target_length)) return true;
    for (const residue_span& t : targets) target_residues += t.size();
    return queries.size() >= transpose_min_ratio * targets.size() && query_residues >= target_residues;
  }

  //! Scans, then computes the pairs the scan handed back with the pair engine.
  void scan(std::span<const residue_span> queries, std::span<const residue_span> targets,
            const scoring_scheme& scheme, std::span<best_cell> results, const progress_fn& progress) {
    using clock = std::chrono::steady_clock;
    const auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
    auto t0 = clock::now();
    std::vector<pair_index> rescan;
    const bool flip = transposed_search(queries, targets, scheme);
    {
      scan_options o = options_;
      o.rows_first = flip;
      o.transposed_results = flip;  // the scanner's targets are the queries: results land in place
      // Pinned targets (pin_targets) stay packed and on the GPU from one search to the next.
      const bool pinned = !flip && same_spans(targets, pinned_);
      std::optional<db_scanner> own;
      bool resident = pinned;
      if (pinned && (!pinned_scanner_ || !(pinned_scheme_ == scheme))) {
        pinned_scanner_.reset();
        // The engine's own spans (the same as targets): the scanner keeps them beyond this call.
        pinned_scanner_ = std::make_unique<db_scanner>(std::span<const residue_span>(pinned_), scheme, o);
        pinned_scheme_ = scheme;
        resident = false;
      } else if (!pinned) {
        own.emplace(flip ? queries : targets, scheme, o);
      }
      db_scanner& scanner = pinned ? *pinned_scanner_ : *own;
      const double built_s = since(t0);
      const auto report = progress ? std::function<void(std::uint64_t)>(progress) : nullptr;
      scanner.search(flip ? targets : queries, results, rescan, report);
      const scan_timing& t = scanner.timing();
      decisions_.push_back(std::string(flip ? "scan transposed (the queries as the database)" : "scan") + ": " +
                           std::to_string(queries.size()) + " queries x " + std::to_string(targets.size()) +
                           " targets, " + std::to_string(t.chunks) + " chunk" + (t.chunks == 1 ? "" : "s") + ", " +
                           std::to_string(t.pipelined_batches) + " pipelined launches" +
                           (pinned ? " (resident database)" : "") + joins_text(o.devices, t.joined));
      if (resident) {
        stages_.push_back({"database resident (pinned targets)", built_s});
      } else {
        stages_.insert(stages_.end(), {{"prepare", t.prepare_s},
                                       {"prepare: devices", t.devices_s},
                                       {t.upload_runs > 0 ? "prepare: targets uploaded in " + std::to_string(t.upload_runs) +
                                                                " runs (" + std::to_string(t.upload_slices) + " slices by " +
                                                                std::to_string(t.upload_threads) + " threads, " +
                                                                std::to_string(t.upload_dropped_bytes >> 20) +
                                                                " MiB of mapped pages dropped) and packed on the GPU"
                                        : t.packed_on_upload ? std::string("prepare: targets planned (each chunk packed as it is uploaded)")
                                        : t.upload_slices > 0 ? "prepare: targets packed into the GPU in " +
                                                                  std::to_string(t.upload_slices) + " slices by " +
                                                                  std::to_string(t.upload_threads) + " threads"
                                                            : std::string("prepare: targets packed"),
                                        t.pack_s},
                                       {"prepare: targets packed: sorted and paired", t.plan_s}});
        if (t.upload_slices > 0) stages_.push_back({"prepare: targets packed: staging page-locked", t.staging_s});
        stages_.push_back({"setup", built_s - t.prepare_s});
      }
      stages_.push_back({flip ? "gpu scan (transposed: the queries as the database)" : "gpu scan", t.scan_s});
      t0 = clock::now();
    }
    stages_.push_back({"teardown", since(t0)});
    t0 = clock::now();
    std::vector<pair_job> jobs;
    jobs.reserve(rescan.size());
    for (const auto& [q, t] : rescan) jobs.push_back({q, t, queries[q], targets[t]});
    std::vector<best_cell> exact(jobs.size());
    // Pairs the scan hands back are long (or saturated): several at once on the pair engines'
    // lanes, since one long, narrow pair leaves most of the GPU idle.
    const bool laned = on_lanes(jobs, [&](engine& e, std::size_t k) {
      exact[k] = e.score_only(jobs[k].query, jobs[k].target, scheme);
      if (progress) progress(std::uint64_t(jobs[k].query.size()) * jobs[k].target.size());
    });
    if (!laned) pairs_->score_many(jobs, scheme, exact, progress);
    for (std::size_t k = 0; k < jobs.size(); ++k) results[rescan[k].first * targets.size() + rescan[k].second] = exact[k];
    stages_.push_back({"rescans " + std::to_string(jobs.size()), since(t0)});
    if (!jobs.empty())
      decisions_.push_back(std::to_string(jobs.size()) + " pairs (longer than the scan takes, or saturated) by " +
                           (laned ? std::to_string(std::min<std::size_t>(jobs.size(), large_box_lanes)) + " pair engines at once"
                                  : std::string("the pair engine")));
  }


  //! Large boxes: one fill of the pair engine leaves most of the GPU idle (a box of 35k rows
  //! keeps ~140 warps busy), so with more_pairs several boxes run at once, one engine and host
  //! thread each, longest first; otherwise, and for one box, the pair engine aligns them in turn.
  void align_large(const std::vector<pair_job>& boxes, const scoring_scheme& scheme, std::span<alignment> out) {
    if (!on_lanes(boxes, [&](engine& e, std::size_t k) { out[k] = e.align(boxes[k].query, boxes[k].target, scheme); }))
      pairs_->align_many(boxes, scheme, out, {});
  }

  //! Boxes of some of a batch's hits: those up to the GPU's box limit (small, aligned by
  //! align_small_boxes; each distinct box once) and larger ones (for the pair engines).
  struct box_group {
    std::vector<pair_job> small, large, small_unique;
    std::vector<std::size_t> small_at, large_at, small_first;  //!< the hits', and each box's first equal
    std::vector<alignment> out;  //!< of small_unique
    box_seconds seconds;
    double wall_s = 0;
    std::size_t redone = 0;  //!< boxes whose fill did not reach their score (never: the CPU redoes them)
  };

  //! The boxes of hits boxed[b] for b in `which` (extents in boxes): each hit's offset, the small
  //! and large boxes; a hit without a box (cannot happen) joins `whole`.
  static box_group group_boxes(std::span<const pair_job> jobs, const std::vector<std::size_t>& boxed,
                               const std::vector<std::size_t>& which, const std::vector<box_extent>& boxes,
                               std::vector<std::pair<std::int64_t, std::int64_t>>& offset, double gpu_box_limit,
                               std::vector<std::size_t>& whole) {
    box_group g;
    for (std::size_t b : which) {
      const std::size_t k = boxed[b];
      const pair_job& j = jobs[k];
      if (boxes[b].rows == 0) {  // cannot happen (the path exists); aligned whole to stay exact
        whole.push_back(k);
        continue;
      }
      const std::int64_t qb = std::int64_t(j.query.size()) - boxes[b].rows;
      const std::int64_t tb = std::int64_t(j.target.size()) - boxes[b].columns;
      offset[k] = {qb, tb};
      pair_job box{j.query_index, j.target_index, j.query.subspan(std::size_t(qb)), j.target.subspan(std::size_t(tb)), j.known};
      // Boxes of up to large_box_cells: the GPU's batched boxes (strips of every box on many
      // warps at once); larger ones: the pair engines.
      const bool is_small = double(box.query.size()) * double(box.target.size()) <= gpu_box_limit;
      (is_small ? g.small : g.large).push_back(box);
      (is_small ? g.small_at : g.large_at).push_back(k);
    }
    // Boxes of identical residues (a sequence the database holds more than once, hit by the
    // same query) have one alignment: each is aligned once.
    g.small_first = first_of_equal(g.small);
    g.small_unique = pick_unique(g.small, g.small_first);
    return g;
  }

  //! g's small boxes on the GPU (db_boxes.hpp) within 1/share of the free device memory (or of
  //! --max-gpu-mem).
  void align_small_boxes(box_group& g, const scoring_scheme& scheme, unsigned share) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<residue_span> bq, bt;
    std::vector<std::int32_t> bs;
    for (const pair_job& j : g.small_unique) {
      bq.push_back(j.query);
      bt.push_back(j.target);
      bs.push_back(j.known.score);
    }
    std::uint64_t budget = std::clamp<std::uint64_t>(std::uint64_t(std::max<std::int64_t>(dev_.free_bytes(), 0)) / share,
                                                     std::uint64_t(256) << 20, std::uint64_t(8) << 30);
    if (options_.max_gpu_bytes > 0) budget = std::min(budget, std::uint64_t(options_.max_gpu_bytes) / share);
    g.out = align_boxes(bq, bt, bs, scheme, dev_, budget, &g.seconds);
    g.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  //! g's boxes whose fill did not reach their score (cannot happen: the reverse pass or the
  //! window holds the path), aligned by the CPU engine from its own fill.
  void redo_unreached(box_group& g, const scoring_scheme& scheme) {
    std::vector<pair_job> redo;
    std::vector<std::size_t> redo_at;
    for (std::size_t b = 0; b < g.small_unique.size(); ++b)
      if (g.out[b].score == 0) {
        redo.push_back(g.small_unique[b]);
        redo_at.push_back(b);
      }
    if (!redo.empty()) {
      std::vector<alignment> again(redo.size());
      cpu_->align_many(redo, scheme, again, {});
      for (std::size_t r = 0; r < redo.size(); ++r) g.out[redo_at[r]] = std::move(again[r]);
    }
    g.redone = redo.size();
  }

  //! Runs work(engine, k) for every job on up to large_box_lanes pair engines at once (made by
  //! more_pairs on first need), one host thread each, the jobs with the most cells first. False
  //! (and nothing run) with fewer than two jobs or no more_pairs: the caller runs them in turn.
  template <typename Work>
  bool on_lanes(std::span<const pair_job> jobs, Work&& work) {
    const std::size_t lanes = std::min<std::size_t>(jobs.size(), large_box_lanes);
    // Several GPUs: the pair engine spreads a long pair over them in bands; lanes stay on one.
    std::vector<int> devices = options_.devices;
    std::sort(devices.begin(), devices.end());
    devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
    if (lanes < 2 || !more_pairs_ || devices.size() > 1) return false;
    if (box_engines_.size() < lanes) {
      const auto made = std::chrono::steady_clock::now();
      std::uint64_t budget = options_.max_gpu_bytes > 0 ? std::uint64_t(options_.max_gpu_bytes)
                                                        : std::uint64_t(dev_.free_bytes());
      budget = budget / (large_box_lanes + 1);  // the pair engine's own buffers keep a share
      while (box_engines_.size() < lanes) box_engines_.push_back(more_pairs_(budget));
      stages_.push_back({"box engines " + std::to_string(lanes),
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - made).count()});
    }
    std::vector<std::size_t> order(jobs.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    const auto cells = [&](std::size_t k) { return double(jobs[k].query.size()) * double(jobs[k].target.size()); };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cells(a) > cells(b); });
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> failed(lanes);
    std::vector<std::thread> threads;
    const auto lane = [&](std::size_t l) {
      try {
        for (std::size_t i = next++; i < order.size(); i = next++) work(*box_engines_[l], order[i]);
      } catch (...) {
        failed[l] = std::current_exception();
        next = order.size();  // the other lanes stop after their job
      }
    };
    try {
      for (std::size_t l = 1; l < lanes; ++l) threads.emplace_back(lane, l);
    } catch (...) {  // no thread to spare (or no memory for one): the lanes started and this one do it
    }
    lane(0);
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : failed)
      if (e) std::rethrow_exception(e);
    return true;
  }

  //! An alignment of a box moved back to the coordinates of the whole pair.
  static alignment shifted(alignment a, std::pair<std::int64_t, std::int64_t> at) {
    if (a.score > 0) {
      a.query_begin += at.first;
      a.query_end += at.first;
      a.target_begin += at.second;
      a.target_end += at.second;
    }
    return a;
  }

  //! ", GPU 1 joined after 0.081 s, GPU 2 took no chunk" for the scan's GPUs after the first.
  static std::string joins_text(const std::vector<int>& devices, const std::vector<double>& joined) {
    std::string text;
    for (std::size_t w = 1; w < devices.size() && w < joined.size(); ++w) {
      char part[96];
      if (joined[w] >= 0)
        std::snprintf(part, sizeof part, ", GPU %d joined after %.3f s", devices[w], joined[w]);
      else
        std::snprintf(part, sizeof part, ", GPU %d took no chunk", devices[w]);
      text += part;
    }
    return text;
  }

  //! Large boxes aligned at once (engines and host threads; a box of 5,000 rows keeps 20 warps
  //! of the GPU busy, one of 35,000 rows 137). Eight were no faster than four on the DNA
  //! search's 6 large boxes (0.072 s against 0.069 s, H100, bench/results/db_h100.csv).
  static constexpr std::size_t large_box_lanes = 4;
  //! transposed_search: at least this many queries per target (and more query residues).
  static constexpr std::size_t transpose_min_ratio = 4;

  std::unique_ptr<engine> pairs_;
  std::unique_ptr<engine> cpu_;  // the CPU engine: a box the GPU's fill did not reach (never, by the proof)
  scan_options options_;
  cuda::device_context dev_;  //!< the pair engine's GPU: the reverse pass of the hits runs there
  pair_engine_factory more_pairs_;                   //!< engines for large boxes at once (may be empty)
  std::vector<std::unique_ptr<engine>> box_engines_;  //!< made by more_pairs_ on first need
  //! Whether a and b are the same sequences at the same addresses.
  static bool same_spans(std::span<const residue_span> a, std::span<const residue_span> b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](residue_span x, residue_span y) {
             return x.data() == y.data() && x.size() == y.size();
           });
  }

  std::vector<residue_span> pinned_;            //!< pin_targets()
  std::unique_ptr<db_scanner> pinned_scanner_;  //!< their scanner, made by the first search of them
  scoring_scheme pinned_scheme_;                //!< … for this scheme
  std::vector<std::pair<std::string, double>> stages_;  // of every search and batch so far
  std::vector<std::string> decisions_;                  // of every search so far
};

}  // namespace

std::unique_ptr<swat::engine> make_db_engine(std::unique_ptr<swat::engine> pairs, std::unique_ptr<swat::engine> boxes,
                                             scan_options options, int gpu_id, pair_engine_factory more_pairs) {
  return std::make_unique<db_engine>(std::move(pairs), std::move(boxes), std::move(options), gpu_id,
                                     std::move(more_pairs));
}

window_limits scan_window_limits(const scan_options& options) {
  // Tall, thin pairs (a gene against a chromosome, reads against a genome) as windows that
  // the scan takes as targets: no wider than the longest target it scans itself unless the
  // overlap would take more than a quarter of each (long short sides: four overlaps wide,
  // scanned transposed), any number of them for a side longer than the scan takes, and
  // otherwise enough of them for a scan (fewer go whole to the fast engine, which is faster
  // than a few windows one by one: SkV1 × S. kunkelii, bench/results/tall_thin_h100.log).
  window_limits windows;
  windows.scan_target_limit = options.max_target_length;  // wider windows: scanned the other way round
  windows.min_long = std::int64_t(options.max_target_length) + 1;  // longer sides are not scanned whole
  windows.min_ratio = 2;  // the plan's overlap decides beyond that
  windows.min_windows = std::int64_t(min_scan_targets);
  // One pipelined block per SM of every scanning GPU takes a task of windows at once.
  std::vector<int> distinct = options.devices;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (int d : distinct) windows.fill_tasks += cuda::sm_count_of(d);
  return windows;
}

void register_engines(engine_registry& registry) {
  const engine_entry* fast = registry.find("fast");
  const engine_entry* cpu = registry.cpu_engine();
  if (!fast || !cpu) throw std::logic_error("dbsearch registers after the fast and CPU engines it works with");
  engine_entry e;
  e.name = "dbsearch";
  e.aliases = {"db"};
  e.target = engine_target::gpu;
  e.summary = "GPU database search: 16-bit DPX scan of many targets on a task queue, hits aligned in boxes; "
              "single pairs by the fast engine (the default)";
  e.auto_rank = fast->auto_rank + 1;
  e.make = [make_pairs = fast->make, make_boxes = cpu->make](const engine_options& o) {
    scan_options scan;
    scan.max_gpu_bytes = std::int64_t(o.max_gpu_mem_bytes);
    scan.devices = resolve_gpu_selection(o.gpus, cuda::device_count());
    engine_options quiet_boxes = o;  // the fallback's CPU engine already says what the CPU engine says
    quiet_boxes.notice = {};
    const window_limits windows = scan_window_limits(scan);
    const pair_engine_factory more_pairs = [make_pairs, o](std::uint64_t gpu_bytes) {
      engine_options box = o;  // quiet, no progress line of its own, within its share of the GPU,
      box.notice = {};         // on that GPU alone (boxes at once must not cut themselves into
      box.fill_progress = {};  // bands over the GPUs each)
      box.max_gpu_mem_bytes = gpu_bytes;
      // Lanes trace back at once: each keeps its share of --cpu-mem (at least 64 MiB).
      box.cpu_memory_bytes = std::max<std::uint64_t>(o.cpu_memory_bytes / 4, std::uint64_t(64) << 20);  // 4 lanes
      box.gpus = gpu_selection{false, 0, {o.gpu_id}};
      return make_pairs(box);
    };
    // The scan's other GPUs start when the scan does, once this GPU has its first launch
    // (db_scanner): started beside this GPU's engines, they only delayed it (the driver starts
    // one context at a time and holds the other GPUs' calls meanwhile).
    return with_windows(make_db_engine(make_pairs(o), make_boxes(quiet_boxes), std::move(scan), o.gpu_id, more_pairs),
                        windows);
  };
  registry.add(std::move(e));
}

}  // namespace swat::dbsearch

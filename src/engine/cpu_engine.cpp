// The CPU engine: per pair a score pass in bounded memory and a bounded traceback; across
// pairs a pool of worker threads (the calling thread included) with a memory check up front.

#include "engine/cpu_engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <mutex>
#include <numeric>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "common/parallel.hpp"
#include "engine/cpu_bands.hpp"
#include "engine/cpu_hsps.hpp"
#include "engine/cpu_interseq.hpp"
#include "engine/cpu_reach.hpp"
#include "engine/cpu_score_plan.hpp"
#include "engine/cpu_kernels.hpp"
#include "engine/cpu_traceback.hpp"
#include "engine/windows.hpp"

namespace swat {
namespace {

constexpr double mib = 1024.0 * 1024.0;

//! Memory the tiled layout of one alignment is planned in first (bytes). Its traceback refills
//! the tiles the path crosses, about (rows + columns) × the tile edge cells on one thread: 64 MiB
//! gives a 40 kb × 44 kb box 512-cell tiles (43 M cells refilled; 1024 within 32 MiB), and its
//! fill on 16 threads four times as many tiles to spread.
constexpr std::size_t single_alignment_bytes = std::size_t(64) << 20;
//! Boxes of at least this many cells are narrowed by the pruned reverse pass first, which may
//! visit at most 1/pruned_box_visit_share of the box and at most pruned_box_max_visits cells (a
//! strong hit's band can be wide: it then keeps its box). The passes that narrow visit a few
//! thousand cells (genes against genomes: 77 × 78 of a 28,201 × 56,367 box); one that gives up
//! has spent its whole allowance on one thread, at about ten times a cell of the vector fill
//! (a sixteenth of a 7,091 × 13,353 box: 56 ms on the dev VM; a protein hit's 1,121 × 5,370 box:
//! 3.9 ms of the 16-core search's 12-16 ms of alignments), hence a 256th. Protein hits of a few
//! hundred residues gain nothing (their pruned regions are a fifth of their boxes, the scalar
//! pass costs more than the vector fill it saves).
constexpr std::uint64_t pruned_box_min_cells = std::uint64_t(1) << 22;
constexpr std::uint64_t pruned_box_max_visits = std::uint64_t(1) << 24;
constexpr std::uint64_t pruned_box_visit_share = 256;
//! An alignment goes first on every thread (for_each_job) only from this many cells (~5 ms on
//! one thread of the tiles' fill): below, starting the tiled fill's threads costs more than it
//! spreads. (2^24 before: a protein hit's 1,121 × 5,370 box then took 8 of the 14 ms of the hits'
//! alignments on 16 threads, on one of them.)
constexpr double alone_min_cells = double(std::int64_t(1) << 22);
//! A pair alone on W threads takes about its cells / (0.6 W) (the tiles' wavefront), the pool
//! after it (cells left − its cells) / W; in the pool it would hold the pool for its cells / 1.
//! Alone pays when its cells × (W − 2/3) exceed the cells left (a read's two near-equal hits on 2
//! threads stay side by side in the pool; a 40 kb gene's hit on 16 goes alone).
constexpr double alone_overhead = 2.0 / 3.0;

std::string mib_text(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / mib);
  return buf;
}

//! Longest stretch of one sequence a local alignment can span against `other` residues of the
//! other: each residue beyond `other` sits in a gap costing at least extend, paid from at most
//! other · max_score (no bound when extension is free).
std::int64_t span_bound(std::int64_t own, std::int64_t other, const scoring_scheme& scheme) {
  if (scheme.gap_extend <= 0) return own;
  const std::int64_t gaps = other * std::max<std::int64_t>(scheme.max_score(), 0) / scheme.gap_extend;
  return std::min(own, other + gaps);
}

//! Where an alignment into a pair's known best cell lies (pair_job::known): the prefixes ending at
//! that cell, each from as far back as window_reach_of_score allows on it (windows.hpp: the other
//! side's end bounds its aligned pairs, the score its gap residues). Every optimal path into the
//! cell lies in this box, and every cell of such a path keeps its value there (its best prefix is
//! a prefix of the path). No cell of the box scores more than in the pair, so the cell stays the
//! box's best under the tie rule; and a predecessor the walk may take from a cell of an optimal
//! path is valid in the box exactly when it is in the pair (valid in the pair: on an optimal path,
//! so the same value; valid in the box: a value no higher than the pair's that still reaches the
//! cell's, so the same value): the box's alignment is the pair's. (The GPU's whole pairs are cut
//! to the same window: cuda/engines/dbsearch/db_align.hpp.)
struct known_box {
  residue_span query, target;
  std::int64_t query_from = 0, target_from = 0;
};
std::optional<known_box> box_of_known(const pair_job& job, const scoring_scheme& scheme) {
  const best_cell& end = job.known;
  if (end.score <= 0 || end.query_end < 1 || end.target_end < 1 || std::size_t(end.query_end) > job.query.size() ||
      std::size_t(end.target_end) > job.target.size())
    return std::nullopt;
  const std::int64_t reach_t = window_reach_of_score(end.query_end, end.score, scheme);
  const std::int64_t reach_q = window_reach_of_score(end.target_end, end.score, scheme);
  known_box box;
  box.query_from = reach_q > 0 ? std::max<std::int64_t>(0, end.query_end - reach_q) : 0;
  box.target_from = reach_t > 0 ? std::max<std::int64_t>(0, end.target_end - reach_t) : 0;
  box.query = job.query.subspan(std::size_t(box.query_from), std::size_t(end.query_end - box.query_from));
  box.target = job.target.subspan(std::size_t(box.target_from), std::size_t(end.target_end - box.target_from));
  return box;
}

//! The band of a known box (cpu::band_of_score: every optimal alignment into its end cell, its
//! last cell, lies within it), when it is narrow enough to pay: at most half the box's columns,
//! in a box of at least two of the smallest tiles a side.
std::optional<cpu::diagonal_band> band_of_known(const known_box& box, std::int32_t score, const scoring_scheme& scheme) {
  const std::int64_t rows = std::int64_t(box.query.size()), columns = std::int64_t(box.target.size());
  if (std::min(rows, columns) < 2 * cpu::hsp_min_tile) return std::nullopt;
  const std::optional<cpu::diagonal_band> band = cpu::band_of_score(rows, columns, score, scheme);
  if (!band || 2 * (band->hi - band->lo + 1) > columns) return std::nullopt;
  return band;
}

}  // namespace

cpu_engine::cpu_engine(unsigned threads, std::size_t budget_bytes, engine_notice_fn notice)
    : threads_(threads ? threads : std::max(1u, std::thread::hardware_concurrency())),
      budget_bytes_(budget_bytes),
      notice_(std::move(notice)),
      interseq_lanes_(cpu::interseq_lanes()) {
  const unsigned hardware = std::thread::hardware_concurrency();
  if (notice_ && hardware > 0 && threads > hardware)
    notice_(std::to_string(threads) + " CPU threads requested, this machine has " + std::to_string(hardware) +
            " hardware threads: the extra ones only add overhead");
}

void cpu_engine::set_interseq_lanes(int lanes) {
  if (lanes != 0 && lanes != 32 && lanes != 64) throw usage_error("inter-sequence lanes must be 0, 32 or 64");
  interseq_lanes_ = std::min(lanes, cpu::interseq_lanes());
}

std::size_t cpu_engine::pair_min_bytes(std::int64_t m, std::int64_t n, const scoring_scheme& scheme, job_kind kind) {
  if (m == 0 || n == 0) return 0;
  if (kind == job_kind::hsps) return cpu::plan_hsps(m, n, 0).bytes;
  const bool traceback = kind == job_kind::align;
  std::size_t need = cpu::plan_score_pass(m, n, scheme.size(), traceback, 0).bytes;
  if (traceback)
    need = std::max(need, cpu::trace_overhead_bytes(span_bound(m, n, scheme), span_bound(n, m, scheme)));
  return need;
}

alignment cpu_engine::align_one(residue_span query, residue_span target, const scoring_scheme& scheme,
                                std::size_t budget_bytes, const progress_fn* progress, unsigned threads,
                                const cpu::diagonal_band* band) const {
  // The tiled fill (cpu_hsps.hpp, its first alignment) where its layout fits: one AVX2 fill of
  // the matrix, on several threads when there are fewer pairs than threads, and a traceback
  // through the tiles the path crosses. One alignment gains nothing from small tiles (they pay
  // off when later alignments refill what an earlier one changed), so the layout is planned
  // within at most single_alignment_bytes (a few % of the cells refilled by the traceback).
  const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
  if (m > 0 && n > 0) {
    for (const std::size_t budget : {std::min(budget_bytes, single_alignment_bytes), budget_bytes}) {
      if (cpu::plan_hsps(m, n, budget, threads).bytes > budget) continue;
      if (band) {
        ++banded_boxes_;
        std::optional<alignment> first = cpu::best_alignment_in_band(query, target, scheme, *band, budget, progress, {}, threads);
        return first ? std::move(*first) : alignment{};
      }
      std::vector<alignment> first = cpu::waterman_eggert(query, target, scheme, 1, 1, budget, progress, {}, threads);
      return first.empty() ? alignment{} : std::move(first.front());
    }
  }
  // Else linear space: a score pass with exact origins, then the rectangle [begin, end] alone.
  const cpu::pass_result pass = cpu::score_pass(query, target, scheme, true, progress, budget_bytes);
  alignment aln;
  if (pass.best.score <= 0) return aln;
  const std::int64_t qb = pass.query_begin, tb = pass.target_begin;
  const std::int64_t rows = pass.best.query_end - qb, width = pass.best.target_end - tb;
  const std::size_t overhead = cpu::trace_overhead_bytes(rows, width);
  aln = cpu::trace_rectangle(query.subspan(std::size_t(qb), std::size_t(rows)),
                             target.subspan(std::size_t(tb), std::size_t(width)), scheme, pass.best.score,
                             budget_bytes > overhead ? budget_bytes - overhead : 0);
  aln.query_begin += qb;
  aln.query_end += qb;
  aln.target_begin += tb;
  aln.target_end += tb;
  return aln;
}

alignment cpu_engine::align(residue_span query, residue_span target, const scoring_scheme& scheme) {
  const pair_job job{0, 0, query, target};
  fitting_workers({&job, 1}, scheme, job_kind::align, 1);
  return align_one(query, target, scheme, budget_bytes_, nullptr, threads_);
}

best_cell cpu_engine::score_only(residue_span query, residue_span target, const scoring_scheme& scheme) {
  const pair_job job{0, 0, query, target};
  fitting_workers({&job, 1}, scheme, job_kind::score, 1);
  return cpu::score_pass(query, target, scheme, false, nullptr, budget_bytes_).best;
}

std::size_t cpu_engine::fitting_workers(std::span<const pair_job> jobs, const scoring_scheme& scheme,
                                        job_kind kind, std::size_t wanted) const {
  std::size_t need = 0, worst = 0;
  constexpr std::size_t max_residues = (std::size_t(1) << 31) - 1;  // int32 cell coordinates
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (jobs[k].query.size() > max_residues || jobs[k].target.size() > max_residues)
      throw usage_error("a sequence of " + std::to_string(std::max(jobs[k].query.size(), jobs[k].target.size())) +
                        " residues is longer than the CPU engine's limit of " + std::to_string(max_residues));
    const std::size_t b = pair_min_bytes(std::int64_t(jobs[k].query.size()), std::int64_t(jobs[k].target.size()),
                                         scheme, kind);
    if (b > need) need = b, worst = k;
  }
  if (need <= min_budget_bytes) return wanted;
  if (need > budget_bytes_)
    throw usage_error("a pair of " + std::to_string(jobs[worst].query.size()) + " × " +
                      std::to_string(jobs[worst].target.size()) + " residues needs at least " + mib_text(need) +
                      " of CPU memory, more than the budget of " + mib_text(budget_bytes_) +
                      " (raise --cpu-mem)");
  const std::size_t fit = std::max<std::size_t>(1, budget_bytes_ / need);
  if (fit >= wanted) return wanted;
  if (notice_)
    notice_("pairs need up to " + mib_text(need) + " of CPU memory each: running " + std::to_string(fit) +
            " of " + std::to_string(wanted) + " threads to stay within " + mib_text(budget_bytes_) + " (--cpu-mem)");
  return fit;
}

void cpu_engine::for_each_job(std::span<const pair_job> jobs, const scoring_scheme& scheme, job_kind kind,
                              const std::function<void(std::size_t, std::size_t, unsigned)>& fn) const {
  const std::size_t count = jobs.size();
  if (count == 0) return;
  const std::size_t workers = fitting_workers(jobs, scheme, kind, std::min<std::size_t>(threads_, count));
  const std::size_t budget = std::max<std::size_t>(budget_bytes_ / workers, 1);
  // Threads left over when there are fewer pairs than threads go to each pair's own fill.
  const unsigned job_threads = std::max(1u, unsigned(threads_ / workers));
  // An alignment of more than the workers' even share of the cells left would outlast the others
  // on its own thread while theirs idle (genes against genomes on 16 threads: a 40 kb gene's hit
  // took 3.5 s on one thread, the other 14 hits far less; with the share of all the cells as the
  // bound, a 7 kb × 13 kb box then took 0.15 s on one thread after the larger ones had gone on
  // all 16): taken largest first, the pairs with more than 1 / (workers − alone_overhead) of
  // their own and the smaller pairs' cells (up to the first that has not) go first, one at a time
  // on every thread with the whole budget, where the tiled fill takes them (it spreads over the
  // threads; the linear-space path would not); the rest share the pool, largest first (no large
  // pair starts last while the other threads idle). Not for --max-hsps, whose alignments a pair's share of
  // the budget may cut short: its output stays independent of the other pairs of the call.
  const auto cells_of = [&](std::size_t k) { return double(jobs[k].query.size()) * double(jobs[k].target.size()); };
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cells_of(a) > cells_of(b); });
  double left = 0;  // the cells of order[i …]
  for (std::size_t k = 0; k < count; ++k) left += cells_of(k);
  std::vector<std::size_t> alone, shared;
  bool stopped = false;
  for (const std::size_t k : order) {
    const double cells = cells_of(k);
    const std::int64_t m = std::int64_t(jobs[k].query.size()), n = std::int64_t(jobs[k].target.size());
    // Only while every larger pair went first too (but one too large for the tiles): the last
    // few of many similar pairs hold more than their share of what is left, but run faster side
    // by side in the pool.
    stopped = stopped || kind != job_kind::align || workers < 2 || cells < alone_min_cells ||
              cells * (double(workers) - alone_overhead) <= left;
    const bool first = !stopped && cpu::plan_hsps(m, n, budget_bytes_, threads_).bytes <= budget_bytes_;
    (first ? alone : shared).push_back(k);
    left -= cells;
  }
  for (const std::size_t k : alone) fn(k, budget_bytes_, threads_);
  if (shared.empty()) return;
  run_pool(shared.size(), std::min(workers, shared.size()),
           [&](std::size_t i, std::size_t) { fn(shared[i], budget, job_threads); });
}

void cpu_engine::run_pool(std::size_t count, std::size_t workers,
                          const std::function<void(std::size_t, std::size_t)>& fn) const {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&](std::size_t worker) {
    for (;;) {
      const std::size_t k = next.fetch_add(1);
      if (k >= count || failed.load()) return;
      try {
        fn(k, worker);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
        return;
      }
    }
  };
  // The calling thread is a worker too, so the work goes on whatever the system refuses.
  std::vector<std::thread> pool;
  pool.reserve(workers > 0 ? workers - 1 : 0);
  std::string refused;
  for (std::size_t w = 1; w < workers && refused.empty(); ++w) {
    try {
      pool.emplace_back(work, w);
    } catch (const std::system_error& e) {
      refused = e.what();
    }
  }
  if (!refused.empty() && notice_ && !threads_noticed_.exchange(true))
    notice_("could start only " + std::to_string(pool.size() + 1) + " of " + std::to_string(workers) +
            " CPU threads (" + refused + "); continuing with " + std::to_string(pool.size() + 1));
  work(0);
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

void cpu_engine::align_many(std::span<const pair_job> jobs, const scoring_scheme& scheme,
                            std::span<alignment> results, const progress_fn& progress) {
  // A pair whose best cell is known is aligned in the box before that cell (box_of_known). A
  // large box is first narrowed to the box of the optimal alignments' begins by the pruned
  // reverse pass (cpu_reach.hpp) where that visits few cells: a weak hit 28 kb into a 40 kb gene
  // has a reach window of 1.6e9 cells and a box of a few thousand (genes against genomes: such
  // weak hits were half the cells of the hits' alignments). The same alignment (db_align.hpp's
  // argument for the GPU's boxes; tests against the reference).
  std::vector<pair_job> boxed(jobs.begin(), jobs.end());
  std::vector<std::optional<known_box>> boxes(jobs.size());
  std::vector<std::size_t> large;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (!(boxes[k] = box_of_known(jobs[k], scheme)) || scheme.gap_extend <= 0) continue;
    const std::uint64_t rows = boxes[k]->query.size(), columns = boxes[k]->target.size();
    // Weak hits only: a score that aligns at most an eighth of the box's shorter side at the best
    // substitution score (a strong hit's positive region is a wide band: the pass would give up).
    if (rows * columns >= pruned_box_min_cells &&
        8 * std::uint64_t(jobs[k].known.score) < std::uint64_t(std::max(scheme.max_score(), 1)) * std::min(rows, columns))
      large.push_back(k);
  }
  const auto t0 = std::chrono::steady_clock::now();
  parallel_for(large.size(), threads_, 1, [&](std::size_t l) {
    known_box& box = *boxes[large[l]];
    const std::uint64_t area = std::uint64_t(box.query.size()) * box.target.size();
    const auto begins = pruned_reach(box.query, box.target, jobs[large[l]].known.score, scheme,
                                     std::min<std::uint64_t>(area / pruned_box_visit_share, pruned_box_max_visits));
    if (!begins) return;
    ++narrowed_boxes_;
    const std::size_t skip_q = box.query.size() - std::size_t(begins->rows);
    const std::size_t skip_t = box.target.size() - std::size_t(begins->columns);
    box.query = box.query.subspan(skip_q);
    box.target = box.target.subspan(skip_t);
    box.query_from += std::int64_t(skip_q);
    box.target_from += std::int64_t(skip_t);
  });
  for (std::size_t k = 0; k < jobs.size(); ++k)
    if (boxes[k]) {
      boxed[k].query = boxes[k]->query;
      boxed[k].target = boxes[k]->target;
    }
  const auto t1 = std::chrono::steady_clock::now();
  std::size_t largest = 0;  // the largest box's job, timed on its own
  for (std::size_t k = 1; k < boxed.size(); ++k)
    if (double(boxed[k].query.size()) * double(boxed[k].target.size()) >
        double(boxed[largest].query.size()) * double(boxed[largest].target.size()))
      largest = k;
  double largest_s = 0;
  // A known cell is trusted (engine.hpp's contract) to be the pair's best: the box's alignment
  // is checked against it, but a strong hit's band leaves the tiles outside it unfilled, so a
  // better cell there would not be seen (cpu_hsps.hpp).
  for_each_job(boxed, scheme, job_kind::align, [&](std::size_t k, std::size_t budget, unsigned threads) {
    const auto started = std::chrono::steady_clock::now();
    const std::optional<cpu::diagonal_band> band = boxes[k] ? band_of_known(*boxes[k], jobs[k].known.score, scheme) : std::nullopt;
    alignment aln = align_one(boxed[k].query, boxed[k].target, scheme, budget, &progress, threads, band ? &*band : nullptr);
    if (boxes[k]) {
      const known_box& box = *boxes[k];
      aln.query_begin += box.query_from;
      aln.query_end += box.query_from;
      aln.target_begin += box.target_from;
      aln.target_end += box.target_from;
      const best_cell& end = jobs[k].known;
      if (aln.score != end.score || aln.query_end != end.query_end || aln.target_end != end.target_end) {
        // Not the known cell's alignment (a best cell given wrongly): the whole pair decides.
        ++whole_pair_fallbacks_;
        aln = align_one(jobs[k].query, jobs[k].target, scheme, budget, nullptr, threads);
      }
      // The cells outside the box count as done.
      if (progress)
        progress(std::uint64_t(jobs[k].query.size()) * jobs[k].target.size() -
                 std::uint64_t(box.query.size()) * box.target.size());
    }
    results[k] = std::move(aln);
    if (k == largest) largest_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  });
  const auto t2 = std::chrono::steady_clock::now();
  const std::lock_guard<std::mutex> lock(stages_mutex_);
  hit_seconds_.narrowed += std::chrono::duration<double>(t1 - t0).count();
  hit_seconds_.aligned += std::chrono::duration<double>(t2 - t1).count();
  hit_seconds_.largest += largest_s;
}

std::vector<std::pair<std::string, double>> cpu_engine::stage_seconds() const {
  const std::lock_guard<std::mutex> lock(stages_mutex_);
  return {{"hits: weak boxes narrowed", hit_seconds_.narrowed},
          {"hits: boxes aligned", hit_seconds_.aligned},
          {"hits: boxes aligned: the largest", hit_seconds_.largest}};
}

void cpu_engine::score_many(std::span<const pair_job> jobs, const scoring_scheme& scheme,
                            std::span<best_cell> results, const progress_fn& progress) {
  if (jobs.empty()) return;
  const std::size_t workers = fitting_workers(jobs, scheme, job_kind::score, std::min<std::size_t>(threads_, jobs.size()));
  const std::size_t budget = std::max<std::size_t>(budget_bytes_ / workers, 1);
  const cpu::score_plan plan = cpu::plan_scores(jobs, scheme, interseq_lanes_, threads_, budget);
  std::vector<cpu::interseq_scratch> scratch(workers);
  struct batch_buffers {  // a worker's: a batch's targets, best cells and first saturated columns
    std::vector<residue_span> targets;
    std::vector<best_cell> out;
    std::vector<std::int64_t> saturated_at;
  };
  std::vector<batch_buffers> buffers(workers);
  // Pairs the row bands do not take (no AVX2, rows too few for the lanes) and the striped 16-bit
  // pass cannot (scores past 16 bits; queries over 16,384 rows) wait for the 32-bit pass until
  // the pool is done, so that they get the threads the others leave, when there are 4 or more
  // threads (with fewer they run at once, as the tiles need 4 to beat the striped pass). Their
  // cells are reported after their pass.
  const bool defer_wide = threads_ >= 4;
  struct wide_pair {
    residue_span query, target;
    best_cell* out;
    std::int64_t cut;
    std::uint64_t cells;  //!< the pair's cells as its item counted them (reported after the pass)
  };
  std::vector<wide_pair> wide;
  std::mutex wide_mutex;
  // A pair whose 8-bit scores saturated: the row bands (8-bit lanes with 16- and 32-bit
  // stretches, exact, cpu_bands.hpp) where they fit, else the striped 16-bit pass, else the
  // 32-bit passes.
  // From `saturated_at` (the first column where the 8-bit best reached the limit; −1: unknown)
  // on, less the reach bound of the query (windows.hpp): every cell of the best score lies at
  // or after that column, and its optimal alignments span fewer target residues than the bound,
  // so the columns cut off hold none of them; the kept cells' scores can only drop, the best
  // cells' stay, and so does the tie rule's choice (reads against a genome's windows: the
  // window of a read's hit is rescored from a little before the hit, not from its start).
  // Returns the cells held back for the 32-bit pass after the pool (0: done here).
  const auto wider = [&](residue_span query, residue_span target, int lanes, std::size_t worker, best_cell& out,
                         std::int64_t saturated_at) -> std::uint64_t {
    const std::uint64_t cells = std::uint64_t(query.size()) * target.size();
    const std::int64_t reach = window_overlap(std::int64_t(query.size()), scheme);
    const std::int64_t cut = reach > 0 && saturated_at > reach ? saturated_at - reach : 0;
    target = target.subspan(std::size_t(cut));
    const std::int64_t m = std::int64_t(query.size()), n = std::int64_t(target.size());
    cpu::pass_result r16;
    // The batch's lane width, else 32 lanes (a 64-lane batch's query of 512-1,023 rows).
    int band_lanes = 0;
    for (const int width : {lanes, 32})
      if (band_lanes == 0 && width <= lanes && cpu::bands_fit(plan.scheme8, m, n, width) &&
          cpu::bands_bytes(m, width) <= budget)
        band_lanes = width;
    if (band_lanes > 0) {
      out = cpu::score_bands(query, target, plan.scheme8, band_lanes, scratch[worker]);
    } else if (!defer_wide) {
      out = cpu::score_pass(query, target, scheme, false, nullptr, budget).best;
    } else if (cpu::striped_available() && cpu::score_pass_striped16(query, target, scheme, nullptr, r16)) {
      out = r16.best;
    } else {
      const std::lock_guard<std::mutex> lock(wide_mutex);
      wide.push_back({query, target, &out, cut, cells});
      return cells;
    }
    if (out.score > 0) out.target_end += cut;
    return 0;
  };
  const auto score_pair = [&](std::size_t k) {
    results[k] = cpu::score_pass(jobs[k].query, jobs[k].target, scheme, false, &progress, budget).best;
  };
  run_pool(plan.items.size(), workers, [&](std::size_t item, std::size_t worker) {
    const cpu::score_item& it = plan.items[item];
    const std::span<const std::size_t> which(plan.order.data() + it.first, it.count);
    if (it.kind == cpu::item_kind::pair) return score_pair(which[0]);
    if (it.kind == cpu::item_kind::bands) {
      const pair_job& job = jobs[which[0]];
      // 8-bit lanes with 16- and 32-bit stretches.
      results[which[0]] = cpu::score_bands(job.query, job.target, plan.scheme8, it.lanes, scratch[worker]);
      if (progress) progress(std::uint64_t(job.query.size()) * job.target.size());
      return;
    }
    batch_buffers& own = buffers[worker];  // reused from batch to batch: no allocation per batch
    own.targets.resize(it.count);
    own.out.resize(it.count);
    own.saturated_at.resize(it.count);
    std::vector<residue_span>& targets = own.targets;
    std::vector<best_cell>& out = own.out;
    std::vector<std::int64_t>& saturated_at = own.saturated_at;
    std::uint64_t cells = 0;
    for (std::size_t l = 0; l < it.count; ++l) {
      targets[l] = jobs[which[l]].target;
      cells += std::uint64_t(jobs[which[l]].query.size()) * targets[l].size();
    }
    cpu::score_interseq8(jobs[which[0]].query, targets, plan.scheme8, it.lanes, scratch[worker], out, saturated_at);
    std::uint64_t held = 0;
    for (std::size_t l = 0; l < it.count; ++l) {
      results[which[l]] = out[l];
      if (saturated_at[l] >= 0)  // rescored wider: the row bands where they fit, else 16-bit striped, 32-bit
        held += wider(jobs[which[l]].query, targets[l], it.lanes, worker, results[which[l]], saturated_at[l]);
    }
    if (progress) progress(cells - held);
  });
  if (wide.empty()) return;
  // The 32-bit passes, the threads shared among them, as many at once as their memory allows
  // (fitting_workers, as the pool): the tiles' pass on a pair's share where it has at least 4
  // threads (the tiles fill slower per thread than the striped pass: on 2 threads they lost to
  // it, 85d55a6), else the striped pass on one.
  std::size_t need = 0;  // as fitting_workers counts it (its notice, if any, was given for the pool)
  for (const wide_pair& w : wide)
    need = std::max(need, pair_min_bytes(std::int64_t(w.query.size()), std::int64_t(w.target.size()), scheme,
                                         job_kind::score));
  const std::size_t wide_workers = std::clamp<std::size_t>(need > 0 ? budget_bytes_ / need : wide.size(), 1,
                                                           std::min<std::size_t>(threads_, wide.size()));
  const unsigned wide_threads = std::max(1u, unsigned(threads_ / wide_workers));
  const std::size_t wide_budget = std::max<std::size_t>(budget_bytes_ / wide_workers, 1);
  run_pool(wide.size(), wide_workers, [&](std::size_t i, std::size_t) {
    const wide_pair& w = wide[i];
    const std::int64_t m = std::int64_t(w.query.size()), n = std::int64_t(w.target.size());
    const bool tiled = wide_threads >= 4 && cpu::plan_hsps(m, n, wide_budget, wide_threads).bytes <= wide_budget;
    *w.out = tiled ? cpu::tiled_best_cell(w.query, w.target, scheme, wide_budget, wide_threads)
                   : cpu::score_pass(w.query, w.target, scheme, false, nullptr, wide_budget).best;
    if (w.out->score > 0) w.out->target_end += w.cut;
    ++wide_passes_;
    if (tiled) ++wide_tiled_;
    if (progress) progress(w.cells);
  });
}

void cpu_engine::align_hsps_many(std::span<const pair_job> jobs, std::span<const std::int32_t> min_scores,
                                 std::size_t max_hsps, const scoring_scheme& scheme,
                                 std::span<std::vector<alignment>> results, const progress_fn& progress) {
  std::atomic<std::size_t> stopped{0};
  std::atomic<std::size_t> share{0};
  for_each_job(jobs, scheme, job_kind::hsps, [&](std::size_t k, std::size_t budget, unsigned threads) {
    bool full = false;
    results[k] = cpu::waterman_eggert(jobs[k].query, jobs[k].target, scheme, max_hsps, min_scores[k], budget,
                                      &progress, {}, threads, &full);
    if (full) ++stopped, share = budget;
  });
  if (stopped > 0 && notice_)
    notice_("--max-hsps: the alignments of " + std::to_string(stopped.load()) + " pair(s) filled their share of " +
            "--cpu-mem (" + mib_text(share) + "); their weaker alignments are not reported (raise --cpu-mem, or "
            "--min-score / lower --evalue)");
}

}  // namespace swat

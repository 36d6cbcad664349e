#pragma once
// The CPU engine: exact Smith-Waterman–Gotoh alignments (identical to reference::align, tie
// rules of common/traceback.hpp) in linear space for the score and bounded memory for the path.
//
// align(): where its layout fits the pair's memory, the tiled fill of cpu_hsps.hpp (the first
// alignment of its Waterman–Eggert search): one AVX2 pass over the matrix keeping only tile
// borders, on several threads when there are fewer pairs than threads, then a traceback through
// the tiles the path crosses. Otherwise (very long sequences in a small budget): (1) a score
// pass over the whole matrix with forward origin propagation → best cell and exact begin
// (cpu_kernels.hpp); (2) the rectangle [begin, end] refilled alone and walked back, whole or
// band by band from row checkpoints (cpu_traceback.hpp, proof and memory bound there).
// align_many(): a small pool of threads takes pairs in turn; results in job order.
// score_many(): the plan of cpu_score_plan.hpp: the targets of each query in batches scored in
// 8-bit lanes (cpu_interseq.hpp; saturated lanes rescored by the striped passes) where that
// costs less, else pair by pair; one shared queue of batches and pairs, longest first.
//
// Memory: the budget is shared by the workers; each pair runs within its share (the score pass
// in bands of query rows, the traceback in checkpointed bands), so a pair's peak stays near its
// share for any query and target length. Before any work starts, every pair's minimum is
// checked: a pair that cannot fit is refused (usage_error), and fewer workers run when the
// largest pair needs more than an equal share. Threads that cannot be created (ulimit -u, …)
// leave the work to those that started, with a notice; the calling thread always works.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.hpp"

namespace swat {

namespace cpu {
struct diagonal_band;
}  // namespace cpu

//! Receives one line for the user (no "notice:" prefix) from an engine.
using engine_notice_fn = std::function<void(const std::string&)>;

class cpu_engine final : public engine {
 public:
  //! Default memory budget (bytes): 1 GiB.
  static constexpr std::size_t default_budget_bytes = std::size_t(1) << 30;
  //! Pairs whose minimum is below this are never refused, whatever the budget (bytes); smaller
  //! budgets only shape the band and checkpoint layout (tests use them to force bands).
  static constexpr std::size_t min_budget_bytes = std::size_t(1) << 20;

  //! threads: workers for align_many/score_many (0 = std::thread::hardware_concurrency());
  //! more than the hardware has gets a notice. budget_bytes: memory for the score pass arrays,
  //! traceback codes and checkpoints of the pairs in flight, shared by all workers (bytes).
  //! notice: receives notices (too many threads, threads that could not start); may be empty.
  explicit cpu_engine(unsigned threads = 0, std::size_t budget_bytes = default_budget_bytes,
                      engine_notice_fn notice = {});

  std::string name() const override { return "cpu"; }
  std::string device() const override { return "CPU (" + std::to_string(threads_) + " threads)"; }
  alignment align(residue_span query, residue_span target, const scoring_scheme& scheme) override;
  //! Both sides of at least single_pair_scan_min residues: the score passes (8-bit lanes, bands,
  //! striped) score several times as many cells a second as the traceback's tiled fill, so the
  //! pair is scanned first and only its reported strand aligned, in the prefixes before its best
  //! cell (a 40 kb gene against its 111 kb genome, both strands, 2 threads: 4.0 s → 2.8 s).
  //! A thin pair keeps the direct alignment (no scan arrays beside a chromosome-length side).
  bool scans_single_pair_first(std::int64_t query, std::int64_t target) const override {
    return std::min(query, target) >= single_pair_scan_min;
  }
  static constexpr std::int64_t single_pair_scan_min = 1024;
  best_cell score_only(residue_span query, residue_span target, const scoring_scheme& scheme) override;
  void align_many(std::span<const pair_job> jobs, const scoring_scheme& scheme,
                  std::span<alignment> results, const progress_fn& progress) override;
  void score_many(std::span<const pair_job> jobs, const scoring_scheme& scheme, std::span<best_cell> results,
                  const progress_fn& progress) override;
  void align_hsps_many(std::span<const pair_job> jobs, std::span<const std::int32_t> min_scores, std::size_t max_hsps,
                       const scoring_scheme& scheme, std::span<std::vector<alignment>> results,
                       const progress_fn& progress) override;

  //! Lanes of the inter-sequence score pass of score_many (cpu_interseq.hpp): 64 (AVX-512BW),
  //! 32 (AVX2) or 0 (off: every pair by the striped passes); at most what this CPU runs (the
  //! default is the widest it runs).
  void set_interseq_lanes(int lanes);
  //! Lanes of the inter-sequence score pass (0: off).
  int interseq_lanes() const { return interseq_lanes_; }
  //! Pairs score_many has given a 32-bit pass after its pool (the tiles' or the striped one),
  //! since construction (tests).
  std::size_t wide_passes() const { return wide_passes_.load(); }
  //! Of those, the pairs given the tiles' 32-bit pass (tests).
  std::size_t wide_tiled_passes() const { return wide_tiled_.load(); }
  //! Hits align_many aligned in the box the pruned reverse pass narrowed (tests).
  std::size_t narrowed_boxes() const { return narrowed_boxes_.load(); }
  //! Seconds of align_many's steps, summed over its calls (--timing): the weak hits' boxes
  //! narrowed by the reverse pass, every box aligned, and the largest box of each call alone.
  std::vector<std::pair<std::string, double>> stage_seconds() const override;
  //! Hits align_many aligned in a band of diagonals of their box (tests).
  std::size_t banded_boxes() const { return banded_boxes_.load(); }
  //! Hits align_many aligned whole because their box's alignment was not the known cell's (tests).
  std::size_t whole_pair_fallbacks() const { return whole_pair_fallbacks_.load(); }
  //! Worker threads used by align_many.
  unsigned threads() const { return threads_; }
  //! Memory budget (bytes).
  std::size_t budget_bytes() const { return budget_bytes_; }
  //! What a pair is run for: its best cell, its alignment, or several alignments (--max-hsps).
  enum class job_kind { score, align, hsps };
  //! Smallest memory an m × n pair can run in (bytes): score pass bands and, for an alignment,
  //! the checkpoint rows of the widest rectangle the scores allow; for several alignments the
  //! smallest tile layout of cpu_hsps.hpp.
  static std::size_t pair_min_bytes(std::int64_t m, std::int64_t n, const scoring_scheme& scheme, job_kind kind);

 private:
  //! The pair's alignment; band (may be null): the diagonals that hold every optimal alignment
  //! into the pair's best cell (the tiles outside it are not filled, cpu_hsps.hpp).
  alignment align_one(residue_span query, residue_span target, const scoring_scheme& scheme,
                      std::size_t budget_bytes, const progress_fn* progress, unsigned threads,
                      const cpu::diagonal_band* band = nullptr) const;

  //! Refuses (usage_error) a set of pairs of which one cannot fit the budget or has a sequence
  //! longer than 2^31 - 1 residues; returns how many workers (≤ wanted) fit in equal shares.
  std::size_t fitting_workers(std::span<const pair_job> jobs, const scoring_scheme& scheme, job_kind kind,
                              std::size_t wanted) const;
  //! Runs fn(job, budget_bytes, threads) for every job on the worker pool (threads: what a job
  //! may use for itself when there are fewer jobs than threads), a job far larger than the
  //! workers' even share first on every thread; rethrows the first error.
  void for_each_job(std::span<const pair_job> jobs, const scoring_scheme& scheme, job_kind kind,
                    const std::function<void(std::size_t, std::size_t, unsigned)>& fn) const;
  //! Runs fn(item, worker) for items [0, count) on `workers` threads (the calling thread is
  //! worker 0), each taking the next item in turn; rethrows the first error.
  void run_pool(std::size_t count, std::size_t workers, const std::function<void(std::size_t, std::size_t)>& fn) const;

  unsigned threads_;
  std::size_t budget_bytes_;
  engine_notice_fn notice_;
  mutable std::atomic<bool> threads_noticed_{false};  //!< the thread-start notice is given once
  std::atomic<std::size_t> wide_passes_{0};            //!< wide_passes()
  std::atomic<std::size_t> wide_tiled_{0};             //!< wide_tiled_passes()
  std::atomic<std::size_t> narrowed_boxes_{0};         //!< narrowed_boxes()
  std::atomic<std::size_t> whole_pair_fallbacks_{0};   //!< whole_pair_fallbacks()
  mutable std::atomic<std::size_t> banded_boxes_{0};   //!< banded_boxes()
  mutable std::mutex stages_mutex_;                    //!< guards hit_seconds_
  struct hit_seconds {                                 //!< stage_seconds()
    double narrowed = 0, aligned = 0, largest = 0;
  } hit_seconds_;
  int interseq_lanes_ = 0;
};

}  // namespace swat

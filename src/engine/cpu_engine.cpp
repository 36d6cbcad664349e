#include "engine/cpu_engine.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/cpu_kernels.hpp"
#include "engine/cpu_traceback.hpp"

namespace swat {

cpu_engine::cpu_engine(unsigned threads, std::size_t budget_bytes)
    : threads_(threads ? threads : std::max(1u, std::thread::hardware_concurrency())),
      budget_bytes_(budget_bytes) {}

alignment cpu_engine::align_one(residue_span query, residue_span target, const scoring_scheme& scheme,
                                std::size_t budget_bytes, const progress_fn* progress) const {
  const cpu::pass_result pass = cpu::score_pass(query, target, scheme, true, progress);
  alignment aln;
  if (pass.best.score <= 0) return aln;
  const std::int64_t qb = pass.query_begin, tb = pass.target_begin;
  aln = cpu::trace_rectangle(query.subspan(std::size_t(qb), std::size_t(pass.best.query_end - qb)),
                             target.subspan(std::size_t(tb), std::size_t(pass.best.target_end - tb)),
                             scheme, pass.best.score, budget_bytes);
  aln.query_begin += qb;
  aln.query_end += qb;
  aln.target_begin += tb;
  aln.target_end += tb;
  return aln;
}

alignment cpu_engine::align(residue_span query, residue_span target, const scoring_scheme& scheme) {
  return align_one(query, target, scheme, budget_bytes_, nullptr);
}

best_cell cpu_engine::score_only(residue_span query, residue_span target, const scoring_scheme& scheme) {
  return cpu::score_pass(query, target, scheme, false, nullptr).best;
}

void cpu_engine::for_each_job(std::size_t count, const std::function<void(std::size_t, std::size_t)>& fn) const {
  const std::size_t workers = std::min<std::size_t>(threads_, count);
  if (workers == 0) return;
  const std::size_t budget = std::max<std::size_t>(budget_bytes_ / workers, 1);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (;;) {
      const std::size_t k = next.fetch_add(1);
      if (k >= count || failed.load()) return;
      try {
        fn(k, budget);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
        return;
      }
    }
  };
  if (workers == 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w) pool.emplace_back(work);
    for (std::thread& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
}

void cpu_engine::align_many(std::span<const pair_job> jobs, const scoring_scheme& scheme,
                            std::span<alignment> results, const progress_fn& progress) {
  for_each_job(jobs.size(), [&](std::size_t k, std::size_t budget) {
    results[k] = align_one(jobs[k].query, jobs[k].target, scheme, budget, &progress);
  });
}

void cpu_engine::score_many(std::span<const pair_job> jobs, const scoring_scheme& scheme,
                            std::span<best_cell> results, const progress_fn& progress) {
  for_each_job(jobs.size(), [&](std::size_t k, std::size_t) {
    results[k] = cpu::score_pass(jobs[k].query, jobs[k].target, scheme, false, &progress).best;
  });
}

}  // namespace swat

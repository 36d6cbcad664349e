#pragma once
// A loop over indices on several host threads, for host steps that read large arrays or format
// many records (the pipeline's ranking of a search's best cells, the tabular writer's rows).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace swat {

//! fn(i) for every i in [0, n) on up to `threads` threads (0: every core), at least
//! min_per_thread indices a thread, in blocks of consecutive indices taken in turn; the first
//! exception fn throws is rethrown once every thread has stopped (the others stop after their
//! block). Fewer threads where the system has none to spare (this one then does the rest).
template <typename Fn>
void parallel_for(std::size_t n, unsigned threads, std::size_t min_per_thread, Fn&& fn) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t parts =
      std::max<std::size_t>(1, std::min<std::size_t>(threads, n / std::max<std::size_t>(min_per_thread, 1)));
  const std::size_t block = std::max<std::size_t>(1, n / (parts * 8));
  std::atomic<std::size_t> next{0};
  std::exception_ptr failed;
  std::mutex failed_mutex;
  const auto work = [&] {
    try {
      for (std::size_t from; (from = next.fetch_add(block)) < n;)
        for (std::size_t i = from, to = std::min(n, from + block); i < to; ++i) fn(i);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(failed_mutex);
      if (!failed) failed = std::current_exception();
      next.store(n);
    }
  };
  std::vector<std::thread> helpers;
  try {
    helpers.reserve(parts - 1);
    for (std::size_t k = 1; k < parts; ++k) helpers.emplace_back(work);
  } catch (...) {  // no thread to spare: the helpers started and this one do it all
  }
  work();
  for (std::thread& h : helpers) h.join();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace swat

#pragma once
// A loop over indices on several host threads, for host steps that read large arrays or format
// many records (the pipeline's ranking of a search's best cells, the tabular writer's rows), and
// a pool of threads kept for many small batches (the CPU engine's tile refills, cpu_hsps.cpp).

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
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

//! A few threads that run batches of independent jobs with the calling thread: run() returns
//! when every job of its batch is done (first error rethrown).
class batch_pool {
 public:
  explicit batch_pool(unsigned threads) {
    for (unsigned w = 1; w < threads; ++w) {
      try {
        threads_.emplace_back([this, w] { work(w); });
      } catch (...) {  // no thread or no memory for one: fewer helpers, the calling thread does their share
        break;
      }
    }
  }
  ~batch_pool() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  //! Workers, the calling thread included (worker 0).
  unsigned workers() const { return unsigned(threads_.size()) + 1; }
  //! Runs job(k, worker) for every k < count.
  void run(std::size_t count, const std::function<void(std::size_t, unsigned)>& job) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      count_ = count;
      next_ = 0;
      busy_ = threads_.size();
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    take(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    job_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void work(unsigned w) {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      take(w);
      const std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }
  void take(unsigned w) {
    for (;;) {
      const std::size_t k = next_.fetch_add(1);
      if (k >= count_) return;
      try {
        (*job_)(k, w);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
        next_ = count_;
      }
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(std::size_t, unsigned)>* job_ = nullptr;
  std::size_t count_ = 0;
  std::atomic<std::size_t> next_{0};
  std::size_t busy_ = 0;
  std::uint64_t generation_ = 0;
  std::exception_ptr error_;
  bool stop_ = false;
};

}  // namespace swat

#pragma once
// A progress line on stderr for long runs: shown only on a terminal, only after ~2 s, and
// never with --quiet. Thread-safe: engines report finished cells from any thread.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace swat::pipeline {

class progress_line {
 public:
  //! label: what is being done ("aligning"); total_cells: expected DP cells (0 = unknown).
  progress_line(std::string label, std::uint64_t total_cells, bool enabled);
  ~progress_line();
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;

  //! Adds finished DP cells.
  void add(std::uint64_t cells) { done_.fetch_add(cells, std::memory_order_relaxed); }
  //! Switches to a new phase with its own label and total.
  void restart(std::string label, std::uint64_t total_cells);
  //! Stops the display and clears the line.
  void finish();

 private:
  void run();
  void draw(bool final_draw);

  std::string label_;
  std::uint64_t total_ = 0;
  std::atomic<std::uint64_t> done_{0};
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

//! True when stderr is a terminal.
bool stderr_is_tty();

}  // namespace swat::pipeline

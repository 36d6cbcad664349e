#pragma once
// The one progress line on stderr for long runs: shown only on a terminal, only after ~2 s and
// once something was reported, never with --quiet. Thread-safe: engines report finished cells
// from any thread, and the fill fraction of a single long pair (engine_options::fill_progress).

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
  //! The fraction (0…1) of the one long fill under way and its seconds so far: shown instead of
  //! the cells from now on.
  void fill(double fraction, double elapsed_seconds);
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
  bool filling_ = false;         //!< fill() was called: draw the fill line
  double fill_fraction_ = 0;     //!< last fill fraction
  double fill_seconds_ = 0;      //!< its seconds
  std::thread thread_;
};

//! True when stderr is a terminal.
bool stderr_is_tty();

//! Text of the fill line, e.g. "aligning: fill  42% (3.1 s, eta 4.3 s)" (no eta below 1 % and
//! at the end).
std::string fill_progress_text(const std::string& label, double fraction, double elapsed_seconds);

}  // namespace swat::pipeline

// The progress line (see progress.hpp).

#include "pipeline/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace swat::pipeline {

namespace {
constexpr auto show_after = std::chrono::seconds(2);
constexpr auto redraw_every = std::chrono::milliseconds(250);
}  // namespace

bool stderr_is_tty() { return ::isatty(STDERR_FILENO) == 1; }

std::string fill_progress_text(const std::string& label, double fraction, double elapsed_seconds) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  char buf[160];
  const int percent = int(std::floor(fraction * 100));
  if (fraction > 0.01 && fraction < 1.0)
    std::snprintf(buf, sizeof buf, "%s: fill %3d%% (%.1f s, eta %.1f s)", label.c_str(), percent, elapsed_seconds,
                  elapsed_seconds * (1.0 - fraction) / fraction);
  else
    std::snprintf(buf, sizeof buf, "%s: fill %3d%% (%.1f s)", label.c_str(), percent, elapsed_seconds);
  return buf;
}

progress_line::progress_line(std::string label, std::uint64_t total_cells, bool enabled)
    : label_(std::move(label)), total_(total_cells), start_(std::chrono::steady_clock::now()) {
  if (!enabled || !stderr_is_tty()) return;
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error&) {
    // No thread to spare (ulimit -u): no progress line, the work goes on.
  }
}

progress_line::~progress_line() { finish(); }

void progress_line::restart(std::string label, std::uint64_t total_cells) {
  std::lock_guard lock(mutex_);
  label_ = std::move(label);
  total_ = total_cells;
  start_ = std::chrono::steady_clock::now();
  done_.store(0, std::memory_order_relaxed);
}

void progress_line::fill(double fraction, double elapsed_seconds) {
  std::lock_guard lock(mutex_);
  filling_ = true;
  fill_fraction_ = fraction;
  fill_seconds_ = elapsed_seconds;
}

void progress_line::finish() {
  {
    std::lock_guard lock(mutex_);
    if (stop_) return;
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

void progress_line::run() {
  std::unique_lock lock(mutex_);
  if (wake_.wait_for(lock, show_after, [this] { return stop_; })) return;
  while (!stop_) {
    draw(false);
    wake_.wait_for(lock, redraw_every, [this] { return stop_; });
  }
}

void progress_line::draw(bool) {
  if (filling_) {
    std::fprintf(stderr, "\rswat-gpu: %s\033[K", fill_progress_text(label_, fill_fraction_, fill_seconds_).c_str());
    std::fflush(stderr);
    drawn_ = true;
    return;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double done = double(done_.load(std::memory_order_relaxed));
  if (done == 0) return;  // nothing reported yet (e.g. one long GPU pair without fill progress)
  const double gcups = seconds > 0 ? done / seconds / 1e9 : 0.0;
  if (total_ > 0)
    std::fprintf(stderr, "\rswat-gpu: %s %5.1f%% (%.3g of %.3g cells, %.2f GCUPS, %.0f s)\033[K",
                 label_.c_str(), 100.0 * done / double(total_), done, double(total_), gcups, seconds);
  else
    std::fprintf(stderr, "\rswat-gpu: %s (%.3g cells, %.2f GCUPS, %.0f s)\033[K", label_.c_str(), done,
                 gcups, seconds);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace swat::pipeline

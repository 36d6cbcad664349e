// Layout of the barrier state in one allocation (each hot word on its own 128-byte line):
//   line 0 counter | 1 release | 2 abort | 3 error record | 8..39 stripes | tree lines |
//   Arrayin[max_blocks] | Arrayout[max_blocks] | tree routes[max_blocks]

#include "cuda/sync/barrier/barrier_workspace.cuh"

#include <cmath>
#include <utility>

#include "common/error.hpp"
#include "cuda/common/cuda_check.cuh"
#include "cuda/common/device_buffer.hpp"

namespace swat::barrier {
namespace {

constexpr int header_lines = 8 + max_stripes;
constexpr int stripe_line = 8;

//! n rounded up to whole 128-byte lines.
std::size_t line_align(std::size_t n) { return cuda::align_up(n, line_bytes); }

const char* site_name(std::uint32_t site) {
  switch (site) {
    case 1:
      return "counter";
    case 2:
      return "tree node";
    case 3:
      return "lockfree Arrayin (master)";
    case 4:
      return "lockfree Arrayout";
    case 5:
      return "release flag";
    case 6:
      return "stripes";
    default:
      return "entry";
  }
}

}  // namespace

barrier_workspace::barrier_workspace(const cuda::device_context& dev, int max_blocks, double watchdog_s)
    : max_blocks_(max_blocks) {
  if (max_blocks < 1)
    throw usage_error("barrier_workspace: max_blocks must be >= 1, got " +
                      std::to_string(max_blocks));
  set_watchdog_seconds(watchdog_s);
  // Tree counters: leaves + mids + root; the 3-level tree has the most, bounded by 2·sqrt(N)+2
  // plus a few; take every N up to max_blocks to be exact.
  for (int n = 1; n <= max_blocks; ++n) {
    tree_lines_ = std::max({tree_lines_, tree_node_count(n, 2), tree_node_count(n, 3)});
  }
  dev.make_current();
  memory_.reserve(line_align(static_cast<std::size_t>(header_lines + tree_lines_) * line_bytes) +
                  2 * line_align(sizeof(std::uint32_t) * max_blocks) + line_align(sizeof(tree_path) * max_blocks));
  clock_khz_ = dev.clock_khz();
  reset(nullptr);
  SWAT_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

void barrier_workspace::set_watchdog_seconds(double seconds) {
  if (!(seconds >= 0.0) || !std::isfinite(seconds))
    throw usage_error("barrier watchdog must be a finite number of seconds >= 0");
  watchdog_s_ = seconds;
}

void barrier_workspace::set_stripe_override(int stripes) {
  if (stripes < 0 || stripes > max_stripes)
    throw usage_error("stripe count must be 0..32, got " + std::to_string(stripes));
  stripe_override_ = stripes;
}

void barrier_workspace::reset(cudaStream_t stream) {
  // Counters, flags, error, stripes, tree nodes and both lockfree arrays; routes stay.
  const std::size_t counters =
      line_align(static_cast<std::size_t>(header_lines + tree_lines_) * line_bytes) +
      2 * line_align(sizeof(std::uint32_t) * max_blocks_);
  SWAT_CUDA_CHECK(cudaMemsetAsync(base(), 0, counters, stream));
}

barrier_handle barrier_workspace::prepare(sync_mode mode, int n_blocks, cudaStream_t stream) {
  if (n_blocks < 1 || n_blocks > max_blocks_)
    throw usage_error("barrier_workspace: grid of " + std::to_string(n_blocks) +
                      " blocks outside 1.." + std::to_string(max_blocks_));
  auto word = [this](int line) {
    return reinterpret_cast<std::uint32_t*>(base() + static_cast<std::size_t>(line) * line_bytes);
  };
  const std::size_t tree_end =
      line_align(static_cast<std::size_t>(header_lines + tree_lines_) * line_bytes);
  const std::size_t arr_bytes = line_align(sizeof(std::uint32_t) * max_blocks_);
  barrier_handle h;
  h.d_counter = word(0);
  h.d_release = word(1);
  h.d_abort = word(2);
  h.d_error = reinterpret_cast<barrier_error*>(word(3));
  h.d_stripes = word(stripe_line);
  h.d_tree = word(header_lines);
  h.d_in = reinterpret_cast<std::uint32_t*>(base() + tree_end);
  h.d_out = reinterpret_cast<std::uint32_t*>(base() + tree_end + arr_bytes);
  auto* d_paths = reinterpret_cast<tree_path*>(base() + tree_end + 2 * arr_bytes);
  h.d_paths = d_paths;
  h.n_blocks = n_blocks;
  h.stripes = stripe_override_ > 0 ? std::min(stripe_override_, n_blocks) : stripe_count(n_blocks);
  h.watchdog_cycles =
      static_cast<std::int64_t>(watchdog_s_ * static_cast<double>(clock_khz_) * 1e3);
  const int levels = mode == sync_mode::tree ? 2 : mode == sync_mode::tree3 ? 3 : 0;
  if (levels != 0 && (levels != paths_levels_ || n_blocks != paths_blocks_)) {
    h_paths_ = tree_paths(n_blocks, levels);
    SWAT_CUDA_CHECK(cudaMemcpyAsync(d_paths, h_paths_.data(), sizeof(tree_path) * h_paths_.size(),
                                    cudaMemcpyHostToDevice, stream));
    paths_levels_ = levels;
    paths_blocks_ = n_blocks;
  }
  reset(stream);
  last_mode_ = mode;
  last_blocks_ = n_blocks;
  return h;
}

barrier_error barrier_workspace::last_error(cudaStream_t stream) const {
  SWAT_CUDA_CHECK(cudaStreamSynchronize(stream));
  barrier_error e{};
  SWAT_CUDA_CHECK(cudaMemcpy(&e, base() + 3 * line_bytes, sizeof e, cudaMemcpyDeviceToHost));
  return e;
}

void barrier_workspace::check(cudaStream_t stream) const {
  const barrier_error e = last_error(stream);
  if (e.code == error_none) return;
  std::string what = "grid barrier '" + std::string(to_string(last_mode_)) + "' with " +
                     std::to_string(last_blocks_) + " blocks: ";
  if (e.code == error_mismatch) {
    what += "launched grid does not match the handle (prepare() was called for another size)";
  } else {
    what += "watchdog timeout after " + std::to_string(watchdog_s_) + " s: block " +
            std::to_string(e.block) + " gave up waiting at barrier #" + std::to_string(e.epoch) +
            " (" + site_name(e.site) + "); some block never arrived";
  }
  throw barrier_timeout(what, last_mode_, last_blocks_, e);
}

}  // namespace swat::barrier

#pragma once
// Device fill of the paper engines (plain C++ view; CUDA lives in the *.cu files).
//
//   wavefront_fill ctx(device_context(0));             // owns device buffers, reused per pair
//   fill_result r = ctx.fill(query, target, scheme, {kernel_kind::coalesced, sync_mode::flag});
//   alignment a = traceback(r);                        // CPU walk over r.codes
//
// Recurrences: Gotoh 1982 (common/traceback.hpp); parallel mapping: Xiao, Aji & Feng 2009.

#include <cstdint>
#include <memory>
#include <vector>

#include "common/alignment.hpp"
#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "common/traceback.hpp"
#include "engine/sync_mode.hpp"
#include "cuda/common/device_context.hpp"
#include "cuda/engines/paper/code_layout.hpp"

namespace swat::paper {

//! How one fill runs.
struct fill_config {
  kernel_kind kernel = kernel_kind::coalesced;  //!< memory layout / work mapping
  sync_mode sync = sync_mode::flag;             //!< grid barrier or launch-based mode
  int tile = 0;          //!< tiled kernel's edge (cells; 0 = default_tile)
  int blocks = 0;        //!< grid size (blocks; 0 = enough for the widest step, ≤ co-resident cap)
  bool copy_codes = true;  //!< copy the traceback codes back to the host
  bool poison = false;     //!< fill H/E/F, borders and codes with garbage first (tests)
};

//! What one fill produced.
struct fill_result {
  best_cell best;                    //!< best score and end cell (tie rule of traceback.hpp)
  std::vector<std::uint8_t> codes;   //!< packed 4-bit codes (when copy_codes), layout below
  std::shared_ptr<const code_layout> layout;  //!< where each cell's code lives
  double fill_ms = 0;   //!< device time of the matrix fill: first step to best cell (ms)
  int blocks = 0;       //!< grid size used (blocks)
  int threads = 0;      //!< threads per block
  std::int64_t steps = 0;  //!< barriers / launches (anti-diagonals or tile-diagonals)
};

//! Device memory one fill needs (bytes): codes, rolling H/E/F or tile borders, sequences.
struct fill_plan {
  std::int64_t code_bytes = 0;    //!< traceback codes
  std::int64_t buffer_bytes = 0;  //!< everything else
  std::int64_t total() const { return code_bytes + buffer_bytes; }
};

//! Memory plan of one m × n fill (m, n ≥ 1) with kernel and tile.
fill_plan plan_fill(kernel_kind kernel, std::int64_t m, std::int64_t n, int tile);

//! Owner of the device buffers, barrier and collective workspaces and the stream of the
//! fills on one device; buffers grow as needed and are reused. Not thread-safe.
class wavefront_fill {
 public:
  //! Binds to dev (made current): every fill runs there.
  explicit wavefront_fill(const cuda::device_context& dev);
  ~wavefront_fill();
  wavefront_fill(const wavefront_fill&) = delete;
  wavefront_fill& operator=(const wavefront_fill&) = delete;

  //! The device the fills run on.
  const cuda::device_context& device() const;

  //! Fills the m × n matrix of query (rows) against target (columns), both non-empty. Throws
  //! usage_error (bad tile, mode none with copy_codes), swat::cuda_error, barrier_timeout.
  fill_result fill(residue_span query, residue_span target, const scoring_scheme& scheme,
                   const fill_config& config);

  //! Device memory this context holds in its (reusable) buffers (bytes).
  std::int64_t held_bytes() const;
  //! Largest co-resident grid of kernel's persistent fill (blocks), for benchmarks.
  int max_blocks(kernel_kind kernel, int tile) const;
  //! Threads per block of kernel with tile.
  static int block_threads(kernel_kind kernel, int tile);

 private:
  struct state;
  std::unique_ptr<state> s_;
};

//! The alignment of a fill with codes (walk_traceback over the layout).
alignment traceback(const fill_result& result);

}  // namespace swat::paper

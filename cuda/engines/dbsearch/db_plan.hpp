#pragma once
// Host planning of a search (plain C++, no CUDA): which queries are scanned together in one
// launch, with which shape (lanes per pair, rows per lane) and where the kernel reads their
// profiles from. The shapes' occupancy comes from the device (db_launch.cuh); the choices are
// made here so that they can be tested without a GPU.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cuda/engines/dbsearch/db_problem.hpp"

namespace swat::dbsearch {

//! A kernel shape as the device runs it.
struct shape_info {
  int group_lanes = 0;       //!< lanes per pair (G)
  int rows_per_lane = 0;     //!< query rows per lane (R)
  int groups_per_warp = 0;   //!< 32 / G
  int groups_per_block = 0;  //!< groups of one block
  int blocks = 0;            //!< resident blocks on the device (occupancy × SMs)
  int sms = 0;               //!< SMs of the device
  int warps_per_block = 0;   //!< warps of one block (the kernel's launch)
  bool pipelined = false;    //!< for profile_mode::pipelined launches (32 lanes only)
  int registers = 0;         //!< registers per thread of the kernel (as compiled)
  int spill_bytes = 0;       //!< local memory per thread: register spills (0: none)
  //! Query rows per strip.
  int strip_rows() const { return group_lanes * rows_per_lane; }
  //! Groups in flight on the device.
  std::int64_t groups() const { return std::int64_t(blocks) * groups_per_block; }
};

//! What the planner knows of the pairs of one chunk.
struct chunk_stats {
  std::size_t pairs = 0;    //!< pairs of targets
  std::size_t columns = 0;  //!< their columns (Σ length of each pair's longer target)
  std::int32_t longest = 0; //!< columns of the longest pair
  std::int32_t shortest = 0; //!< columns of the shortest pair (0: unknown, taken as longest)
};

//! Queries scanned together in one launch.
struct query_batch {
  std::vector<std::size_t> queries;  //!< indices into the search's queries, longest first
  shape_info shape;                  //!< the shape of the launch
  profile_mode mode = profile_mode::streamed;
  std::int64_t profile_bytes = 0;    //!< Σ of the queries' profiles at this shape (each rounded to 16 bytes)
  bool pair_major = false;           //!< the launch's order (scan_problem::pair_major)
};

//! Limits of a batch.
struct batch_limits {
  //! A batch stops growing once it has this many (query, pair) tasks. Batches of about 2^17
  //! tasks still leave a search of a few hundred queries a few dozen launches, whose results
  //! the host maps while the next launch scans; on 400 proteins × 30,000 (H100,
  //! bench/results/db_batches_h100.csv) the scan took 0.69 s at 2^17 against 1.02 s at 2^14
  //! (each launch as long as its longest pair) and 0.85 s in one launch (nothing overlapped).
  std::int64_t fill_pairs = 1 << 17;
  std::int64_t max_result_bytes = 256 << 20;   //!< results of a batch on the device
  std::int64_t resident_bytes = 200 * 1024;    //!< profiles kept in shared memory up to this
  //! profile_mode::pipelined (the warps of a block share a pair; width 32 only): 0 when the
  //! model finds it cheaper, −1 never, 1 always when a width-32 shape and a query of two strips
  //! or more allow it (tests).
  int pipeline = 0;
};

//! Bytes of the strip-major profile of a query of m rows at strip_rows rows per strip and
//! profile_rows ranks, rounded up to 16.
std::int64_t profile_bytes(std::int64_t m, int strip_rows, int profile_rows);

//! The two terms of a batch's modelled time: the work over the lanes that issue, and the chain
//! of its longest pair on one warp; the launch takes the larger.
struct cost_parts {
  double time = 0;
  double longest = 0;
  double total() const { return time > longest ? time : longest; }
};

//! Modelled cost of one launch besides its cells, in the model's units (SM cycles): the launch,
//! its result copy and the host's turn, about 23 µs at 1.75 GHz.
inline constexpr double launch_cycles = 40'000;

//! Modelled time (SM cycles) of scanning the queries of lengths `lengths` against the
//! chunk with `shape`: a warp step costs about a + b·R instructions; the chunk takes
//! Σ strips·(columns + pairs·(G − 1))·G·(a + b·R) lane-instructions over the lanes that issue
//! per SM (128, or 16 per warp in flight when there are fewer than 8 warps per SM: a warp's
//! steps depend on each other), but no less than its longest pair on one warp sharing its
//! scheduler. A pipelined shape (shape.pipelined: the warps of a block share a pair, width 32)
//! takes ⌈strips / W⌉ passes over a pair's columns instead of strips, with W warps in flight per
//! pair.
cost_parts modelled_cost(std::span<const std::int64_t> lengths, const chunk_stats& chunk, const shape_info& shape);

//! Cuts the queries (lengths[k] = residues of query k; empty ones are left out) into batches,
//! longest first. A batch takes the next query while one launch of both costs no more than the
//! batch and the query apart (their modelled costs and a launch's overhead: a launch is at least
//! as long as its longest pair's chain, so short work is merged until the shapes the queries
//! want differ too much), until it has limits.fill_pairs tasks or its results would pass
//! limits.max_result_bytes. Each batch gets the cheapest shape of `shapes` (width 8 only with a
//! resident profile), its profile mode (resident when the profiles fit, streamed when every
//! block gets full batches of pairs, else global; pipelined per limits.pipeline) and its order:
//! pair-major where the first query's shortest pair ends sooner than the last query's longest
//! (the tail of each order), else query-major.
std::vector<query_batch> plan_batches(std::span<const std::int64_t> lengths, const chunk_stats& chunk,
                                      std::span<const shape_info> shapes, int profile_rows,
                                      const batch_limits& limits = {});

}  // namespace swat::dbsearch

#pragma once
// Database search on the GPU, score only (plain C++ face, no CUDA types): the targets are
// prepared once (db_pack.hpp) and kept on the device, every query is scanned against all of
// them by the persistent inter-sequence kernel (db_kernel.cuh): packed 16-bit DPX, two targets
// per group of lanes, a device-side task queue, longest pairs first. Targets that the scan
// leaves out (longer than max_target_length) and targets whose score saturated 16 bits are
// handed back for an exact 32-bit computation by the caller.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "common/traceback.hpp"

namespace swat::dbsearch {

//! Tunables of a search (defaults: the measured best on the H100, bench/results/db_*.csv).
struct scan_options {
  int group_lanes = 0;                           //!< lanes per pair of targets: 8, 16, 32; 0 = per batch
  int rows_per_lane = 0;                         //!< query rows per lane: 16, 32; 0 = per batch
  //! Warps per block of the launches (8, 12 or 16 where a kernel allows it: scan_policy); 0 = per batch.
  int warps_per_block = 0;
  bool task_queue = true;                        //!< false: static partition (the benchmark's baseline)
  //! The warps of a block share one pair (few, long pairs): 0 when the plan's model says so,
  //! −1 never, 1 whenever a width-32 shape and the query allow it (db_plan.hpp).
  int pipeline = 0;
  //! Order of the batches of a launch (scan_problem::pair_major): 0 as the plan chooses (the
  //! shorter tail), 1 query-major, 2 pair-major (tests: both orders on every kernel).
  int order = 0;
  //! Pipelined blocks keep each warp's strip of profile in shared memory where it fits (false:
  //! read through L1, the benchmark's comparison).
  bool pipe_shared_slices = true;
  //! Ties between best cells go to the smallest row (query position), then the smallest column:
  //! for a caller that scans its queries as the database and its database as the queries
  //! (db_engine's transposed search), whose tie rule then stays smallest target position first.
  bool rows_first = false;
  //! Results (and the pairs to rescan) as the caller of a transposed search wants them, written
  //! in place: results[t · queries + q] with row and column swapped, rescans as (t, q). The
  //! caller's queries are this scanner's targets; no second result matrix is needed.
  bool transposed_results = false;
  //! db_engine's search orientation: 0 scans the queries against the database unless many more
  //! queries than targets make the other way round better (transposed_search), 1 always the other
  //! way round where every query fits as a target, −1 never.
  int transpose = 0;
  std::int64_t max_gpu_bytes = 0;                //!< device memory budget; 0 = 90 % of free memory
  //! db_engine's hit boxes of more cells go to the pair engines (several at once), the others
  //! to the GPU's batched boxes (db_boxes.hpp; at most its max_gpu_box_cells); tests lower it.
  std::int64_t large_box_cells = std::int64_t(1) << 27;
  std::int32_t score_limit = 0;                  //!< 0 = 32767 − max score; tests lower it to force rescans
  //! A database of one chunk on one GPU with at least this many columns is packed straight into
  //! the GPU in slices (db_upload.cuh), never whole on the host (smaller ones are packed on the
  //! host and copied once: page-locking the staging slots would cost more than it saves); tests lower it.
  std::size_t streamed_upload_min_columns = std::size_t(1) << 27;
  //! Longer targets are left to the caller (the windows of long sides are at most this long, so
  //! that short sides of up to ~30 kb DNA are windowed; border rows cost 8 bytes per column of
  //! the longest target per group in flight).
  std::int32_t max_target_length = 1 << 17;
  //! How long a pipelined strip may wait on the strip above before the scan fails instead of
  //! hanging (s, as clock64 cycles at 2 GHz); sanitizer runs, which slow the waits 100-fold, lengthen it.
  double watchdog_seconds = 20.0;
  //! CUDA devices the search runs on (one host thread each, pulling chunks of the database from
  //! one queue, longest first); a device may be named twice (two workers on one GPU: tests).
  std::vector<int> devices{0};
  //! Tests: the first worker, after its first launch, waits until every later worker has
  //! launched or stayed out (otherwise it scans on while they start, and may take every chunk).
  bool later_workers_join_first = false;
};

//! Where the time of the last search went (seconds) and what it did.
struct scan_timing {
  double prepare_s = 0;      //!< the scanner's construction: devices_s, pack_s and border rows
  double devices_s = 0;      //!<   of which the device workers (streams, events, kernel shapes, budgets)
  double pack_s = 0;         //!<   of which sorting, pairing and packing the targets (host)
  double plan_s = 0;         //!<     of which sorting and pairing them into chunks
  double upload_s = 0;       //!< database copies that were not hidden behind a scan
  std::size_t upload_slices = 0;  //!< slices of a database packed straight into the GPU (db_upload.cuh; then pack_s holds the copies)
  std::size_t upload_threads = 0;  //!< … by this many host threads
  double staging_s = 0;            //!< … of which page-locking their staging slots
  bool packed_on_upload = false;   //!< several chunks or GPUs: each chunk packed as it is uploaded (pack_s: the plan only)
  std::size_t upload_runs = 0;     //!< … uploaded as this many runs of adjacent targets, packed on the GPU (0: packed on the host)
  std::size_t upload_dropped_bytes = 0;  //!< … whose host pages (a prepared database's) were dropped once copied
  double scan_s = 0;         //!< kernels, from the first launch to the last result
  std::uint64_t cells = 0;   //!< DP cells scanned
  std::size_t chunks = 0;    //!< database chunks (1 when it fits the budget)
  std::size_t rescans = 0;   //!< (query, target) pairs handed back
  std::size_t pipelined_batches = 0;     //!< launches whose warps of a block share pairs
  std::size_t shared_slice_batches = 0;  //!< of those, with each warp's profile strip in shared memory
  std::size_t shared_batches = 0;        //!< launches of more than one query
  //! Per entry of scan_options::devices: seconds from the search's start until its worker took
  //! its first chunk (the first GPU at once, the others when they had started); −1: none (every
  //! chunk was taken meanwhile, or too little free memory on its GPU).
  std::vector<double> joined;
  //! Per entry of scan_options::devices: the DP cells its worker scanned.
  std::vector<std::uint64_t> worker_cells;
};

//! (query index, target index).
using pair_index = std::pair<std::size_t, std::size_t>;

//! True when the scan can run this scheme: int8 substitution scores, o + e ≤ 8192, o + e > 0.
bool scan_supports(const scoring_scheme& scheme);

//! The database on the GPU, scanned once per query.
class db_scanner {
 public:
  //! Packs the targets (kept by reference: they must outlive the scanner) and uploads them when
  //! they fit the budget (otherwise chunk by chunk during each search).
  db_scanner(std::span<const residue_span> targets, const scoring_scheme& scheme, scan_options options);
  ~db_scanner();
  db_scanner(const db_scanner&) = delete;
  db_scanner& operator=(const db_scanner&) = delete;

  //! Best cell of every query × target into results[q · targets + t] (transposed_results:
  //! results[t · queries + q], row and column swapped). Pairs the scan could not finish exactly
  //! (target too long, 16-bit saturation) keep a zero cell and are appended to `rescan` as
  //! (q, t) (transposed_results: (t, q)). progress receives DP cells as they finish.
  void search(std::span<const residue_span> queries, std::span<best_cell> results,
              std::vector<pair_index>& rescan, const std::function<void(std::uint64_t)>& progress);

  //! Timing of the construction and the last search.
  const scan_timing& timing() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace swat::dbsearch

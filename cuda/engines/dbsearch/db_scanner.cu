// db_scanner: the database packed once, uploaded whole or chunk by chunk (copies on their own
// stream, overlapped with the previous chunk's scans), queries cut into batches (db_plan.hpp)
// with one persistent scan kernel per batch and chunk, results mapped back to target order
// while the next batch runs, 16-bit saturations and too-long targets handed back.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <mutex>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include "common/host_pages.hpp"
#include "cuda/common/cuda_check.cuh"
#include "cuda/engines/dbsearch/db_launch.cuh"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/device_context.hpp"
#include "cuda/engines/dbsearch/db_memory.cuh"
#include "cuda/engines/dbsearch/db_pack.hpp"
#include "cuda/engines/dbsearch/db_plan.hpp"
#include "cuda/engines/dbsearch/db_policy.cuh"
#include "cuda/engines/dbsearch/db_scan.hpp"
#include "cuda/engines/dbsearch/db_upload.cuh"

namespace swat::dbsearch {

bool scan_supports(const scoring_scheme& scheme) {
  const std::int32_t oe = scheme.gap_open + scheme.gap_extend;
  return scheme.max_score() <= 127 && scheme.min_score() >= -127 && scheme.gap_open >= 0 &&
         scheme.gap_extend >= 0 && oe > 0 && oe <= 8192 && scheme.size() < 255;
}

namespace {

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}


//! Device copy of one chunk: columns and pairs.
struct chunk_buffer {
  cuda::device_buffer memory;
  std::size_t tasks_offset = 0;
  cudaEvent_t uploaded = nullptr, released = nullptr;
  int chunk = -1;  //!< chunk held, −1 none
};

//! One batch in flight: its inputs (query table and profiles) and results on both sides.
struct batch_slot {
  pinned_memory host_in, host_out;
  cuda::device_buffer device;          //!< query table | profiles | results
  cudaEvent_t inputs_free = nullptr, results_ready = nullptr;
  std::vector<std::size_t> queries;
  int chunk = -1;                //!< −1: nothing pending
};

}  // namespace

//! What every device shares: the targets, the scheme, the packed database.
struct host_side {
  std::span<const residue_span> targets;
  scoring_scheme scheme;
  scan_options options;
  db_layout layout;
  // Every pair's columns, as in device memory. Pageable: pinning tens of MB costs more than the
  // staged copy saves (the copy engine still overlaps a chunk's upload with the previous scan).
  // Not zeroed: pack_columns writes every column, its threads touching their own pages first.
  // Null with several chunks or GPUs: each chunk is packed as it is uploaded (upload()).
  std::unique_ptr<std::uint16_t[]> columns;
  //! The targets' runs of adjacent memory (runs_of; empty when there are too many): the pages
  //! of a prepared database's volumes among them are dropped after each chunk is packed.
  std::vector<residue_span> target_runs;
  int pad_rank = 0, profile_rows = 0;
};

//! One GPU of the search: its streams, database buffers, batch slots and border rows.
struct device_worker {
  const host_side& host;
  cuda::device_context dev;
  std::vector<shape_info> shapes;  // the shapes a batch may take (occupancy with one strip of profile)
  std::size_t max_groups = 0;      // border slots: the most groups any shape keeps in flight
  chunk_buffer buffers[2];
  batch_slot slots[2];
  cuda::device_buffer border;    // per group slot: the longest pair's columns
  cuda::device_buffer counters;  // queue head at 0, cells done at 8
  pinned_memory cells_host;
  cudaStream_t compute = nullptr, copy = nullptr, poll = nullptr;
  std::size_t pipelined_batches = 0, shared_slice_batches = 0, shared_batches = 0;  // of the last run (scan_timing)

  device_worker(const host_side& h, int d) : host(h), dev(d) {  // dev(d) makes d current
    try {
      for (cudaStream_t* st : {&compute, &copy, &poll}) SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(st, cudaStreamNonBlocking));
      for (auto& b : buffers)
        for (cudaEvent_t* e : {&b.uploaded, &b.released}) SWAT_CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
      for (auto& sl : slots)
        for (cudaEvent_t* e : {&sl.inputs_free, &sl.results_ready})
          SWAT_CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
      // Every kernel and warp count the options allow: a group per pair at the shape's own warps
      // per block (and 32 × 32 at wide_block_warps too) and, at 32 lanes, pipelined launches.
      const int want_warps = host.options.warps_per_block;
      for (int g : {8, 16, 32})
        for (int r : {16, 32}) {
          if ((host.options.group_lanes != 0 && host.options.group_lanes != g) ||
              (host.options.rows_per_lane != 0 && host.options.rows_per_lane != r))
            continue;
          const std::size_t smem = std::size_t(host.profile_rows) * std::size_t(g * r);  // one strip streamed
          std::vector<shape_info> kernels = {shape_of(g, r, smem, false, 0)};
          if (g == 32 && r == 32) kernels.push_back(shape_of(g, r, smem, false, wide_block_warps));
          if (g == 32) kernels.push_back(shape_of(g, r, smem, true, 0));
          for (const shape_info& s : kernels)
            if (want_warps == 0 || s.warps_per_block == want_warps) {
              shapes.push_back(s);
              max_groups = std::max<std::size_t>(max_groups, std::size_t(s.groups()));
            }
        }
      if (shapes.empty()) {
        const auto any = [](int v) { return v == 0 ? std::string("any") : std::to_string(v); };
        throw std::invalid_argument("dbsearch: no scan kernel runs " + std::to_string(want_warps) + " warps per block at " +
                                    any(host.options.group_lanes) + " lanes x " + any(host.options.rows_per_lane) + " rows");
      }
      counters.reserve(256);
      cells_host.reserve(256);
    } catch (...) {
      release();  // the destructor does not run for a worker that was not built
      throw;
    }
  }

  ~device_worker() { release(); }

  //! Waits for the streams and destroys the events and streams made so far.
  void release() noexcept {
    (void)cudaSetDevice(dev.id());  // make_current() may throw: not in a destructor
    for (cudaStream_t st : {compute, copy})
      if (st) cudaStreamSynchronize(st);
    for (auto& b : buffers)
      for (cudaEvent_t e : {b.uploaded, b.released})
        if (e) cudaEventDestroy(e);
    for (auto& sl : slots)
      for (cudaEvent_t e : {sl.inputs_free, sl.results_ready})
        if (e) cudaEventDestroy(e);
    for (cudaStream_t st : {compute, copy, poll})
      if (st) cudaStreamDestroy(st);
  }

  //! Dynamic shared memory of a pipelined block holding one strip's profile per warp.
  std::size_t pipe_slices_bytes(const shape_info& shape, int strip_rows) const {
    return std::size_t(shape.groups_per_block / shape.groups_per_warp) * std::size_t(host.profile_rows) * std::size_t(strip_rows);
  }

  //! The shape G, R with `warps` warps per block (0: the shape's own; wide_block_warps at 32 × 32) and
  //! smem_bytes of dynamic shared memory, for pipelined launches or the others.
  shape_info shape_of(int g, int r, std::size_t smem_bytes, bool pipelined, int warps) const {
    return with_shape(g, r, [&]<int G, int R>() {
      if constexpr (G == 32 && R == 32) {
        if (warps == wide_block_warps && !pipelined) return shape_on<G, R, false, wide_block_warps>(dev, smem_bytes);
      }
      if (warps != 0 && warps != scan_policy<G, R>::warps_per_block)
        throw std::invalid_argument("dbsearch: no scan kernel of " + std::to_string(G) + " lanes x " + std::to_string(R) +
                                    " rows runs " + std::to_string(warps) + " warps per block" +
                                    (pipelined ? " pipelined" : ""));
      if (pipelined && !scan_policy<G, R>::runs_pipelined)
        throw std::logic_error("dbsearch: pipelined launches need 32 lanes per pair");
      shape_info s = shape_on<G, R>(dev, smem_bytes);
      s.pipelined = pipelined;
      return s;
    });
  }

  //! Device memory this worker needs besides the database: border rows for pairs of `longest`
  //! columns and two batch slots (query tables, profiles of queries up to 64k residues and
  //! results of up to batch_limits::max_result_bytes; longer queries and larger batches add theirs).
  std::size_t fixed_bytes(std::int32_t longest) const {
    return max_groups * std::size_t(longest) * sizeof(std::uint64_t) +
           2 * (std::size_t(host.profile_rows) * 65536 + (256u << 20) / 16) + (8u << 20);
  }

  //! The memory budget of this worker: 90 % of its device's free memory, capped by
  //! --max-gpu-mem, shared with the other workers on the same device (a device named twice).
  std::int64_t budget() const {
    std::int64_t b = std::int64_t(double(dev.free_bytes()) * 0.9);
    if (host.options.max_gpu_bytes > 0) b = std::min(b, host.options.max_gpu_bytes);
    const auto sharing = std::count(host.options.devices.begin(), host.options.devices.end(), dev.id());
    return b / std::max<std::int64_t>(sharing, 1);
  }

  //! Copies chunk c into b on the copy stream (after b's previous scans released it): from the
  //! packed columns on the host, or, with several chunks or GPUs, packed now through page-locked
  //! slices (pack_and_upload, which returns once b's previous scans are done and the copies
  //! are), so that the host never holds the packed database (twice its residues).
  void upload(int c, chunk_buffer& b) {
    const db_chunk& chunk = host.layout.chunks[std::size_t(c)];
    b.chunk = -1;  // reserve may free the buffer before it fails: it then holds no chunk
    b.tasks_offset = cuda::align_up(chunk.columns * sizeof(std::uint16_t), 256);
    b.memory.reserve(b.tasks_offset + cuda::align_up(chunk.tasks * sizeof(pair_task), 256));
    SWAT_CUDA_CHECK(cudaStreamWaitEvent(copy, b.released, 0));
    if (host.columns) {
      SWAT_CUDA_CHECK(cudaMemcpyAsync(b.memory.as<void>(), host.columns.get() + chunk.first_column,
                                      chunk.columns * sizeof(std::uint16_t), cudaMemcpyHostToDevice, copy));
    } else {
      pack_and_upload(host.layout, host.targets, std::uint8_t(host.pad_rank), std::size_t(c), b.memory.as<std::uint16_t>(),
                      dev, copy);
      for (const residue_span& r : host.target_runs) host_pages::release(r.data(), r.size());
    }
    SWAT_CUDA_CHECK(cudaMemcpyAsync(b.memory.as<void>(b.tasks_offset), host.layout.tasks.data() + chunk.first_task,
                                    chunk.tasks * sizeof(pair_task), cudaMemcpyHostToDevice, copy));
    SWAT_CUDA_CHECK(cudaEventRecord(b.uploaded, copy));
    b.chunk = c;
  }

  //! Packs chunk c straight into b (db_upload.cuh): the host never holds its columns. Targets
  //! in a few runs of adjacent memory (a prepared database's volumes) are uploaded as they are
  //! and packed on the GPU, when its memory (and --max-gpu-mem) has room for them beside the
  //! chunk and border_bytes of border rows; other targets are packed on the host, through
  //! page-locked slices. Only for a chunk that stays in b for every search.
  upload_report upload_streamed(int c, chunk_buffer& b, std::size_t border_bytes) {
    const db_chunk& chunk = host.layout.chunks[std::size_t(c)];
    b.chunk = -1;
    b.tasks_offset = cuda::align_up(chunk.columns * sizeof(std::uint16_t), 256);
    b.memory.reserve(b.tasks_offset + cuda::align_up(chunk.tasks * sizeof(pair_task), 256));
    SWAT_CUDA_CHECK(cudaStreamWaitEvent(copy, b.released, 0));
    SWAT_CUDA_CHECK(cudaMemcpyAsync(b.memory.as<void>(b.tasks_offset), host.layout.tasks.data() + chunk.first_task,
                                    chunk.tasks * sizeof(pair_task), cudaMemcpyHostToDevice, copy));
    upload_report report;
    bool packed = false;
    if (const auto runs = runs_of(host.targets, max_upload_runs)) {
      const std::size_t scratch_bytes = runs_scratch_bytes(*runs, chunk);
      const std::int64_t held = std::int64_t(b.memory.bytes() + border_bytes + scratch_bytes) + fixed_margin_bytes;
      const bool room = std::int64_t(scratch_bytes) + fixed_margin_bytes <= std::int64_t(double(dev.free_bytes()) * 0.9) &&
                        (host.options.max_gpu_bytes == 0 || held <= host.options.max_gpu_bytes);
      cuda::device_buffer scratch;
      if (room) {
        try {
          scratch.reserve(scratch_bytes);
        } catch (const cuda_error&) {  // taken meanwhile (another process): the host packs
          (void)cudaGetLastError();
          scratch.release();
        }
      }
      if (scratch.bytes() >= scratch_bytes) {
        upload_runs_and_pack(host.layout, *runs, std::uint8_t(host.pad_rank), std::size_t(c), b.memory.as<std::uint16_t>(),
                             b.memory.as<pair_task>(b.tasks_offset), scratch.data(), dev, copy, 0, &report);
        packed = true;
      }
    }
    if (!packed)
      pack_and_upload(host.layout, host.targets, std::uint8_t(host.pad_rank), std::size_t(c),
                      b.memory.as<std::uint16_t>(), dev, copy, 0, &report);
    SWAT_CUDA_CHECK(cudaEventRecord(b.uploaded, copy));
    b.chunk = c;
    return report;
  }

  //! Runs of adjacent targets that upload_streamed uploads as they are (more: packed on the host).
  static constexpr std::size_t max_upload_runs = 4096;
  //! Device memory upload_streamed leaves free beside the scratch of the runs.
  static constexpr std::int64_t fixed_margin_bytes = std::int64_t(256) << 20;

  //! Maps a finished slot's results to target order.
  void drain(batch_slot& sl, std::span<best_cell> results, std::vector<pair_index>& rescan) {
    if (sl.chunk < 0) return;
    SWAT_CUDA_CHECK(cudaEventSynchronize(sl.results_ready));
    const db_chunk& chunk = host.layout.chunks[std::size_t(sl.chunk)];
    const result_cell* cells = sl.host_out.as<result_cell>();
    const std::size_t nt = host.targets.size(), nq = results.size() / nt;  // a drained chunk has targets
    const bool flip = host.options.transposed_results;
    for (std::size_t qi = 0; qi < sl.queries.size(); ++qi) {
      const std::size_t q = sl.queries[qi];
      for (std::size_t p = 0; p < chunk.tasks; ++p) {
        for (std::size_t half = 0; half < 2; ++half) {
          const std::size_t k = 2 * (chunk.first_task + p) + half;
          if (k >= host.layout.order.size()) continue;
          const std::size_t t = host.layout.order[k];
          const result_cell& c = cells[2 * (qi * chunk.tasks + p) + half];
          const std::size_t at = flip ? t * nq + q : q * nt + t;
          if (c.flags & flag_overflow) {
            rescan.push_back(flip ? pair_index{t, q} : pair_index{q, t});
            results[at] = best_cell{};
          } else {
            results[at] = flip ? best_cell{c.score, c.target_end, c.query_end} : best_cell{c.score, c.query_end, c.target_end};
          }
        }
      }
    }
    sl.chunk = -1;
  }

  //! Scans the chunks it takes from `next_chunk` (shared by every worker: chunks are longest
  //! first, so the queue balances the devices): the next chunk uploads while this one scans.
  //! Returns the DP cells it scanned.
  //! `launched` (may be empty) is called once its first launch is enqueued.
  std::uint64_t run(std::span<const residue_span> queries, std::span<best_cell> results, std::vector<pair_index>& rescan,
                    const std::function<void(std::uint64_t)>& progress, std::atomic<int>& next_chunk,
                    const std::function<void()>& launched = {}) {
    try {
      return run_chunks(queries, results, rescan, progress, next_chunk, launched);
    } catch (...) {
      // A later search must not drain this one's batches into its results: wait for what was
      // enqueued (errors are already being reported) and forget the pending batches.
      (void)cudaStreamSynchronize(compute);
      (void)cudaStreamSynchronize(copy);
      for (batch_slot& sl : slots) sl.chunk = -1;
      throw;
    }
  }

  std::uint64_t run_chunks(std::span<const residue_span> queries, std::span<best_cell> results,
                           std::vector<pair_index>& rescan, const std::function<void(std::uint64_t)>& progress,
                           std::atomic<int>& next_chunk, const std::function<void()>& launched) {
    dev.make_current();
    std::uint64_t reported = 0;
    pipelined_batches = shared_slice_batches = shared_batches = 0;
    SWAT_CUDA_CHECK(cudaMemsetAsync(counters.as<void>(), 0, 256, compute));
    std::vector<std::int64_t> lengths;
    for (const residue_span& q : queries) lengths.push_back(std::int64_t(q.size()));
    const std::int32_t score_limit =
        host.options.score_limit > 0 ? host.options.score_limit : 32767 - host.scheme.max_score();
    const int chunks = int(host.layout.chunks.size());
    std::size_t launches = 0;
    int cur = 0;
    int c = next_chunk++;
    if (c < chunks && buffers[cur].chunk != c) upload(c, buffers[cur]);
    while (c < chunks) {
      const int following = next_chunk++;
      chunk_buffer& b = buffers[cur];
      SWAT_CUDA_CHECK(cudaStreamWaitEvent(compute, b.uploaded, 0));
      // The next chunk is packed and uploaded on a helper thread while this one's batches are
      // queued and run (its copies wait for the scans of the chunk the buffer held before).
      std::future<void> next_upload;
      if (following < chunks && buffers[cur ^ 1].chunk != following) {
        chunk_buffer& nb = buffers[cur ^ 1];
        try {
          next_upload = std::async(std::launch::async, [this, following, &nb] { upload(following, nb); });
        } catch (const std::system_error&) {  // no thread to spare: uploaded after the batches, here
        }
      }
      const db_chunk& chunk = host.layout.chunks[std::size_t(c)];
      const chunk_stats stats{chunk.tasks, chunk.columns, chunk.longest,
                              host.layout.tasks[chunk.first_task + chunk.tasks - 1].columns};
      batch_limits limits;
      limits.pipeline = host.options.pipeline;
      for (const query_batch& batch : plan_batches(lengths, stats, shapes, host.profile_rows, limits)) {
        batch_slot& sl = slots[launches++ % 2];
        drain(sl, results, rescan);  // the slot's previous batch (two launches ago)
        scan_batch(queries, batch, chunk, b, sl, score_limit);
        sl.chunk = c;
        if (launches == 1 && launched) launched();
        report_progress(slots[launches % 2].results_ready, progress, reported);
      }
      SWAT_CUDA_CHECK(cudaEventRecord(b.released, compute));
      if (next_upload.valid())
        next_upload.get();
      else if (following < chunks && buffers[cur ^ 1].chunk != following)
        upload(following, buffers[cur ^ 1]);
      c = following;
      cur ^= 1;
    }
    for (batch_slot& sl : slots) {
      report_progress(sl.results_ready, progress, reported);
      drain(sl, results, rescan);
    }
    SWAT_CUDA_CHECK(cudaStreamSynchronize(compute));
    report_progress(nullptr, progress, reported);
    SWAT_CUDA_CHECK(cudaMemcpy(cells_host.as<void>(16), counters.as<void>(16), 4, cudaMemcpyDeviceToHost));
    if (*cells_host.as<std::int32_t>(16) == scan_error_watchdog)
      throw cuda_error("dbsearch: a pipelined strip waited on the one above for more than " +
                       std::to_string(host.options.watchdog_seconds) + " s (watchdog) on GPU " + std::to_string(dev.id()));
    return reported;
  }

  //! Waits for `event` (nullptr: no wait), passing the cells finished meanwhile to progress
  //! (read every 100 ms while waiting, and once at the end).
  void report_progress(cudaEvent_t event, const std::function<void(std::uint64_t)>& progress, std::uint64_t& reported) {
    auto read = [&] {
      SWAT_CUDA_CHECK(cudaMemcpyAsync(cells_host.as<void>(), counters.as<void>(8), 8, cudaMemcpyDeviceToHost, poll));
      SWAT_CUDA_CHECK(cudaStreamSynchronize(poll));
      const std::uint64_t now = *cells_host.as<std::uint64_t>();
      if (now > reported) {
        if (progress) progress(now - reported);
        reported = now;
      }
    };
    if (event == nullptr) return read();
    if (!progress) {
      SWAT_CUDA_CHECK(cudaEventSynchronize(event));
      return;
    }
    auto last = clock_type::now();
    for (;;) {
      const cudaError_t state = cudaEventQuery(event);
      if (state == cudaSuccess) break;
      if (state != cudaErrorNotReady) SWAT_CUDA_CHECK(state);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      if (seconds_since(last) > 0.1) {
        read();
        last = clock_type::now();
      }
    }
  }

  //! Enqueues the scan of a batch of queries against one chunk on the compute stream.
  void scan_batch(std::span<const residue_span> queries, const query_batch& batch, const db_chunk& chunk,
                  chunk_buffer& b, batch_slot& sl, std::int32_t score_limit) {
    const int G = batch.shape.group_lanes, R = batch.shape.rows_per_lane, strip_rows = G * R;
    const std::size_t nq = batch.queries.size();
    profile_mode mode = batch.mode;
    shape_info shape = batch.shape;
    bool shared_slices = false;
    if (mode == profile_mode::pipelined) {
      // One strip's profile per warp in shared memory when that keeps the blocks per SM (a strip
      // of profile in L1 competes with the border rows streaming through it), else through L1.
      shape = shape_of(G, R, 0, true, 0);
      const shape_info with_slices = shape_of(G, R, pipe_slices_bytes(shape, strip_rows), true, 0);
      shared_slices = with_slices.blocks >= shape.blocks && host.options.pipe_shared_slices;
    } else if (mode == profile_mode::resident) {
      shape = shape_of(G, R, std::size_t(batch.profile_bytes), false, batch.shape.warps_per_block);
      if (shape.blocks < 1) {  // the profiles do not fit beside the block on this device after all
        mode = profile_mode::global;
        shape = batch.shape;
      }
    }
    const std::size_t smem = mode == profile_mode::resident ? std::size_t(batch.profile_bytes)
                             : mode == profile_mode::streamed ? std::size_t(host.profile_rows) * std::size_t(strip_rows)
                             : shared_slices                  ? pipe_slices_bytes(shape, strip_rows)
                                                              : 0;
    // Inputs: the query table, then every profile; results after them.
    const std::size_t table_bytes = cuda::align_up(nq * sizeof(query_info), 16);
    const std::size_t in_bytes = table_bytes + std::size_t(batch.profile_bytes);
    const std::size_t out_offset = cuda::align_up(in_bytes, 256);
    const std::size_t out_bytes = 2 * nq * chunk.tasks * sizeof(result_cell);
    SWAT_CUDA_CHECK(cudaEventSynchronize(sl.inputs_free));  // its last upload has left the host buffer
    sl.host_in.reserve(in_bytes);
    sl.host_out.reserve(std::max<std::size_t>(out_bytes, 16));
    sl.device.reserve(out_offset + std::max<std::size_t>(out_bytes, 16));
    auto* table = sl.host_in.as<query_info>();
    std::int64_t offset = 0;
    for (std::size_t k = 0; k < nq; ++k) {
      const residue_span q = queries[batch.queries[k]];
      table[k] = query_info{offset, std::int32_t(q.size()), std::int32_t(strips_of(std::int64_t(q.size()), strip_rows))};
      build_profile(q, host.scheme.matrix.data(), matrix_stride, host.scheme.size(), strip_rows,
                    sl.host_in.as<std::int8_t>(table_bytes + std::size_t(offset)));
      offset += profile_bytes(std::int64_t(q.size()), strip_rows, host.profile_rows);
    }
    SWAT_CUDA_CHECK(cudaMemcpyAsync(sl.device.as<void>(), sl.host_in.as<void>(), in_bytes, cudaMemcpyHostToDevice, compute));
    SWAT_CUDA_CHECK(cudaEventRecord(sl.inputs_free, compute));
    SWAT_CUDA_CHECK(cudaMemsetAsync(counters.as<void>(), 0, 4, compute));  // queue head
    sl.queries = batch.queries;

    scan_problem pb{};
    pb.d_profile = sl.device.as<std::int8_t>(table_bytes);
    pb.d_queries = sl.device.as<query_info>();
    pb.queries = std::int32_t(nq);
    pb.pairs = std::int32_t(chunk.tasks);
    pb.batch = mode == profile_mode::streamed ? shape.groups_per_block
               : mode == profile_mode::pipelined ? 1
                                                 : shape.groups_per_warp;
    pb.batches_per_query = std::int32_t((chunk.tasks + std::size_t(pb.batch) - 1) / std::size_t(pb.batch));
    pb.profile_rows = host.profile_rows;
    pb.mode = mode;
    pb.profile_bytes = batch.profile_bytes;
    pb.gap_open_extend = host.scheme.gap_open + host.scheme.gap_extend;
    pb.gap_extend = host.scheme.gap_extend;
    pb.score_limit = score_limit;
    pb.d_residues = b.memory.as<std::uint16_t>();
    pb.d_tasks = b.memory.as<pair_task>(b.tasks_offset);
    pb.d_border = border.as<std::uint64_t>();
    pb.border_columns = chunk.longest;
    if (std::size_t(shape.groups()) > max_groups ||
        std::size_t(shape.groups()) * std::size_t(chunk.longest) * sizeof(std::uint64_t) > border.bytes())
      throw std::logic_error("dbsearch: border rows exceed their allocation");
    pb.d_result = sl.device.as<result_cell>(out_offset);
    pb.d_queue = counters.as<std::uint32_t>();
    pb.use_queue = host.options.task_queue ? 1 : 0;
    pb.d_cells_done = counters.as<unsigned long long>(8);
    pb.d_error = counters.as<std::int32_t>(16);
    pb.watchdog_cycles = static_cast<long long>(host.options.watchdog_seconds * 2e9);  // clock64 at 2 GHz
    pb.pipe_shared_slices = shared_slices ? 1 : 0;
    pipelined_batches += mode == profile_mode::pipelined ? 1 : 0;
    shared_batches += nq > 1 ? 1 : 0;
    shared_slice_batches += shared_slices ? 1 : 0;
    pb.rows_first = host.options.rows_first ? 1 : 0;
    pb.pair_major = host.options.order == 0 ? (batch.pair_major ? 1 : 0) : host.options.order == 2 ? 1 : 0;
    with_shape(G, R, [&]<int g, int r>() {
      if constexpr (g == 32 && r == 32)
        if (shape.warps_per_block == wide_block_warps) return launch_scan<g, r, false, wide_block_warps>(pb, shape, smem, compute);
      launch_scan<g, r>(pb, shape, smem, compute);
    });
    SWAT_CUDA_CHECK(cudaMemcpyAsync(sl.host_out.as<void>(), sl.device.as<void>(out_offset), out_bytes,
                                    cudaMemcpyDeviceToHost, compute));
    SWAT_CUDA_CHECK(cudaEventRecord(sl.results_ready, compute));
  }
};

struct db_scanner::impl {
  //! Runs of adjacent targets whose pages are dropped after each chunk's packing (more: none).
  static constexpr std::size_t max_release_runs = 4096;
  host_side host;
  //! One per entry of options.devices: the first made with the scanner, the others by their own
  //! threads when the first search starts (nullptr until then, and for a GPU left out).
  std::vector<std::unique_ptr<device_worker>> workers;
  //! Whether worker w's thread has tried to make it (one byte each: each thread writes its own).
  std::vector<std::uint8_t> tried;
  std::int64_t chunk_budget = 0;  //!< device bytes the chunks need on a worker (two buffers)
  std::int32_t longest = 0;       //!< the longest pair's columns (border rows)
  scan_timing timing;

  impl(std::span<const residue_span> t, const scoring_scheme& s, scan_options o) {
    const auto t0 = clock_type::now();
    host.targets = t;
    host.scheme = s;
    host.options = o;
    host.pad_rank = s.size();
    host.profile_rows = s.size() + 1;
    if (o.devices.empty()) throw std::invalid_argument("dbsearch: no device");
    // The first GPU's worker now; the others start with the first search, each on its own thread
    // once the first GPU has its first launch, and join the queue of chunks when their GPU is
    // ready: the scan does not wait for a GPU that is still starting. (The driver starts contexts
    // one after the other, ~0.12 s each on the H200 machines, and holds the other GPUs' calls
    // meanwhile: started beside the first GPU's engine, they only delayed it.
    // bench/results/multigpu_start_h200x4.txt)
    workers.resize(o.devices.size());
    tried.assign(o.devices.size(), 0);
    workers[0] = std::make_unique<device_worker>(host, o.devices[0]);
    tried[0] = 1;
    for (const residue_span& r : t)
      if (r.size() <= std::size_t(o.max_target_length)) longest = std::max(longest, std::int32_t(r.size()));
    // The chunk budget is the first GPU's; a later GPU with less room for two chunks stays out.
    const device_worker& first = *workers[0];
    const std::int64_t budget = first.budget();
    const std::int64_t left = budget - std::int64_t(first.fixed_bytes(longest));
    if (left < std::int64_t(2 * pair_bytes(std::size_t(longest)) + 4096))
      throw runtime_failure("dbsearch: the GPU memory budget (" + std::to_string(budget >> 20) + " MiB of device " +
                            std::to_string(first.dev.id()) + ") is too small for the database search (needs about " +
                            std::to_string((first.fixed_bytes(longest) + 2 * pair_bytes(std::size_t(longest))) >> 20) + " MiB)");
    timing.devices_s = seconds_since(t0);
    const auto t_pack = clock_type::now();
    std::size_t chunk_bytes = std::min<std::size_t>(std::size_t(left), std::size_t(1) << 32);  // offsets stay below 2^32
    const std::size_t n = workers.size();
    if (n > 1) {
      // Several workers hold two chunks each (one scanned while the next uploads): half the budget;
      // chunks shrink as the queue drains, so the GPUs end within a small chunk of each other.
      chunk_bytes = std::min(chunk_bytes, std::size_t(left) / 2);
      host.layout = plan_database(t, o.max_target_length, chunk_bytes, 2 * n);
    } else {
      // One buffer when the whole database fits, else two (one scanned while the next uploads).
      host.layout = plan_database(t, o.max_target_length, chunk_bytes);
      if (host.layout.chunks.size() > 1)
        host.layout = plan_database(t, o.max_target_length, std::min<std::size_t>(std::size_t(left) / 2, std::size_t(1) << 32));
    }
    timing.plan_s = seconds_since(t_pack);
    for (const db_chunk& c : host.layout.chunks) chunk_budget = std::max(chunk_budget, std::int64_t(c.bytes));
    chunk_budget = 2 * chunk_budget + 2 * 4096;
    timing.chunks = host.layout.chunks.size();
    // One chunk on one GPU stays there for every search: a large one is packed straight into it.
    if (timing.chunks == 1 && n == 1 && host.layout.total_columns >= o.streamed_upload_min_columns) {
      reserve_border(*workers[0]);
      const upload_report r = workers[0]->upload_streamed(0, workers[0]->buffers[0], workers[0]->border.bytes());
      timing.upload_runs = r.runs;
      timing.upload_dropped_bytes = r.dropped_bytes;
      timing.upload_slices = r.slices;
      timing.upload_threads = r.threads;
      timing.staging_s = r.staging_s;
      SWAT_CUDA_CHECK(cudaStreamSynchronize(workers[0]->copy));
      timing.pack_s = seconds_since(t_pack);
      timing.prepare_s = seconds_since(t0);
      return;
    }
    if (timing.chunks > 1 || n > 1) {  // each chunk packed as it is uploaded (upload())
      if (const auto runs = runs_of(t, max_release_runs)) host.target_runs = runs->runs;
      timing.packed_on_upload = true;
      timing.pack_s = seconds_since(t_pack);
      reserve_border(*workers[0]);
      timing.prepare_s = seconds_since(t0);
      return;
    }
    host.columns = std::make_unique_for_overwrite<std::uint16_t[]>(std::max<std::size_t>(host.layout.total_columns, 1));
    pack_columns(host.layout, t, std::uint8_t(host.pad_rank), host.columns.get());
    timing.pack_s = seconds_since(t_pack);
    reserve_border(*workers[0]);
    timing.prepare_s = seconds_since(t0);
    if (timing.chunks == 1) {  // one chunk on one GPU: uploaded once, reused by every search
      const auto t1 = clock_type::now();
      workers[0]->upload(0, workers[0]->buffers[0]);
      SWAT_CUDA_CHECK(cudaStreamSynchronize(workers[0]->copy));
      timing.upload_s = seconds_since(t1);
    }
  }

  void reserve_border(device_worker& w) const {
    w.dev.make_current();
    w.border.reserve(std::max<std::size_t>(w.max_groups * std::size_t(longest) * sizeof(std::uint64_t), 256));
  }

  //! Worker w, made on its first call (its GPU's context, streams, kernels shapes and border
  //! rows); nullptr when its GPU has too little free memory for two of the chunks, or fails to
  //! start: it stays out for the scanner's life (the others scan its share; --timing says "took
  //! no chunk"), as the first GPU alone gives the same cells.
  device_worker* worker(std::size_t w) {
    if (!tried[w]) {
      tried[w] = 1;
      try {
        auto made = std::make_unique<device_worker>(host, host.options.devices[w]);
        if (made->budget() - std::int64_t(made->fixed_bytes(longest)) >= chunk_budget) {
          reserve_border(*made);
          workers[w] = std::move(made);
        }
      } catch (const std::exception&) {
        (void)cudaGetLastError();  // a start that failed leaves no sticky error for the others
      }
    }
    return workers[w].get();
  }

  void search(std::span<const residue_span> queries, std::span<best_cell> results, std::vector<pair_index>& rescan,
              const std::function<void(std::uint64_t)>& progress) {
    const auto t0 = clock_type::now();
    const std::size_t nt = host.targets.size();
    if (results.size() != queries.size() * nt) throw std::invalid_argument("dbsearch: results size");
    std::fill(results.begin(), results.end(), best_cell{});
    const std::size_t rescans_before = rescan.size();
    for (std::size_t q = 0; q < queries.size(); ++q)
      if (!queries[q].empty())
        for (std::size_t t : host.layout.skipped)
          rescan.push_back(host.options.transposed_results ? pair_index{t, q} : pair_index{q, t});
    std::atomic<int> next_chunk{0};
    timing.cells = 0;
    timing.joined.assign(workers.size(), -1.0);
    if (workers.size() == 1) {
      timing.cells = workers[0]->run(queries, results, rescan, progress, next_chunk);
      timing.joined[0] = 0;
      timing.worker_cells = {timing.cells};
    } else {
      // One host thread per device; results of different chunks are different cells.
      std::vector<std::vector<pair_index>> found(workers.size());
      std::vector<std::uint64_t> cells(workers.size());
      std::vector<std::exception_ptr> errors(workers.size());
      const int chunks = int(host.layout.chunks.size());
      // The later workers start their GPUs once the first GPU's first launch is enqueued (or it
      // has stopped, having taken every chunk or failed), and only while chunks are left.
      std::promise<void> first_launched;
      std::shared_future<void> first_launch = first_launched.get_future().share();
      std::once_flag released;
      const auto release = [&] { std::call_once(released, [&] { first_launched.set_value(); }); };
      // Tests (scan_options::later_workers_join_first): the first worker, after its first launch,
      // waits until every later worker has launched or stayed out, so that every worker scans.
      std::atomic<std::size_t> settled{0};
      std::size_t started = 1;  // worker 0 runs on this thread; the threads of 1 … started − 1
      const auto first_launch_done = [&] {
        release();
        if (host.options.later_workers_join_first)
          while (settled.load() + 1 < started) std::this_thread::yield();
      };
      const auto work = [&](std::size_t w) {
        bool counted = false;
        const auto settle = [&] {
          if (!counted) counted = true, settled.fetch_add(1);
        };
        try {
          if (w == 0) {
            struct on_exit {
              const decltype(release)& f;
              ~on_exit() { f(); }
            } releasing{release};
            try {
              cells[0] = workers[0]->run(queries, results, found[0], progress, next_chunk, first_launch_done);
            } catch (...) {
              next_chunk = chunks;  // before the others are released: they take nothing more
              throw;
            }
            timing.joined[0] = 0;
            return;
          }
          struct on_exit {
            const decltype(settle)& f;
            ~on_exit() { f(); }
          } settling{settle};
          first_launch.wait();
          if (next_chunk.load() >= chunks) return;  // nothing left: its GPU is not started
          device_worker* dw = worker(w);
          if (!dw) return;
          if (next_chunk.load() >= chunks) return;  // every chunk taken while it started
          timing.joined[w] = seconds_since(t0);
          cells[w] = dw->run(queries, results, found[w], progress, next_chunk, settle);
        } catch (...) {
          errors[w] = std::current_exception();
          next_chunk = chunks;  // the others stop after their chunk
        }
      };
      std::vector<std::thread> threads;
      threads.reserve(workers.size());
      try {
        for (; started < workers.size(); ++started) threads.emplace_back(work, started);
      } catch (...) {  // no thread to spare (or no memory for one): this thread runs the rest in turn
      }
      work(0);
      for (std::size_t w = started; w < workers.size(); ++w) work(w);
      for (std::thread& th : threads) th.join();
      for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
      for (std::size_t w = 0; w < workers.size(); ++w) {
        rescan.insert(rescan.end(), found[w].begin(), found[w].end());
        timing.cells += cells[w];
      }
      timing.worker_cells = cells;
    }
    timing.rescans = rescan.size() - rescans_before;
    timing.pipelined_batches = timing.shared_slice_batches = timing.shared_batches = 0;
    for (std::size_t w = 0; w < workers.size(); ++w) {
      if (!workers[w] || timing.joined[w] < 0) continue;  // (a worker that took no chunk keeps an older search's counts)
      timing.pipelined_batches += workers[w]->pipelined_batches;
      timing.shared_batches += workers[w]->shared_batches;
      timing.shared_slice_batches += workers[w]->shared_slice_batches;
    }
    timing.scan_s = seconds_since(t0);
  }
};

db_scanner::db_scanner(std::span<const residue_span> targets, const scoring_scheme& scheme, scan_options options) {
  if (!scan_supports(scheme))
    throw std::invalid_argument("dbsearch: the scheme does not fit the 16-bit scan (int8 scores, o + e ≤ 8192)");
  if ((options.group_lanes != 0 && options.group_lanes != 8 && options.group_lanes != 16 && options.group_lanes != 32) ||
      (options.rows_per_lane != 0 && options.rows_per_lane != 16 && options.rows_per_lane != 32))
    throw std::invalid_argument("dbsearch: group lanes 8|16|32 and rows per lane 16|32 (0: chosen per batch)");
  if (options.devices.empty()) throw std::invalid_argument("dbsearch: no device to scan on");
  if (options.max_target_length < 1 || options.max_target_length > (1 << 24))
    throw std::invalid_argument("dbsearch: max_target_length out of range");
  impl_ = std::make_unique<impl>(targets, scheme, options);
}

db_scanner::~db_scanner() = default;

void db_scanner::search(std::span<const residue_span> queries, std::span<best_cell> results,
                        std::vector<pair_index>& rescan, const std::function<void(std::uint64_t)>& progress) {
  impl_->search(queries, results, rescan, progress);
}

const scan_timing& db_scanner::timing() const { return impl_->timing; }

}  // namespace swat::dbsearch

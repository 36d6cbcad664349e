// db_scanner: the database packed once (pinned host memory), uploaded whole or chunk by chunk
// (copies on their own stream, overlapped with the previous chunk's scans), one persistent
// scan kernel per query and chunk, results mapped back to target order while the next query
// runs, 16-bit saturations and too-long targets handed back to the caller.

#include <algorithm>
#include <bit>
#include <tuple>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "cuda/common/cuda_check.cuh"
#include "cuda/engines/dbsearch/db_launch.cuh"
#include "cuda/engines/dbsearch/db_pack.hpp"
#include "cuda/engines/dbsearch/db_policy.cuh"
#include "cuda/engines/dbsearch/db_scan.hpp"

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

//! Device memory that only grows (freed before it grows).
class device_memory {
 public:
  device_memory() = default;
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
  ~device_memory() {
    if (ptr_) cudaFree(ptr_);
  }
  void reserve(std::size_t bytes) {
    if (bytes <= bytes_) return;
    if (ptr_) SWAT_CUDA_CHECK(cudaFree(ptr_));
    ptr_ = nullptr;
    bytes_ = 0;
    SWAT_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
    bytes_ = bytes;
  }
  template <typename T>
  T* as(std::size_t offset_bytes = 0) const {
    return reinterpret_cast<T*>(static_cast<char*>(ptr_) + offset_bytes);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

//! Page-locked host memory that only grows.
class pinned_memory {
 public:
  pinned_memory() = default;
  pinned_memory(const pinned_memory&) = delete;
  pinned_memory& operator=(const pinned_memory&) = delete;
  ~pinned_memory() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  void reserve(std::size_t bytes) {
    if (bytes <= bytes_) return;
    if (ptr_) SWAT_CUDA_CHECK(cudaFreeHost(ptr_));
    ptr_ = nullptr;
    bytes_ = 0;
    SWAT_CUDA_CHECK(cudaHostAlloc(&ptr_, bytes, cudaHostAllocDefault));
    bytes_ = bytes;
  }
  template <typename T>
  T* as(std::size_t offset_bytes = 0) const {
    return reinterpret_cast<T*>(static_cast<char*>(ptr_) + offset_bytes);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

std::size_t round_up(std::size_t x) { return (x + 255) / 256 * 256; }

//! Device copy of one chunk: columns, tasks, results.
struct chunk_buffer {
  device_memory memory;
  std::size_t tasks_offset = 0, results_offset = 0;
  int chunk = -1;  //!< chunk held, −1 none
  cudaEvent_t uploaded = nullptr, released = nullptr;
};

//! A query's results on their way back (pinned), mapped to target order once `ready` fires.
struct result_slot {
  pinned_memory host;
  cudaEvent_t ready = nullptr;
  std::size_t query = 0;
  int chunk = -1;  //!< −1: nothing pending
};

}  // namespace

struct db_scanner::impl {
  std::span<const residue_span> targets;
  scoring_scheme scheme;
  scan_options options;
  db_layout layout;
  // Every pair's columns, as in device memory. Pageable: pinning tens of MB costs more than the
  // staged copy saves (the copy engine still overlaps a chunk's upload with the previous scan).
  std::vector<std::uint16_t> columns;
  std::int32_t pad_rank = 0;
  int profile_rows = 0;
  int sms = 0;
  std::size_t max_groups_ = 0;  // border slots per launch (the widest shape)

  chunk_buffer buffers[2];
  result_slot slots[2];
  static constexpr int variants = 4;     // strip rows 128, 256, 512, 1024
  static constexpr int max_classes = 3;  // length classes of plan_classes
  pinned_memory profile_host[2][variants];
  cudaEvent_t profile_free[2] = {nullptr, nullptr};
  device_memory profile_device[2][variants];
  cudaStream_t class_streams[max_classes] = {};
  cudaEvent_t class_ready = nullptr, class_done[max_classes] = {};
  device_memory border;       // per group slot: longest pair's columns
  device_memory counters;     // queue head + cells done
  pinned_memory cells_host;
  cudaStream_t compute = nullptr, copy = nullptr, poll = nullptr;
  scan_timing timing;

  impl(std::span<const residue_span> t, const scoring_scheme& s, scan_options o)
      : targets(t), scheme(s), options(o) {
    SWAT_CUDA_CHECK(cudaSetDevice(options.device));
    SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(&poll, cudaStreamNonBlocking));
    for (auto& b : buffers) {
      SWAT_CUDA_CHECK(cudaEventCreateWithFlags(&b.uploaded, cudaEventDisableTiming));
      SWAT_CUDA_CHECK(cudaEventCreateWithFlags(&b.released, cudaEventDisableTiming));
    }
    for (auto& r : slots) SWAT_CUDA_CHECK(cudaEventCreateWithFlags(&r.ready, cudaEventDisableTiming));
    for (auto& e : profile_free) SWAT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (auto& st : class_streams) SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (auto& e : class_done) SWAT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    SWAT_CUDA_CHECK(cudaEventCreateWithFlags(&class_ready, cudaEventDisableTiming));
    prepare();
  }

  ~impl() {
    if (compute) cudaStreamSynchronize(compute);
    if (copy) cudaStreamSynchronize(copy);
    for (auto& b : buffers) {
      if (b.uploaded) cudaEventDestroy(b.uploaded);
      if (b.released) cudaEventDestroy(b.released);
    }
    for (auto& r : slots)
      if (r.ready) cudaEventDestroy(r.ready);
    for (auto& e : profile_free)
      if (e) cudaEventDestroy(e);
    for (auto& e : class_done)
      if (e) cudaEventDestroy(e);
    if (class_ready) cudaEventDestroy(class_ready);
    for (cudaStream_t st : class_streams)
      if (st) cudaStreamDestroy(st);
    for (cudaStream_t s : {compute, copy, poll})
      if (s) cudaStreamDestroy(s);
  }

  //! The shapes a search may use: the one of the options, or every one for auto (group
  //! width 8 only with a resident profile, where its many small groups need no block step).
  std::vector<std::pair<int, int>> candidates() const {
    std::vector<std::pair<int, int>> out;
    for (int g : {8, 16, 32})
      for (int r : {16, 32})
        if ((options.group_lanes == 0 || options.group_lanes == g) && (options.rows_per_lane == 0 || options.rows_per_lane == r))
          out.push_back({g, r});
    return out;
  }

  //! plan_launch for a runtime shape.
  launch_shape shape_of(int g, int r, std::int64_t m) const {
    return with_shape(g, r, [&]<int G, int R>() { return plan_launch<G, R>(options.device, m, profile_rows); });
  }

  //! Groups the widest launch can keep in flight (border slots).
  std::size_t max_groups() const {
    std::size_t most = 0;
    for (const auto& [g, r] : candidates())
      for (std::int64_t m : {std::int64_t(1), std::int64_t(1) << 30}) {
        const launch_shape s = shape_of(g, r, m);
        most = std::max(most, std::size_t(s.blocks) * std::size_t(s.groups_per_block));
      }
    return most;
  }

  //! The shape with the smallest modelled time for a query of m rows against a chunk: a step of
  //! a warp costs about a + b·R instructions (a: shuffles, loads, bookkeeping; b: one packed
  //! row); the whole chunk takes Σ strips·(n + G − 1)·G·(a + b·R) lane-instructions spread
  //! over the SMs (128 lanes issue per cycle), but no less than its longest pair on one warp
  //! that shares its scheduler with the other resident warps.
  std::pair<int, int> choose_shape(std::int64_t m, std::size_t columns, std::size_t tasks, std::int32_t longest_pair) const {
    constexpr double a = 30, b = 7;
    std::pair<int, int> best{0, 0};
    double best_cost = 0;
    for (const auto& [g, r] : candidates()) {
      const launch_shape s = shape_of(g, r, m);
      if (g == 8 && !s.resident && options.group_lanes == 0) continue;
      const double strips = double(strips_of(m, s.strip_rows));
      const double step = a + b * r;
      const double lane_instr = strips * (double(columns) + double(tasks) * (g - 1)) * g * step;
      const double warps_per_scheduler = double(s.blocks) / sms * (s.groups_per_block * g / 32) / 4;
      const double longest = strips * (double(longest_pair) + g - 1) * step * std::max(1.0, warps_per_scheduler);
      const double cost = std::max(lane_instr / (128.0 * sms), longest);
      if (best.first == 0 || cost < best_cost) {
        best = {g, r};
        best_cost = cost;
      }
    }
    return best;
  }

  //! Consecutive pairs of a chunk scanned by one launch with one shape.
  struct task_class {
    std::size_t first = 0, count = 0, columns = 0;  //!< pairs [first, first + count) of the chunk
    std::int32_t longest = 0;                       //!< columns of its longest pair
    int group_lanes = 0, rows_per_lane = 0;
  };

  //! The chunk's pairs cut into length classes (longest first: ≥ 512, 128…511, < 128 columns),
  //! each with the shape the cost model picks for it; neighbours with the same shape are one
  //! launch. Without length classes, one launch for the whole chunk.
  std::vector<task_class> plan_classes(std::int64_t m, const db_chunk& chunk) const {
    std::vector<task_class> out;
    const pair_task* tasks = layout.tasks.data() + chunk.first_task;
    std::size_t start = 0;
    for (const std::int32_t floor : {512, 128, 0}) {
      if (!options.length_classes && floor > 0) continue;
      task_class c;
      c.first = start;
      while (start < chunk.tasks && tasks[start].columns >= floor) c.columns += std::size_t(tasks[start++].columns);
      c.count = start - c.first;
      if (c.count == 0) continue;
      c.longest = tasks[c.first].columns;
      std::tie(c.group_lanes, c.rows_per_lane) = choose_shape(m, c.columns, c.count, c.longest);
      if (!out.empty() && out.back().group_lanes == c.group_lanes && out.back().rows_per_lane == c.rows_per_lane) {
        out.back().count += c.count;
        out.back().columns += c.columns;
      } else {
        out.push_back(c);
      }
    }
    return out;
  }

  void prepare() {
    const auto t0 = clock_type::now();
    pad_rank = scheme.size();
    profile_rows = scheme.size() + 1;
    SWAT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, options.device));
    std::size_t free_bytes = 0, total_bytes = 0;
    SWAT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    std::int64_t budget = std::int64_t(double(free_bytes) * 0.9);
    if (options.max_gpu_bytes > 0) budget = std::min(budget, options.max_gpu_bytes);
    std::int32_t longest = 0;
    for (const residue_span& t : targets)
      if (t.size() <= std::size_t(options.max_target_length)) longest = std::max(longest, std::int32_t(t.size()));
    // Border rows: every group of a launch, for the longest pair; the shorter length classes
    // (< 512 and < 128 columns) run beside it in slots of their own.
    max_groups_ = max_groups();
    const std::size_t border_bytes = max_groups_ * std::size_t(longest + (options.length_classes ? 511 + 127 : 0)) *
                                     sizeof(std::uint64_t);
    // Profiles of queries up to 64k residues stay inside the fixed part; longer ones add theirs.
    const std::size_t fixed = border_bytes + 2 * std::size_t(profile_rows) * 65536 + (8u << 20);
    const std::int64_t left = budget - std::int64_t(fixed);
    if (left < std::int64_t(2 * pair_bytes(std::size_t(longest)) + 4096))
      throw runtime_failure("dbsearch: the GPU memory budget (" + std::to_string(budget >> 20) +
                            " MiB) is too small for the database search (needs about " +
                            std::to_string((fixed + 2 * pair_bytes(std::size_t(longest))) >> 20) + " MiB)");
    // Offsets inside a chunk stay below 2^32 columns.
    // One buffer when the whole database fits, else two (one scanned while the next uploads).
    layout = plan_database(targets, options.max_target_length, std::min<std::size_t>(std::size_t(left), std::size_t(1) << 32));
    if (layout.chunks.size() > 1)
      layout = plan_database(targets, options.max_target_length, std::min<std::size_t>(std::size_t(left) / 2, std::size_t(1) << 32));
    columns.resize(layout.total_columns);
    pack_columns(layout, targets, std::uint8_t(pad_rank), columns.data());
    border.reserve(std::max<std::size_t>(border_bytes, 256));
    counters.reserve(256);  // cells done at 8, queue heads at 16 + 16·class
    cells_host.reserve(256);
    timing.prepare_s = seconds_since(t0);
    timing.chunks = layout.chunks.size();
    if (layout.chunks.size() == 1) {  // upload once, reused by every search
      const auto t1 = clock_type::now();
      upload(0, buffers[0]);
      SWAT_CUDA_CHECK(cudaStreamSynchronize(copy));
      timing.upload_s = seconds_since(t1);
    }
  }

  //! Copies chunk c into b on the copy stream (after b's previous scans released it).
  void upload(int c, chunk_buffer& b) {
    const db_chunk& chunk = layout.chunks[std::size_t(c)];
    const std::size_t col_bytes = round_up(chunk.columns * sizeof(std::uint16_t));
    b.tasks_offset = col_bytes;
    b.results_offset = b.tasks_offset + round_up(chunk.tasks * sizeof(pair_task));
    b.memory.reserve(b.results_offset + round_up(2 * chunk.tasks * sizeof(result_cell)));
    SWAT_CUDA_CHECK(cudaStreamWaitEvent(copy, b.released, 0));
    SWAT_CUDA_CHECK(cudaMemcpyAsync(b.memory.as<void>(), columns.data() + chunk.first_column,
                                    chunk.columns * sizeof(std::uint16_t), cudaMemcpyHostToDevice, copy));
    SWAT_CUDA_CHECK(cudaMemcpyAsync(b.memory.as<void>(b.tasks_offset), layout.tasks.data() + chunk.first_task,
                                    chunk.tasks * sizeof(pair_task), cudaMemcpyHostToDevice, copy));
    SWAT_CUDA_CHECK(cudaEventRecord(b.uploaded, copy));
    b.chunk = c;
  }

  //! Maps a finished slot's results to target order.
  void drain(result_slot& r, std::span<best_cell> results, std::vector<pair_index>& rescan) {
    if (r.chunk < 0) return;
    SWAT_CUDA_CHECK(cudaEventSynchronize(r.ready));
    const db_chunk& chunk = layout.chunks[std::size_t(r.chunk)];
    const result_cell* cells = r.host.as<result_cell>();
    const std::size_t nt = targets.size();
    for (std::size_t p = 0; p < chunk.tasks; ++p) {
      for (int half = 0; half < 2; ++half) {
        const std::size_t k = 2 * (chunk.first_task + p) + std::size_t(half);
        if (k >= layout.order.size()) continue;
        const std::size_t t = layout.order[k];
        const result_cell& c = cells[2 * p + std::size_t(half)];
        if (c.flags & flag_overflow) {
          rescan.push_back({r.query, t});
          results[r.query * nt + t] = best_cell{};
        } else {
          results[r.query * nt + t] = best_cell{c.score, c.query_end, c.target_end};
        }
      }
    }
    r.chunk = -1;
  }

  void search(std::span<const residue_span> queries, std::span<best_cell> results, std::vector<pair_index>& rescan,
              const std::function<void(std::uint64_t)>& progress) {
    SWAT_CUDA_CHECK(cudaSetDevice(options.device));
    const auto t0 = clock_type::now();
    const std::size_t nt = targets.size();
    if (results.size() != queries.size() * nt) throw std::invalid_argument("dbsearch: results size");
    std::fill(results.begin(), results.end(), best_cell{});
    for (std::size_t q = 0; q < queries.size(); ++q)
      if (!queries[q].empty())
        for (std::size_t t : layout.skipped) rescan.push_back({q, t});
    timing.cells = 0;
    timing.rescans = 0;
    const std::size_t rescans_before = rescan.size();
    std::uint64_t reported = 0;
    SWAT_CUDA_CHECK(cudaMemsetAsync(counters.as<void>(), 0, 256, compute));

    const std::int32_t score_limit = options.score_limit > 0 ? options.score_limit : 32767 - scheme.max_score();
    std::size_t launches = 0;
    const int chunks = int(layout.chunks.size());
    if (chunks > 1) upload(0, buffers[0]);
    for (int c = 0; c < chunks; ++c) {
      chunk_buffer& b = buffers[chunks == 1 ? 0 : c % 2];
      if (chunks > 1 && c + 1 < chunks) upload(c + 1, buffers[(c + 1) % 2]);
      SWAT_CUDA_CHECK(cudaStreamWaitEvent(compute, b.uploaded, 0));
      const db_chunk& chunk = layout.chunks[std::size_t(c)];
      for (std::size_t q = 0; q < queries.size(); ++q) {
        const residue_span query = queries[q];
        if (query.empty() || chunk.tasks == 0) continue;
        const std::size_t k = launches++ % 2;
        result_slot& slot = slots[k];
        drain(slot, results, rescan);  // the slot's previous query (two launches ago)
        scan_one(query, chunk, b, k, score_limit);
        slot.host.reserve(2 * chunk.tasks * sizeof(result_cell));
        SWAT_CUDA_CHECK(cudaMemcpyAsync(slot.host.as<void>(), b.memory.as<void>(b.results_offset),
                                        2 * chunk.tasks * sizeof(result_cell), cudaMemcpyDeviceToHost, compute));
        SWAT_CUDA_CHECK(cudaEventRecord(slot.ready, compute));
        slot.query = q;
        slot.chunk = c;
        report_progress(slots[(k + 1) % 2].ready, progress, reported);
      }
      SWAT_CUDA_CHECK(cudaEventRecord(b.released, compute));
    }
    for (result_slot& slot : slots) {
      report_progress(slot.ready, progress, reported);
      drain(slot, results, rescan);
    }
    SWAT_CUDA_CHECK(cudaStreamSynchronize(compute));
    report_progress(nullptr, progress, reported);
    timing.cells = reported;
    timing.rescans = rescan.size() - rescans_before;
    timing.scan_s = seconds_since(t0);
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

  //! Enqueues one query's scan of one chunk: its length classes run side by side on their own
  //! streams (a class whose pairs run out frees SMs for the next), joined on the compute stream.
  void scan_one(residue_span query, const db_chunk& chunk, chunk_buffer& b, std::size_t k, std::int32_t score_limit) {
    const std::int64_t m = std::int64_t(query.size());
    const std::vector<task_class> classes = plan_classes(m, chunk);
    // One profile per strip height in use; the host copies of this slot may still feed an
    // upload two launches back.
    SWAT_CUDA_CHECK(cudaEventSynchronize(profile_free[k]));
    bool built[variants] = {};
    for (const task_class& c : classes) {
      const int strip_rows = c.group_lanes * c.rows_per_lane;
      const int v = std::countr_zero(unsigned(strip_rows / 128));
      if (built[v]) continue;
      built[v] = true;
      const std::size_t bytes = std::size_t(strips_of(m, strip_rows)) * std::size_t(profile_rows) * std::size_t(strip_rows);
      profile_host[k][v].reserve(bytes);
      build_profile(query, scheme.matrix.data(), matrix_stride, scheme.size(), strip_rows, profile_host[k][v].as<std::int8_t>());
      profile_device[k][v].reserve(bytes);
      SWAT_CUDA_CHECK(cudaMemcpyAsync(profile_device[k][v].as<void>(), profile_host[k][v].as<void>(), bytes,
                                      cudaMemcpyHostToDevice, compute));
    }
    SWAT_CUDA_CHECK(cudaEventRecord(profile_free[k], compute));
    SWAT_CUDA_CHECK(cudaMemsetAsync(counters.as<void>(16), 0, 16 * max_classes, compute));  // queue heads
    const bool split = classes.size() > 1;
    if (split) SWAT_CUDA_CHECK(cudaEventRecord(class_ready, compute));

    std::size_t border_offset = 0;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      const task_class& tc = classes[c];
      cudaStream_t stream = split ? class_streams[c] : compute;
      if (split) SWAT_CUDA_CHECK(cudaStreamWaitEvent(stream, class_ready, 0));
      with_shape(tc.group_lanes, tc.rows_per_lane, [&]<int G, int R>() {
        const launch_shape shape = plan_launch<G, R>(options.device, m, profile_rows);
        scan_problem pb{};
        pb.d_profile = profile_device[k][std::countr_zero(unsigned(shape.strip_rows / 128))].as<std::int8_t>();
        pb.m = std::int32_t(m);
        pb.strips = std::int32_t(strips_of(m, shape.strip_rows));
        pb.profile_rows = profile_rows;
        pb.resident = shape.resident ? 1 : 0;
        pb.gap_open_extend = scheme.gap_open + scheme.gap_extend;
        pb.gap_extend = scheme.gap_extend;
        pb.score_limit = score_limit;
        pb.tasks = std::int32_t(tc.count);
        pb.d_residues = b.memory.as<std::uint16_t>();
        pb.d_tasks = b.memory.as<pair_task>(b.tasks_offset) + tc.first;
        const std::size_t slots = std::size_t(shape.blocks) * std::size_t(shape.groups_per_block);
        pb.d_border = border.as<std::uint64_t>() + border_offset;
        pb.border_columns = tc.longest;
        border_offset += max_groups_ * std::size_t(tc.longest);
        if (slots > max_groups_ || border_offset * sizeof(std::uint64_t) > border.bytes())
          throw std::logic_error("dbsearch: border rows exceed their allocation");
        pb.d_result = b.memory.as<result_cell>(b.results_offset) + 2 * tc.first;
        pb.d_queue = counters.as<std::uint32_t>(16 + 16 * c);
        pb.use_queue = options.task_queue ? 1 : 0;
        pb.d_cells_done = counters.as<unsigned long long>(8);
        launch_scan<G, R>(pb, shape, stream);
      });
      if (split) SWAT_CUDA_CHECK(cudaEventRecord(class_done[c], stream));
    }
    if (split)
      for (std::size_t c = 0; c < classes.size(); ++c) SWAT_CUDA_CHECK(cudaStreamWaitEvent(compute, class_done[c], 0));
  }
};

db_scanner::db_scanner(std::span<const residue_span> targets, const scoring_scheme& scheme, scan_options options) {
  if (!scan_supports(scheme))
    throw std::invalid_argument("dbsearch: the scheme does not fit the 16-bit scan (int8 scores, o + e ≤ 8192)");
  if ((options.group_lanes != 0 && options.group_lanes != 8 && options.group_lanes != 16 && options.group_lanes != 32) ||
      (options.rows_per_lane != 0 && options.rows_per_lane != 16 && options.rows_per_lane != 32))
    throw std::invalid_argument("dbsearch: group lanes 8|16|32 and rows per lane 16|32 (0: chosen per query)");
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

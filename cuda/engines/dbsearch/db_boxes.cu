// The hits' boxes aligned on the GPU (see db_boxes.hpp): warps fill the boxes strip by strip, a thread walks each.

#include "cuda/engines/dbsearch/db_boxes.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>

#include <cuda/atomic>

#include "common/traceback.hpp"
#include "cuda/common/cuda_check.cuh"
#include "cuda/common/device_buffer.hpp"
#include "cuda/common/launch.cuh"

namespace swat::dbsearch {

namespace {

constexpr int box_lanes = 32;                      // lanes of a strip's warp
constexpr int rows_per_lane = 4;                   // rows each lane fills, one below the other
constexpr int strip_rows = box_lanes * rows_per_lane;  // rows per strip
constexpr int fill_warps = 8;                      // warps of a fill block
constexpr std::int32_t minus_infinity = INT_MIN / 4;  // far below any score, no overflow when lowered
constexpr unsigned all_lanes = 0xffffffffu;
//! How long a strip waits for the strip above before giving up (20 s at 2 GHz).
constexpr long long watchdog_cycles = 40'000'000'000LL;

struct box_task {
  std::uint64_t codes = 0;    //!< the box's codes: strips × (columns + 31) × strip_rows bytes
  std::uint64_t border = 0;   //!< its border row (H, F of each column), in int2
  std::uint64_t residues = 0; //!< its query residues, then its target residues
  std::uint64_t ops = 0;      //!< its CIGAR runs (at most rows + columns), in uint32
  std::int64_t first_strip = 0;  //!< the ticket of its strip 0 (the batch's strips are numbered box by box)
  std::int32_t rows = 0, columns = 0, score = 0, pad = 0;
};

struct box_result {
  std::int32_t status = 0;  //!< 1: walked; 0: the last cell did not reach the score; 2: the walk failed
  std::int32_t runs = 0;
  std::int32_t query_begin = 0, target_begin = 0;
  std::uint64_t run_at = 0;  //!< where its runs are in the batch's packed runs
};

//! The byte of cell (row, column)'s code. A strip's step s is one 32-bit word per lane (lane l's
//! rows_per_lane codes of column s − l, its first row in the lowest byte), the warp's words side
//! by side: each step is one coalesced write of strip_rows bytes.
__host__ __device__ inline std::uint64_t code_index(const box_task& t, std::int64_t row, std::int64_t column) {
  const std::int64_t strip = row / strip_rows, within = row % strip_rows;
  const std::int64_t lane = within / rows_per_lane, r = within % rows_per_lane;
  return t.codes + std::uint64_t(((strip * (std::int64_t(t.columns) + box_lanes - 1) + column + lane) * box_lanes + lane) *
                                     rows_per_lane + r);
}

//! Strips of a box of `rows` rows.
__host__ __device__ inline std::int64_t strips_of(std::int64_t rows) { return (rows + strip_rows - 1) / strip_rows; }

//! The box of a strip's ticket: the last box whose first strip is at most the ticket.
__device__ inline int box_of_ticket(const box_task* tasks, int count, std::int64_t ticket) {
  int lo = 0, hi = count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (tasks[mid].first_strip <= ticket) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

//! Every strip of strip_rows rows of every box of the batch, one warp per strip, handed out in
//! order by a ticket (boxes most cells first, a box's strips one after the other), so that a
//! box's strips run on many warps of many blocks at once, each a few columns behind the one
//! above. Within a strip, lane l fills rows_per_lane rows, one below the other: at step s it
//! computes column s − l of its rows (the first from the values the lane above handed down, each
//! next from the one above it, so a step costs the warp's shuffles once for rows_per_lane cells);
//! it hands down the H and F of its last row, and lane 0 takes them from the box's border row
//! (strip 0: the zero row), which lane 31 rewrites for the next strip.
//!
//! The border row is handed down through global memory: fronts[ticket] counts the columns whose
//! border values the strip has written, published by lane 31 every 32 columns with a
//! device-scope release store after its border stores; the next strip's lanes wait for it with
//! acquire loads until the columns of their next prefetch are there, so a strip trails the one
//! above by at least 64 columns, never reads a value before it is written nor after the next
//! strip rewrote it (that strip writes column c only after reading it). No deadlock without
//! co-residency: a warp waits only for a smaller ticket, taken by a warp that already runs, and
//! the smallest unfinished ticket never waits. A wait that outlasts watchdog_cycles gives up,
//! sets *stalled, and every other wait then gives up too: those boxes are not reached (the
//! caller aligns them otherwise).
__global__ void __launch_bounds__(box_lanes * fill_warps)
    fill_strips(const box_task* tasks, int count, std::int64_t strips_total, const std::uint8_t* residues,
                const std::int32_t* matrix, std::int32_t gap_open_extend, std::int32_t gap_extend, std::uint8_t* codes,
                int2* borders, std::int32_t* fronts, std::int32_t* reached, unsigned long long* next_ticket,
                std::int32_t* stalled, long long watchdog_cycles) {
  __shared__ std::int32_t sub[matrix_stride * matrix_stride];
  for (int k = int(threadIdx.x); k < matrix_stride * matrix_stride; k += int(blockDim.x)) sub[k] = matrix[k];
  __syncthreads();
  const int lane = int(threadIdx.x) % box_lanes;
  ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device> gave_up(*stalled);
  for (;;) {
    unsigned long long taken = 0;
    if (lane == 0) taken = atomicAdd(next_ticket, 1ULL);
    const std::int64_t ticket = std::int64_t(__shfl_sync(all_lanes, taken, 0));
    if (ticket >= strips_total) return;
    const int box = box_of_ticket(tasks, count, ticket);
    const box_task t = tasks[box];
    const int s = int(ticket - t.first_strip);
    const std::uint8_t* query = residues + t.residues;
    const std::uint8_t* target = query + t.rows;
    int2* border = borders + t.border;
    // Waits until strip s − 1 has written the border values of columns [0, columns); the
    // answer is the warp's (every lane's acquire, then a vote).
    std::int32_t seen = s == 0 ? INT_MAX : 0;
    const auto wait_for = [&](std::int32_t columns) {
      bool ok = true;
      if (seen < columns) {
        ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device> above(fronts[ticket - 1]);
        const long long start = clock64();
        while ((seen = above.load(::cuda::std::memory_order_acquire)) < columns) {
          if (gave_up.load(::cuda::std::memory_order_relaxed) != 0 || clock64() - start > watchdog_cycles) {
            gave_up.store(1, ::cuda::std::memory_order_relaxed);
            ok = false;
            break;
          }
        }
      }
      return __all_sync(all_lanes, ok);
    };
    const int first_row = s * strip_rows + lane * rows_per_lane;  // this lane's rows: first_row + r
    const bool in_box = first_row < t.rows;
    // The substitution rows of this lane's residues (a row past the box's end: any row; its
    // values are never read, as its strip is the box's last).
    const std::int32_t* sub_row[rows_per_lane];
#pragma unroll
    for (int r = 0; r < rows_per_lane; ++r)
      sub_row[r] = sub + (first_row + r < t.rows ? int(query[first_row + r]) : 0) * matrix_stride;
    std::uint32_t* strip_codes =
        reinterpret_cast<std::uint32_t*>(codes + code_index(t, std::int64_t(s) * strip_rows, 0));
    std::int32_t h_left[rows_per_lane], e_left[rows_per_lane];  // H(i, j−1), E(i, j−1): column 0 is the border
#pragma unroll
    for (int r = 0; r < rows_per_lane; ++r) {
      h_left[r] = 0;
      e_left[r] = minus_infinity;
    }
    std::int32_t h_up_left = 0;                        // H(first_row − 1, j−1)
    std::int32_t h_mine = 0, f_mine = minus_infinity;  // the last row's, handed down next step
    std::uint8_t residue = 0;                          // the target residue of this lane's column
    // Lane 0 reads the border row and the target one column per step: the warp loads them 32
    // columns at a time, a chunk ahead (lane l holds column base + l), off the critical path.
    const auto border_at = [&](int c) { return s == 0 ? make_int2(0, minus_infinity) : border[c]; };
    int2 ahead_border = make_int2(0, minus_infinity), chunk_border;
    int ahead_residue = 0, chunk_residue;
    if (!wait_for(min(box_lanes, t.columns))) return;
    if (lane < t.columns) {
      ahead_border = border_at(lane);
      ahead_residue = target[lane];
    }
    const int steps = t.columns + box_lanes - 1;
    ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device> mine(fronts[ticket]);
    for (int step = 0; step < steps; ++step) {
      const int slot = step % box_lanes;
      if (slot == 0) {
        chunk_border = ahead_border;
        chunk_residue = ahead_residue;
        if (!wait_for(min(step + 2 * box_lanes, t.columns))) return;
        const int next = step + box_lanes + lane;
        if (next < t.columns) {
          ahead_border = border_at(next);
          ahead_residue = target[next];
        }
      }
      const std::int32_t h_from_lane = __shfl_up_sync(all_lanes, h_mine, 1);
      const std::int32_t f_from_lane = __shfl_up_sync(all_lanes, f_mine, 1);
      const std::uint8_t residue_from_lane = std::uint8_t(__shfl_up_sync(all_lanes, int(residue), 1));
      const std::int32_t h_from_row = __shfl_sync(all_lanes, chunk_border.x, slot);
      const std::int32_t f_from_row = __shfl_sync(all_lanes, chunk_border.y, slot);
      const std::uint8_t residue_from_row = std::uint8_t(__shfl_sync(all_lanes, chunk_residue, slot));
      const int column = step - lane;
      if (column < 0 || column >= t.columns || !in_box) continue;
      std::int32_t h_up, f_up;
      if (lane == 0) {
        h_up = h_from_row;
        f_up = f_from_row;
        residue = residue_from_row;
      } else {
        h_up = h_from_lane;
        f_up = f_from_lane;
        residue = residue_from_lane;
      }
      std::int32_t h_diag = h_up_left;  // H(i−1, j−1) of the row being filled
      h_up_left = h_up;
      std::uint32_t word = 0;
#pragma unroll
      for (int r = 0; r < rows_per_lane; ++r) {
        const std::int32_t diag = h_diag + sub_row[r][residue];
        const std::int32_t e_open = h_left[r] - gap_open_extend, e_ext = e_left[r] - gap_extend;
        const std::int32_t f_open = h_up - gap_open_extend, f_ext = f_up - gap_extend;
        const std::int32_t e = max(e_open, e_ext), f = max(f_open, f_ext);
        const std::int32_t h = max(max(0, diag), max(e, f));
        word |= std::uint32_t(make_code(h, diag, e, e_open, e_ext, f_open, f_ext)) << (8 * r);
        h_diag = h_left[r];
        h_left[r] = h;
        e_left[r] = e;
        h_up = h;
        f_up = f;
      }
      strip_codes[std::int64_t(step) * box_lanes + lane] = word;
      h_mine = h_up;
      f_mine = f_up;
      if (lane == box_lanes - 1) {
        border[column] = make_int2(h_up, f_up);
        if (slot == box_lanes - 1 || column == t.columns - 1)  // columns 0 … column written
          mine.store(column + 1, ::cuda::std::memory_order_release);
      }
    }
    // The lane of the box's last row holds that row's H of the last column.
    const int last = t.rows - 1 - first_row;
    if (last >= 0 && last < rows_per_lane) {
      std::int32_t h_last = 0;
#pragma unroll
      for (int r = 0; r < rows_per_lane; ++r)
        if (r == last) h_last = h_left[r];
      reached[box] = h_last == t.score ? 1 : 0;
    }
  }
}

//! One thread per box: walk_traceback()'s rules from the last cell, runs written last first.
//! Each box's runs are then copied to the batch's packed runs at a place taken by atomicAdd on
//! *packed_count (recorded in its result), so that only the runs written come back to the host
//! (10,000 gene boxes: a few MB instead of the 160 MB their worst cases reserve).
__global__ void walk_boxes(const box_task* tasks, int count, const std::uint8_t* codes, const std::int32_t* reached,
                           std::uint32_t* ops, std::uint32_t* packed, unsigned long long* packed_count,
                           box_result* results) {
  const int box = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (box >= count) return;
  const box_task t = tasks[box];
  box_result r{};
  if (reached[box] != 1) {
    results[box] = r;
    return;
  }
  std::int64_t i = t.rows, j = t.columns;
  enum { in_h, in_e, in_f } state = in_h;
  std::uint32_t op = 3, length = 0;  // op: 0 M, 1 I, 2 D; 3 none yet
  std::int32_t runs = 0;
  const auto emit = [&](std::uint32_t next) {
    if (next == op) {
      ++length;
      return;
    }
    if (length > 0) ops[t.ops + std::uint64_t(runs++)] = (length << 2) | op;
    op = next;
    length = 1;
  };
  while (i > 0 && j > 0) {
    const std::uint8_t code = codes[code_index(t, i - 1, j - 1)];
    if (state == in_h) {
      const std::uint8_t source = code & code_h_mask;
      if (source == code_zero) break;
      if (source == code_diag) {
        emit(0);
        --i;
        --j;
      } else {
        state = source == code_e ? in_e : in_f;
      }
    } else if (state == in_e) {
      emit(2);
      if (code & code_e_open) state = in_h;
      --j;
    } else {
      emit(1);
      if (code & code_f_open) state = in_h;
      --i;
    }
  }
  if (length > 0) ops[t.ops + std::uint64_t(runs++)] = (length << 2) | op;
  r.status = state == in_h ? 1 : 2;
  r.runs = runs;
  if (r.status == 1) {  // a failed walk's runs are not read
    r.run_at = atomicAdd(packed_count, static_cast<unsigned long long>(runs));
    for (std::int32_t u = 0; u < runs; ++u) packed[r.run_at + std::uint64_t(u)] = ops[t.ops + std::uint64_t(u)];
  }
  r.query_begin = std::int32_t(i);
  r.target_begin = std::int32_t(j);
  results[box] = r;
}

//! Device bytes of one box: codes, border row, residues, its runs and their packed copy, task,
//! result, reached flag, its strips' fronts, and 256 bytes of alignment for each of its arrays.
std::uint64_t box_bytes(std::int64_t rows, std::int64_t columns) {
  const std::uint64_t strips = std::uint64_t(strips_of(rows));
  return strips * std::uint64_t(columns + box_lanes - 1) * strip_rows + std::uint64_t(columns) * sizeof(int2) +
         std::uint64_t(rows + columns) * (1 + 2 * sizeof(std::uint32_t)) + sizeof(box_task) + sizeof(box_result) +
         sizeof(std::int32_t) + strips * sizeof(std::int32_t) + 11 * 256;  // the batch's 11 arrays, aligned
}

}  // namespace

std::vector<alignment> align_boxes(std::span<const residue_span> queries, std::span<const residue_span> targets,
                                   std::span<const std::int32_t> scores, const scoring_scheme& scheme,
                                   const cuda::device_context& dev, std::uint64_t budget_bytes, box_seconds* seconds) {
  using clock = std::chrono::steady_clock;
  const auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  const std::size_t n = queries.size();
  if (targets.size() != n || scores.size() != n) throw std::invalid_argument("align_boxes: sizes");
  std::vector<alignment> out(n);
  box_seconds spent;
  if (n == 0) {
    if (seconds) *seconds = spent;
    return out;
  }
  for (std::size_t k = 0; k < n; ++k)
    if (queries[k].empty() || targets[k].empty() || queries[k].size() > INT32_MAX / 2 || targets[k].size() > INT32_MAX / 2 ||
        double(queries[k].size()) * double(targets[k].size()) > max_gpu_box_cells)
      throw std::invalid_argument("align_boxes: a box is empty or too large");
  dev.make_current();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return double(queries[a].size()) * double(targets[a].size()) > double(queries[b].size()) * double(targets[b].size());
  });
  cuda::device_buffer memory;
  std::vector<std::int32_t> matrix(scheme.matrix.begin(), scheme.matrix.end());
  // A stream of its own that does not wait for the others: the pair engines may align the
  // largest boxes at the same time.
  struct own_stream {
    cudaStream_t stream = nullptr;
    own_stream() { SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
    own_stream(const own_stream&) = delete;
    own_stream& operator=(const own_stream&) = delete;
    ~own_stream() {
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
    }
  } own;
  const cudaStream_t stream = own.stream;
  struct three_events {  // before the fill, after it, after the walk
    cudaEvent_t at[3] = {};
    three_events() {
      for (cudaEvent_t& e : at) SWAT_CUDA_CHECK(cudaEventCreate(&e));
    }
    three_events(const three_events&) = delete;
    three_events& operator=(const three_events&) = delete;
    ~three_events() {
      for (cudaEvent_t e : at)
        if (e) cudaEventDestroy(e);
    }
  } marks;
  for (std::size_t first = 0; first < n;) {
    auto t0 = clock::now();
    // The batch: boxes in order while their bytes fit the budget (one at least).
    std::size_t last = first;
    std::uint64_t bytes = 0;
    while (last < n) {
      const std::uint64_t b = box_bytes(std::int64_t(queries[order[last]].size()), std::int64_t(targets[order[last]].size()));
      if (last > first && bytes + b > budget_bytes) break;
      bytes += b;
      ++last;
    }
    const std::size_t count = last - first;
    std::vector<box_task> tasks(count);
    std::uint64_t codes = 0, border = 0, residues = 0, ops = 0;
    std::int64_t strips = 0;
    for (std::size_t b = 0; b < count; ++b) {
      const std::size_t k = order[first + b];
      box_task& t = tasks[b];
      t.rows = std::int32_t(queries[k].size());
      t.columns = std::int32_t(targets[k].size());
      t.score = scores[k];
      t.codes = codes;
      t.border = border;
      t.residues = residues;
      t.ops = ops;
      t.first_strip = strips;
      strips += strips_of(t.rows);
      codes += std::uint64_t(strips_of(t.rows)) * std::uint64_t(t.columns + box_lanes - 1) * strip_rows;
      border += std::uint64_t(t.columns);
      residues += std::uint64_t(t.rows) + std::uint64_t(t.columns);
      ops += std::uint64_t(t.rows) + std::uint64_t(t.columns);
    }
    cuda::buffer_layout layout;
    const std::size_t at_matrix = layout.add(matrix.size() * sizeof(std::int32_t));
    const std::size_t at_tasks = layout.add(count * sizeof(box_task));
    const std::size_t at_residues = layout.add(std::size_t(residues));
    const std::size_t upload_bytes = at_residues + std::size_t(residues);
    // Zeroed: the next ticket, the watchdog's flag, the packed runs' count, reached, the strips' fronts.
    const std::size_t at_ticket = layout.add(3 * sizeof(unsigned long long));
    const std::size_t at_reached = layout.add(count * sizeof(std::int32_t));
    const std::size_t at_fronts = layout.add(std::size_t(strips) * sizeof(std::int32_t));
    const std::size_t zeroed_bytes = at_fronts + std::size_t(strips) * sizeof(std::int32_t) - at_ticket;
    const std::size_t at_results = layout.add(count * sizeof(box_result));
    const std::size_t at_ops = layout.add(std::size_t(ops) * sizeof(std::uint32_t));
    const std::size_t at_packed = layout.add(std::size_t(ops) * sizeof(std::uint32_t));
    const std::size_t at_border = layout.add(std::size_t(border) * sizeof(int2));
    const std::size_t at_codes = layout.add(std::size_t(codes));
    std::vector<std::uint8_t> image(upload_bytes, 0);
    std::memcpy(image.data() + at_matrix, matrix.data(), matrix.size() * sizeof(std::int32_t));
    std::memcpy(image.data() + at_tasks, tasks.data(), count * sizeof(box_task));
    for (std::size_t b = 0; b < count; ++b) {
      const std::size_t k = order[first + b];
      std::uint8_t* to = image.data() + at_residues + tasks[b].residues;
      std::copy(queries[k].begin(), queries[k].end(), to);
      std::copy(targets[k].begin(), targets[k].end(), to + queries[k].size());
    }
    spent.host += since(t0);
    t0 = clock::now();
    memory.reserve(layout.bytes());
    spent.reserve += since(t0);
    SWAT_CUDA_CHECK(cudaMemcpyAsync(memory.as<void>(), image.data(), upload_bytes, cudaMemcpyHostToDevice, stream));
    SWAT_CUDA_CHECK(cudaMemsetAsync(memory.as<void>(at_ticket), 0, zeroed_bytes, stream));
    SWAT_CUDA_CHECK(cudaEventRecord(marks.at[0], stream));
    const auto* d_tasks = memory.as<box_task>(at_tasks);
    auto* d_ticket = memory.as<unsigned long long>(at_ticket);
    auto* d_stalled = reinterpret_cast<std::int32_t*>(d_ticket + 1);
    auto* d_packed_count = d_ticket + 2;
    std::int32_t* d_reached = memory.as<std::int32_t>(at_reached);
    // Persistent warps (at most what the device holds at once, at most a warp per strip) take
    // the strips by ticket.
    const int resident = cuda::max_coresident_blocks(dev, fill_strips, box_lanes * fill_warps, 0);
    const std::int64_t wanted = (strips + fill_warps - 1) / fill_warps;
    const unsigned fill_blocks = unsigned(std::max<std::int64_t>(1, std::min<std::int64_t>(resident, wanted)));
    fill_strips<<<fill_blocks, box_lanes * fill_warps, 0, stream>>>(
        d_tasks, int(count), strips, memory.as<std::uint8_t>(at_residues), memory.as<std::int32_t>(at_matrix),
        scheme.gap_open + scheme.gap_extend, scheme.gap_extend, memory.as<std::uint8_t>(at_codes),
        memory.as<int2>(at_border), memory.as<std::int32_t>(at_fronts), d_reached, d_ticket, d_stalled, watchdog_cycles);
    SWAT_CUDA_CHECK_LAUNCH();
    SWAT_CUDA_CHECK(cudaEventRecord(marks.at[1], stream));
    constexpr unsigned walk_threads = 128;
    walk_boxes<<<unsigned((count + walk_threads - 1) / walk_threads), walk_threads, 0, stream>>>(
        d_tasks, int(count), memory.as<std::uint8_t>(at_codes), d_reached,
        memory.as<std::uint32_t>(at_ops), memory.as<std::uint32_t>(at_packed), d_packed_count,
        memory.as<box_result>(at_results));
    SWAT_CUDA_CHECK_LAUNCH();
    SWAT_CUDA_CHECK(cudaEventRecord(marks.at[2], stream));
    std::int32_t stalled = 0;
    SWAT_CUDA_CHECK(cudaMemcpyAsync(&stalled, d_stalled, sizeof stalled, cudaMemcpyDeviceToHost, stream));
    unsigned long long packed = 0;
    SWAT_CUDA_CHECK(cudaMemcpyAsync(&packed, d_packed_count, sizeof packed, cudaMemcpyDeviceToHost, stream));
    std::vector<box_result> results(count);
    SWAT_CUDA_CHECK(cudaMemcpyAsync(results.data(), memory.as<void>(at_results), count * sizeof(box_result),
                                    cudaMemcpyDeviceToHost, stream));
    SWAT_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (packed > ops) throw std::logic_error("align_boxes: more runs than the boxes hold");
    // Only the runs written come back (not each box's worst case), and are not zeroed first.
    const std::unique_ptr<std::uint32_t[]> runs(new std::uint32_t[std::size_t(packed)]);
    SWAT_CUDA_CHECK(cudaMemcpyAsync(runs.get(), memory.as<void>(at_packed), std::size_t(packed) * sizeof(std::uint32_t),
                                    cudaMemcpyDeviceToHost, stream));
    SWAT_CUDA_CHECK(cudaStreamSynchronize(stream));
    spent.gpu += since(t0);
    float fill_ms = 0, walk_ms = 0;
    SWAT_CUDA_CHECK(cudaEventElapsedTime(&fill_ms, marks.at[0], marks.at[1]));
    SWAT_CUDA_CHECK(cudaEventElapsedTime(&walk_ms, marks.at[1], marks.at[2]));
    spent.fill += double(fill_ms) / 1e3;
    spent.walk += double(walk_ms) / 1e3;
    spent.watchdog = spent.watchdog || stalled != 0;
    t0 = clock::now();
    for (std::size_t b = 0; b < count; ++b) {
      const std::size_t k = order[first + b];
      const box_result& r = results[b];
      if (r.status != 1) continue;  // score 0: the caller aligns it
      alignment& a = out[k];
      a.score = scores[k];
      a.query_begin = r.query_begin;
      a.target_begin = r.target_begin;
      a.query_end = tasks[b].rows;
      a.target_end = tasks[b].columns;
      a.ops.reserve(std::size_t(r.runs));
      static constexpr char names[3] = {'M', 'I', 'D'};
      for (std::int32_t u = r.runs - 1; u >= 0; --u) {
        const std::uint32_t run = runs[std::size_t(r.run_at) + std::size_t(u)];
        push_op(a.ops, names[run & 3], run >> 2);
      }
    }
    spent.host += since(t0);
    ++spent.batches;
    first = last;
  }
  if (seconds) *seconds = spent;
  return out;
}

}  // namespace swat::dbsearch

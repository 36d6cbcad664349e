// Packing a chunk of the database straight into device memory (see db_upload.cuh).

#include "cuda/engines/dbsearch/db_upload.cuh"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/host_pages.hpp"
#include "cuda/common/cuda_check.cuh"
#include "cuda/common/device_buffer.hpp"
#include "cuda/engines/dbsearch/db_memory.cuh"

namespace swat::dbsearch {
namespace {

//! Where fill put slice s and how many bytes it wrote.
struct staged_slice {
  void* device = nullptr;
  std::size_t bytes = 0;
};

//! Writes `slices` slices to the device through page-locked slots of slot_bytes: up to `threads`
//! host threads (at most 8), two slots each; fill(s, stage) writes slice s into stage and says
//! where it goes. Returns once every copy has completed; failures as pack_and_upload.
void staged_upload(std::size_t slices, std::size_t slot_bytes,
                   const std::function<staged_slice(std::size_t, void*)>& fill, const cuda::device_context& dev,
                   cudaStream_t stream, unsigned threads, upload_report* report) {
  if (report) report->slices = slices;
  if (slices == 0) return;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = std::clamp<std::size_t>(threads, 1, std::min<std::size_t>(8, slices));
  dev.make_current();
  const auto t0 = std::chrono::steady_clock::now();
  pinned_memory staging;
  staging.reserve(2 * workers * slot_bytes);
  if (report) report->staging_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<cudaEvent_t> copied(2 * workers, nullptr);
  std::vector<char> pending(2 * workers, 0);  // a slot's copy was queued and not yet waited for
  std::atomic<std::size_t> next{0};
  std::exception_ptr failed;
  std::mutex failed_mutex;
  const auto work = [&](std::size_t w) {
    try {
      dev.make_current();
      int use = 0;
      for (std::size_t s; (s = next.fetch_add(1)) < slices; use ^= 1) {
        const std::size_t slot = 2 * w + std::size_t(use);
        if (pending[slot]) SWAT_CUDA_CHECK(cudaEventSynchronize(copied[slot]));
        pending[slot] = 0;
        void* stage = staging.as<char>(slot * slot_bytes);
        const staged_slice to = fill(s, stage);
        SWAT_CUDA_CHECK(cudaMemcpyAsync(to.device, stage, to.bytes, cudaMemcpyHostToDevice, stream));
        SWAT_CUDA_CHECK(cudaEventRecord(copied[slot], stream));
        pending[slot] = 1;
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(failed_mutex);
      if (!failed) failed = std::current_exception();
      next.store(slices);
    }
  };
  try {
    for (cudaEvent_t& e : copied) SWAT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  } catch (...) {
    for (cudaEvent_t e : copied)
      if (e) cudaEventDestroy(e);
    throw;
  }
  std::vector<std::thread> helpers;
  try {
    helpers.reserve(workers - 1);
    for (std::size_t w = 1; w < workers; ++w) helpers.emplace_back(work, w);
  } catch (...) {  // no thread to spare: the helpers started and this one take every slice
  }
  if (report) report->threads = helpers.size() + 1;
  work(0);
  for (std::thread& h : helpers) h.join();
  // The staging slots stay page-locked until every queued copy from them has completed.
  const cudaError_t synced = cudaStreamSynchronize(stream);
  for (cudaEvent_t e : copied) cudaEventDestroy(e);
  if (failed) std::rethrow_exception(failed);
  SWAT_CUDA_CHECK(synced);
}

//! Writes the columns of the chunk's pairs (rank A | rank B << 8, pad_rank past B's end) from
//! the runs' bytes: d_at holds each pair's two offsets in d_runs. A block per pair at a time.
//! A byte that is no rank (≥ pad_rank: the residues are not those the reader checked, a mapped
//! volume rewritten in place) is written as pad_rank, never used as an index, and raises *d_bad.
__global__ void pack_pairs_kernel(const std::uint8_t* d_runs, const std::uint64_t* d_at, const pair_task* d_tasks,
                                  std::size_t pairs, std::uint8_t pad_rank, std::uint16_t* d_columns,
                                  unsigned* d_bad) {
  for (std::size_t p = blockIdx.x; p < pairs; p += gridDim.x) {
    const pair_task t = d_tasks[p];
    const std::uint8_t* a = d_runs + d_at[2 * p];
    const std::uint8_t* b = d_runs + d_at[2 * p + 1];
    std::uint16_t* out = d_columns + t.offset;
    bool bad = false;
    for (std::int32_t j = std::int32_t(threadIdx.x); j < t.columns; j += std::int32_t(blockDim.x)) {
      std::uint8_t ra = a[j], rb = j < t.length_b ? b[j] : pad_rank;
      bad |= ra >= pad_rank || rb > pad_rank;
      ra = ra < pad_rank ? ra : pad_rank;
      rb = rb < pad_rank ? rb : pad_rank;
      out[j] = std::uint16_t(ra | (std::uint16_t(rb) << 8));
    }
    if (bad) atomicOr(d_bad, 1u);
  }
}

}  // namespace

void pack_and_upload(const db_layout& layout, std::span<const residue_span> targets, std::uint8_t pad_rank,
                     std::size_t c, std::uint16_t* device_columns, const cuda::device_context& dev,
                     cudaStream_t stream, unsigned threads, upload_report* report) {
  const db_chunk& chunk = layout.chunks.at(c);
  // Slices: consecutive pairs of about upload_slice_columns columns; cuts[s] is slice s's first pair.
  std::vector<std::size_t> cuts{chunk.first_task};
  std::size_t widest = 0, columns = 0;
  const std::size_t end = chunk.first_task + chunk.tasks;
  for (std::size_t p = chunk.first_task; p < end; ++p) {
    columns += std::size_t(layout.tasks[p].columns);
    if (columns >= upload_slice_columns || p + 1 == end) {
      cuts.push_back(p + 1);
      widest = std::max(widest, columns);
      columns = 0;
    }
  }
  const auto first_column = [&](std::size_t s) {
    return cuts[s] < end ? std::size_t(layout.tasks[cuts[s]].offset) : chunk.columns;
  };
  if (report) *report = upload_report{};
  staged_upload(
      cuts.size() - 1, widest * sizeof(std::uint16_t),
      [&](std::size_t s, void* stage) {
        pack_pairs(layout, targets, pad_rank, cuts[s], cuts[s + 1], static_cast<std::uint16_t*>(stage));
        const std::size_t from = first_column(s), to = first_column(s + 1);
        return staged_slice{device_columns + from, (to - from) * sizeof(std::uint16_t)};
      },
      dev, stream, threads, report);
}

std::optional<target_runs> runs_of(std::span<const residue_span> targets, std::size_t max_runs) {
  target_runs out;
  out.at.resize(targets.size());
  const std::uint8_t* run_end = nullptr;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const residue_span r = targets[t];
    if (r.empty()) {  // no bytes to place (never read: a pair's B of length 0 is padding)
      out.at[t] = out.bytes;
      continue;
    }
    if (out.runs.empty() || r.data() != run_end) {
      if (out.runs.size() == max_runs) return std::nullopt;
      out.runs.push_back(r);
    } else {
      out.runs.back() = residue_span(out.runs.back().data(), out.runs.back().size() + r.size());
    }
    out.at[t] = out.bytes;
    out.bytes += r.size();
    run_end = r.data() + r.size();
  }
  return out;
}

std::size_t runs_scratch_bytes(const target_runs& runs, const db_chunk& chunk) {
  return cuda::align_up(std::size_t(runs.bytes), 256) + 2 * chunk.tasks * sizeof(std::uint64_t) + 256;
}

void upload_runs_and_pack(const db_layout& layout, const target_runs& runs, std::uint8_t pad_rank, std::size_t c,
                          std::uint16_t* device_columns, const pair_task* d_tasks, void* scratch,
                          const cuda::device_context& dev, cudaStream_t stream, unsigned threads,
                          upload_report* report) {
  const db_chunk& chunk = layout.chunks.at(c);
  auto* d_runs = static_cast<std::uint8_t*>(scratch);
  auto* d_at = reinterpret_cast<std::uint64_t*>(d_runs + cuda::align_up(std::size_t(runs.bytes), 256));
  auto* d_bad = reinterpret_cast<unsigned*>(d_at + 2 * chunk.tasks);
  // Slices of the runs, cut at multiples of upload_run_slice_bytes of the host's addresses.
  struct piece {
    const std::uint8_t* host;
    std::size_t bytes;
    std::uint64_t at;  //!< its first byte in the runs laid end to end
  };
  std::vector<piece> pieces;
  std::uint64_t at = 0;
  for (const residue_span& r : runs.runs) {
    const std::uint8_t* p = r.data();
    const std::uint8_t* const end = r.data() + r.size();
    while (p < end) {
      const auto next = (reinterpret_cast<std::uintptr_t>(p) / upload_run_slice_bytes + 1) * upload_run_slice_bytes;
      const std::size_t bytes = std::min<std::size_t>(std::size_t(end - p), next - reinterpret_cast<std::uintptr_t>(p));
      pieces.push_back({p, bytes, at});
      p += bytes, at += bytes;
    }
  }
  if (report) *report = upload_report{};
  std::atomic<std::size_t> dropped{0};
  staged_upload(
      pieces.size(), upload_run_slice_bytes,
      [&](std::size_t s, void* stage) {
        const piece& p = pieces[s];
        std::memcpy(stage, p.host, p.bytes);
        dropped.fetch_add(host_pages::release(p.host, p.bytes));
        return staged_slice{d_runs + p.at, p.bytes};
      },
      dev, stream, threads, report);
  // Each pair's offsets: A's, then B's (0 when it has none).
  std::vector<std::uint64_t> pair_at(2 * chunk.tasks, 0);
  for (std::size_t p = 0; p < chunk.tasks; ++p)
    for (std::size_t half = 0; half < 2; ++half) {
      const std::size_t k = 2 * (chunk.first_task + p) + half;
      if (k < layout.order.size()) pair_at[2 * p + half] = runs.at[layout.order[k]];
    }
  dev.make_current();
  SWAT_CUDA_CHECK(cudaMemcpyAsync(d_at, pair_at.data(), pair_at.size() * sizeof(std::uint64_t), cudaMemcpyHostToDevice,
                                  stream));
  SWAT_CUDA_CHECK(cudaMemsetAsync(d_bad, 0, sizeof(unsigned), stream));
  if (chunk.tasks > 0) {
    const unsigned blocks = unsigned(std::min<std::size_t>(chunk.tasks, std::size_t(dev.sm_count()) * 16));
    pack_pairs_kernel<<<blocks, 128, 0, stream>>>(d_runs, d_at, d_tasks, chunk.tasks, pad_rank, device_columns, d_bad);
    SWAT_CUDA_CHECK_LAUNCH();
  }
  unsigned bad = 0;
  SWAT_CUDA_CHECK(cudaMemcpyAsync(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost, stream));
  SWAT_CUDA_CHECK(cudaStreamSynchronize(stream));  // pair_at is pageable memory of this call
  if (bad != 0)
    throw runtime_failure("dbsearch: a target holds a byte that is no residue rank of the scheme (a database volume "
                          "rewritten while it was searched?)");
  if (report) {
    report->runs = runs.runs.size();
    report->dropped_bytes = dropped.load();
  }
}

}  // namespace swat::dbsearch

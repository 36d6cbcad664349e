// Packing a chunk of the database straight into device memory (see db_upload.cuh).

#include "cuda/engines/dbsearch/db_upload.cuh"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "cuda/common/cuda_check.cuh"
#include "cuda/engines/dbsearch/db_memory.cuh"

namespace swat::dbsearch {

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
  const std::size_t slices = cuts.size() - 1;
  if (report) *report = upload_report{slices, 0, 0.0};
  if (slices == 0) return;
  const auto first_column = [&](std::size_t s) {
    return cuts[s] < end ? std::size_t(layout.tasks[cuts[s]].offset) : chunk.columns;
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = std::clamp<std::size_t>(threads, 1, std::min<std::size_t>(8, slices));
  const std::size_t slot_bytes = widest * sizeof(std::uint16_t);
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
        auto* stage = staging.as<std::uint16_t>(slot * slot_bytes);
        pack_pairs(layout, targets, pad_rank, cuts[s], cuts[s + 1], stage);
        const std::size_t from = first_column(s), to = first_column(s + 1);
        SWAT_CUDA_CHECK(cudaMemcpyAsync(device_columns + from, stage, (to - from) * sizeof(std::uint16_t),
                                        cudaMemcpyHostToDevice, stream));
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

}  // namespace swat::dbsearch

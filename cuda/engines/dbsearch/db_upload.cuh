#pragma once
// A chunk of the packed database written straight into device memory, two ways:
// - pack_and_upload: host threads pack slices of its pairs into page-locked staging slots and
//   copy each to the GPU while they pack the next, so that the host never holds the chunk's
//   columns whole (a 615 M-residue protein database: 1.2 GB of columns that would otherwise be
//   packed into fresh pageable memory, then copied);
// - upload_runs_and_pack: targets that lie in a few runs of adjacent memory (a prepared
//   database's mapped volumes) go to the GPU as they are, run by run, and a kernel packs the
//   columns there. The host reads every residue once, in file order, and drops the pages of a
//   mapped volume as soon as they are copied (common/host_pages.hpp), so that the database's
//   residues never sit whole in the host's memory; packing in length order would read every
//   page of the volumes many times over, all of them resident at the end.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <cuda_runtime_api.h>

#include "common/sequence.hpp"
#include "cuda/common/device_context.hpp"
#include "cuda/engines/dbsearch/db_pack.hpp"

namespace swat::dbsearch {

//! Columns of a slice (the last pair of a slice may take it past this; a pair is never cut).
inline constexpr std::size_t upload_slice_columns = std::size_t(1) << 20;
//! Bytes of a slice of runs (upload_runs_and_pack); slices end at multiples of it in the host's
//! address space, so that a slice's pages are whole.
inline constexpr std::size_t upload_run_slice_bytes = std::size_t(1) << 22;

//! What pack_and_upload or upload_runs_and_pack did.
struct upload_report {
  std::size_t slices = 0;
  std::size_t threads = 0;  //!< host threads that packed or copied (those the system gave)
  double staging_s = 0;     //!< page-locking the staging slots
  std::size_t runs = 0;     //!< runs of adjacent targets uploaded (0: packed on the host)
  std::size_t dropped_bytes = 0;  //!< host pages of mapped volumes dropped once copied
};

//! Packs chunk c of layout into device memory at device_columns (the chunk's column 0), as
//! pack_columns would write it, through page-locked slices copied on `stream`; up to `threads`
//! host threads (0: every core; at most 8: on the H100 machine's 16 cores the x500 database's
//! 294 slices took 0.08 s on 8 threads as on 16, whose slots took twice as long to page-lock,
//! 0.12 s on 4; bench/results/db_upload_slices_h100.txt), two staging slots each. Returns once every copy has
//! completed. Any failure (a CUDA error, a thread or page-locked memory refused) is thrown after
//! the copies already queued completed.
void pack_and_upload(const db_layout& layout, std::span<const residue_span> targets, std::uint8_t pad_rank,
                     std::size_t c, std::uint16_t* device_columns, const cuda::device_context& dev,
                     cudaStream_t stream, unsigned threads = 0, upload_report* report = nullptr);

//! Targets laid out in runs of adjacent memory, as upload_runs_and_pack copies them.
struct target_runs {
  std::vector<residue_span> runs;   //!< the runs, in target order
  std::vector<std::uint64_t> at;    //!< per target: its first byte in the runs laid end to end
  std::uint64_t bytes = 0;          //!< bytes of every run
};

//! The runs of targets (each target starts where the one before it ends, or a run starts
//! there), when there are at most max_runs of them; nullopt when there are more (targets each in
//! memory of their own: records built one by one, windows of long targets).
std::optional<target_runs> runs_of(std::span<const residue_span> targets, std::size_t max_runs);

//! Device bytes upload_runs_and_pack needs beside the chunk's columns (the runs and the pairs'
//! offsets in them).
std::size_t runs_scratch_bytes(const target_runs& runs, const db_chunk& chunk);

//! Writes what pack_and_upload writes for chunk c, from runs (runs_of(targets)): the runs'
//! bytes go to scratch (runs_scratch_bytes of device memory) through page-locked slices, each
//! slice's whole host pages dropped once copied where they belong to a mapped volume; the
//! chunk's pairs' offsets follow, then a kernel writes the columns from them. d_tasks: the
//! chunk's tasks on the device (layout.tasks[chunk.first_task …]). threads, report, failures:
//! as pack_and_upload.
void upload_runs_and_pack(const db_layout& layout, const target_runs& runs, std::uint8_t pad_rank, std::size_t c,
                          std::uint16_t* device_columns, const pair_task* d_tasks, void* scratch,
                          const cuda::device_context& dev, cudaStream_t stream, unsigned threads = 0,
                          upload_report* report = nullptr);

}  // namespace swat::dbsearch

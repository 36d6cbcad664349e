#pragma once
// A chunk of the packed database written straight into device memory: host threads pack slices
// of its pairs into page-locked staging slots and copy each to the GPU while they pack the next,
// so that the host never holds the chunk's columns whole (a 615 M-residue protein database:
// 1.2 GB of columns that would otherwise be packed into fresh pageable memory, then copied).

#include <cstddef>
#include <cstdint>
#include <span>

#include <cuda_runtime_api.h>

#include "common/sequence.hpp"
#include "cuda/common/device_context.hpp"
#include "cuda/engines/dbsearch/db_pack.hpp"

namespace swat::dbsearch {

//! Columns of a slice (the last pair of a slice may take it past this; a pair is never cut).
inline constexpr std::size_t upload_slice_columns = std::size_t(1) << 20;

//! What pack_and_upload did.
struct upload_report {
  std::size_t slices = 0;
  std::size_t threads = 0;  //!< host threads that packed (those the system gave)
  double staging_s = 0;  //!< page-locking the staging slots
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

}  // namespace swat::dbsearch

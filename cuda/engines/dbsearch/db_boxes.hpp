#pragma once
// The hits' boxes (db_align.hpp) aligned on the GPU, many at once (plain C++ face).
//
// A box ends at its hit's best cell: the alignment is the one that ends at the box's last cell
// (bottom right) with the hit's score, and no other cell of the box reaches that score
// (db_align.hpp's proof). The boxes are filled in strips of 128 rows, one warp per strip (four
// rows per lane, one below the other; the last row's values passed down the lanes, the strip's
// last row handed to the next strip through global memory): the strips are handed out by
// ticket, a box's one after the other, so a large box runs on many warps of many blocks at once,
// each strip a few columns behind the one above. The fill writes the 4-bit cell codes of
// common/traceback.hpp in strip-major, step-major order (each step's 128 codes, a byte each, are
// one coalesced write); then one thread per box walks the codes back from the last cell with the
// rules of walk_traceback() and
// writes the CIGAR's runs. The alignments are those of the CPU engine (same codes, same walk).
// Boxes go in batches within a byte budget,
// the most cells first.

#include <cstdint>
#include <span>
#include <vector>

#include "common/alignment.hpp"
#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "cuda/common/device_context.hpp"

namespace swat::dbsearch {

//! Boxes of more cells than this are left to the pair engine (one warp would take too long).
inline constexpr double max_gpu_box_cells = double(std::int64_t(1) << 27);

//! Where the time of align_boxes went (seconds).
struct box_seconds {
  double host = 0;  //!< packing the residues and tasks, building the alignments
  double gpu = 0;   //!< uploads, the fill and walk kernels, downloads
  double reserve = 0;  //!< of which the device buffer's allocation (host clock)
  double fill = 0;     //!< of which the fill kernels ran (GPU clock)
  double walk = 0;     //!< of which the walk kernels ran (GPU clock)
  std::size_t batches = 0;
  bool watchdog = false;  //!< a strip waited too long (its box then counts as not reached)
};

//! The alignment of each box (queries[k] × targets[k], in box coordinates) that ends at its
//! last cell with scores[k]; an alignment of score 0 where the fill did not reach scores[k]
//! there (cannot happen for a box from the reverse pass; the caller aligns such a box itself).
//! Each box has at most max_gpu_box_cells cells and at most 2^31 − 1 rows and columns. Batches
//! stay within budget_bytes of device memory (one box at least).
std::vector<alignment> align_boxes(std::span<const residue_span> queries, std::span<const residue_span> targets,
                                   std::span<const std::int32_t> scores, const scoring_scheme& scheme,
                                   const cuda::device_context& dev, std::uint64_t budget_bytes,
                                   box_seconds* seconds = nullptr);

}  // namespace swat::dbsearch

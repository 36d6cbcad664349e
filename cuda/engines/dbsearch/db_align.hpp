#pragma once
// Alignments of the reported hits of a database search, in batches (plain C++ face).
//
// A hit is known by its best cell e = (i_e, j_e) and score S. Every local alignment inside the
// prefixes query[0, i_e) × target[0, j_e) that scores S ends at e (every other cell there comes
// before e in the tie order, and e is the first cell reaching S), so on the reversed prefixes
// the cells where the local H equals S are exactly the begins of the optimal alignments that
// end at e (read backwards). One GPU pass over all hits at once (reach mode of the scan kernel,
// 16-bit, one warp per hit) finds the largest such reversed row and column: the box
// [i_e − row, i_e) × [j_e − column, j_e) holds every optimal path into e, the reference's among
// them. Aligned alone (zero borders) the box gives the reference's alignment exactly: the
// proof of engine/cpu_traceback.hpp holds for any rectangle that contains the path, and no
// other cell of the box reaches S. Boxes are usually the size of the alignment itself.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "cuda/common/device_context.hpp"
#include "engine/cpu_reach.hpp"  // box_extent, pruned_reach (the CPU reverse pass of weak hits)

namespace swat::dbsearch {

//! The ends of a hit's prefixes that hold every alignment of its score ending at its best cell:
//! with a aligned pairs (a ≤ min(m, n)) and g residues opposite gaps, S ≤ max_s · a − e · g, so
//! g ≤ (max_s · min(m, n) − S) / e and each side spans at most min(m, n) + g residues (no bound
//! when e = 0). Returns `prefixes` cut to that many last residues; `others` are the other sides.
//! reach_window's bound for one hit: the most residues of either prefix (lengths m and n) an
//! alignment of `score` ending at the best cell can span; INT64_MAX when e = 0 (no bound).
std::int64_t reach_span(std::int64_t m, std::int64_t n, std::int32_t score, const scoring_scheme& scheme);

//! The DP cells of a hit's reverse pass: its prefixes cut to reach_span.
double reach_cells(std::int64_t m, std::int64_t n, std::int32_t score, const scoring_scheme& scheme);

std::vector<residue_span> reach_window(std::span<const residue_span> prefixes, std::span<const residue_span> others,
                                       std::span<const std::int32_t> scores, const scoring_scheme& scheme);

//! The reverse pass takes its hits in batches of at most this many columns (32-bit offsets in
//! the batch) and about this many bytes of host and device image (reversed profiles and
//! columns; the border rows come on top: the kernel's groups × the batch's longest window).
inline constexpr std::uint64_t reach_batch_columns = std::uint64_t(1) << 31;
inline constexpr std::uint64_t reach_batch_bytes = std::uint64_t(1) << 30;

//! The reverse pass: for hit k, query_prefixes[k] and target_prefixes[k] end at its best cell
//! and scores[k] is its score (> 0, ≤ 32767 − max score, the prefixes' product at most
//! max_hit_cells). Returns the boxes in hit order; reads only the reach_window of each prefix,
//! in batches (reach_batch_columns, batch_bytes: tests lower it). Needs scan_supports(scheme). When `seconds`
//! is given it receives the host's share (reversed profiles and columns, on every core) and the
//! GPU's (upload, kernel, results).
struct reach_seconds {
  double host = 0;
  double gpu = 0;
};
std::vector<box_extent> reverse_reach(std::span<const residue_span> query_prefixes,
                                      std::span<const residue_span> target_prefixes,
                                      std::span<const std::int32_t> scores, const scoring_scheme& scheme,
                                      const cuda::device_context& dev, reach_seconds* seconds = nullptr,
                                      std::uint64_t batch_bytes = reach_batch_bytes);

//! Hits whose reverse pass (reach_cells) is larger than this go to the pair engine: one warp
//! would take too long.
inline constexpr double max_hit_cells = double(std::int64_t(1) << 29);

//! The cells pruned_reach may visit for a hit whose reach window is too large for the GPU's
//! reverse pass, before the hit goes to the pair engine whole (about 20 ms on one core).
inline constexpr std::uint64_t max_pruned_cells = std::uint64_t(1) << 24;

//! Hits whose reach window has at least this many cells skip the reverse pass (one warp's walk
//! over the window) and are aligned in the whole window, which the box fill spreads over many
//! warps (db_boxes.hpp); the window holds the hit's box, so the alignment is the same. Since the
//! boxes bring back only the runs written, 2^20 (was 2^22): all_vs_all's 10,000 hits on the H100
//! 0.112-0.155 s at 2^22, 0.091-0.102 s at 2^20, 0.092-0.107 s with every window a box
//! (bench/results/db_direct_boxes_h100.txt).
inline constexpr double direct_box_min_cells = double(std::int64_t(1) << 20);

}  // namespace swat::dbsearch

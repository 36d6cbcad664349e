#pragma once
// The reverse pass of one hit on the CPU: from its best cell back over only the cells from which
// a path into that cell keeps a positive score, to the box of its optimal alignments (the CPU
// engine's weak hits in long prefixes, and the database engine's, db_align.hpp).

#include <cstdint>
#include <optional>

#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"

namespace swat {

//! Rows and columns of a hit's box, counted back from its best cell (0: not found).
struct box_extent {
  std::int64_t rows = 0;
  std::int64_t columns = 0;
};

//! The reverse pass of one hit over only the cells from which a path into its best cell keeps a
//! positive score: the rows and columns of the optimal alignments' begins, counted back from the
//! best cell (the box of the database engine's GPU reverse pass, db_align.hpp, whose argument
//! makes the box's alignment the whole pair's). The prefixes end at the best cell. A cell of an
//! optimal path keeps S minus the score of the path's part before it, which is less than S (no
//! other cell of the prefixes reaches S), so pruning every value ≤ 0 leaves every optimal path
//! whole. A weak hit of a long query (a score of 60 at 28 kb into a 40 kb gene: a reach window
//! of 1.6e9 cells) touches a few thousand cells; a strong one a band as wide as its score
//! allows. nullopt when it would visit more than max_cells cells, when a path into the best cell
//! scores above `score` (not the hit's best score: no box from here), or when no path reaches
//! it. Needs gap_extend > 0 to end (the callers' condition; with 0 a gap's chain never falls to
//! 0 and the budget ends it).
std::optional<box_extent> pruned_reach(residue_span query_prefix, residue_span target_prefix, std::int32_t score,
                                       const scoring_scheme& scheme, std::uint64_t max_cells);

}  // namespace swat

#pragma once
// Tall, thin pairs (one side ~10^5 or more residues, the other a few thousand at most) scanned
// as overlapping windows of the long side, each an independent pair, so that an engine spreads
// them over its threads (or SMs) instead of walking one narrow wavefront.
//
// Exact, by a bound on how far an alignment reaches along the long side. A local alignment with
// P aligned pairs (P ≤ s, the short length) scores at most P · max_score, and its gaps on the
// long side (G residues) cost more than ge · G, so a positive score needs G < s · max_score / ge:
// it covers fewer than overlap = s + ⌈s · max_score / ge⌉ + 1 residues of the long side. Windows
// overlap by that much, so every alignment lies whole in some window, where it scores the same;
// no window scores more than the whole (its DP only loses paths). The best score is the windows'
// best, and the cells that reach it are the same, so the tie rule (common/traceback.hpp), which
// does not change under a shift along the long side, picks the same end cell. The alignment is
// then computed on the last `overlap` residues of the long side before that end cell: every
// optimal path into the end cell lies there, and every cell such a path may pass holds its
// whole-matrix values, so the traceback takes the same path.
//
// A database engine (scans_first) gets all windows of a long side in one search, as its targets:
// a long query's windows too when the substitution scores are symmetric (the best score does not
// change when query and target swap sides, but the tie rule does, so the windows that reach the
// best score are scored again the right way round).

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/engine.hpp"

namespace swat {

//! When and how a pair is cut (per engine kind).
struct window_limits {
  std::int64_t min_long = 262144;      //!< the long side has at least this many residues
  std::int64_t min_ratio = 16;         //!< and at least this many times the short side
  std::int64_t min_width = 1 << 16;    //!< windows at least this long (and ≥ overlaps_wide × overlap)
  std::int64_t overlaps_wide = 4;      //!< windows at least this many overlaps wide (2 at least)
  std::int64_t max_width = 1 << 20;    //!< … at most this long when the windows are targets
  std::int64_t max_query_width = 16384;  //!< … and this long when they are queries
  //! At least this many windows (narrower ones, down to overlaps_wide × overlap, when the long side is
  //! shorter than min_windows full widths), else the pair stays whole (a database engine's
  //! search() counts the tasks of a group instead: short sides sharing the long side × windows);
  //! a database engine's scan
  //! fills the GPU only with many targets, and its pair engine runs a few windows one by one.
  std::int64_t min_windows = 1;
  //! A database engine's own target limit (0: none). Windows as its targets stay within it when
  //! that costs at most a quarter of each window in overlap, or when the engine cannot scan the
  //! other way round (asymmetric scores, short sides longer than the limit); otherwise they are
  //! overlaps_wide overlaps wide (up to max_width) and the engine scans the short sides as its
  //! database.
  std::int64_t scan_target_limit = 0;
  //! For an engine that is not a database engine (its score_many runs pairs on threads): a tall
  //! pair stays whole when it holds at most 1 / (2 · share_threads) of a batch's cells, as
  //! its threads are kept busy without its windows (whose overlaps cost cells), and the tall
  //! pairs of a batch whose long sides are targets all stay whole when a list schedule of the
  //! pairs on share_threads threads ends sooner whole than with their windows (as many reads as
  //! threads against a genome); 0: always cut.
  std::int64_t share_threads = 0;
  //! A database engine's (query, target) tasks that keep its GPUs busy at once (0: unknown). A
  //! search of windows with fewer than twice as many windows × short sides (the scan pairs two
  //! windows, or two short sides, a task) takes windows three, then two overlaps wide.
  std::int64_t fill_tasks = 0;
  //! For an engine that scores a short side's windows (as targets) in SIMD lanes together (the
  //! CPU engine's inter-sequence batches): the lanes of a batch (0: none). Windows that would
  //! leave lanes of their last round idle (27 windows of a read's genome in 32 lanes) are made
  //! narrower, as many as fill that round, where that costs fewer columns in all: ⌈n / lanes⌉
  //! rounds of the window width.
  std::int64_t lane_multiple = 0;
  bool enabled = true;
};

//! The overlap of consecutive windows for short sides of short_len residues (the reach bound
//! above); 0 when there is no bound (gap extension or best score 0).
std::int64_t window_overlap(std::int64_t short_len, const scoring_scheme& scheme);

//! How far back along the long side from an end cell an alignment of `score` ending there can
//! reach, when it ends at residue short_end of the short side (0: no bound). Its P ≤ short_end
//! aligned pairs score at most P · max_score, and its G gap residues on the long side cost at
//! least ge · G, so score ≤ short_end · max_score − ge · G: it covers at most short_end + G ≤
//! short_end + ⌊(short_end · max_score − score) / ge⌋ residues of the long side, fewer than this.
//! The alignment of a hit with a known best cell is computed in that many residues before it
//! (when fewer than the windows' overlap): every optimal path into the end cell lies there, and
//! every cell such a path passes holds its whole-matrix value (its best prefix is a prefix of that
//! path), as in the windows' argument above. E.g. a 40,103-residue gene whose copy scored 70,000
//! (DNA 2/−3/5/2): 45,207 residues instead of the overlap's 80,207.
std::int64_t window_reach_of_score(std::int64_t short_end, std::int32_t score, const scoring_scheme& scheme);

//! Windows of a long side: starts (ascending), each window `width` long but the last, which
//! ends at the long side's end; consecutive windows share `overlap` residues.
struct window_plan {
  std::int64_t overlap = 0;
  std::int64_t width = 0;
  std::vector<std::int64_t> starts;
};

//! The windows for a pair whose long side has long_len residues (the query when long_is_query)
//! and whose short side short_len; nullopt when the pair should stay whole (not tall and thin
//! enough, or the bound leaves no room: gap extension 0, windows capped below 2 × overlap).
std::optional<window_plan> plan_windows(std::int64_t long_len, std::int64_t short_len, bool long_is_query,
                                        const scoring_scheme& scheme, const window_limits& limits);

//! inner wrapped so that its tall, thin pairs run as windows (score_only, align, score_many,
//! align_many); everything else goes to inner unchanged.
std::unique_ptr<engine> with_windows(std::unique_ptr<engine> inner, window_limits limits);

}  // namespace swat

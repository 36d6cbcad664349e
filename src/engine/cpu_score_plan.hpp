#pragma once
// How the CPU engine's score_many runs a set of pairs: the targets of each query in batches of
// the inter-sequence 8-bit pass (cpu_interseq.hpp), or pair by pair (the striped passes), by an
// estimate of the time each takes on the engine's threads.
//
// Cost model, in units of one step of the 64-lane pass: a batch costs m · (its packed columns,
// packed_columns: about Σ lengths / lanes, at least its longest target) · the step cost of its
// width (one step scores a cell of every lane), a pair m · n / 16 · pair_step_cost (the 16-bit
// striped pass scores 16 cells a step). The targets of a query are sorted by length, longest
// first; a batch holds one to eight lanes' worth of them, fewer once its cost passes a quarter
// of a thread's share of the work, and a target more than twice as long as the mean of the
// lane width of targets from it, whose lane would make its batch outlast that, runs alone (row
// bands or striped, where that ends sooner); a query's targets go in batches of the width that costs least, when that costs less in total than its
// pairs (few targets fill few lanes). A pair alone runs in row bands (cpu_bands.hpp) where they
// fit: m · (n + lanes) / lanes steps of bands_step_cost. Then the whole plan is compared with every pair run alone
// on the threads by its makespan, max(total / threads, longest item): a few batches of long
// windows leave threads idle that their pairs would use.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/cpu_interseq.hpp"
#include "engine/engine.hpp"

namespace swat::cpu {

//! Relative time of one step of the inter-sequence pass with `lanes` lanes (measured on an EPYC
//! with AVX-512, whose 512-bit operations take two 256-bit halves: a 32-lane step costs about
//! half a 64-lane one) and of a step of the striped 16-bit pass of one pair.
inline constexpr double inter_step_cost(int lanes) { return lanes == 64 ? 1.0 : 0.52; }
//! … of one step of the band pass (a table lookup more per cell than the batches' profile).
//! Single-thread CPU time on the dev VM's EPYC: batches 33 GCUPS in 64 lanes, 32 in 32; bands
//! 24 in 64, 22 in 32 (DNA, 5 kb × 20–65 kb).
inline constexpr double bands_step_cost(int lanes) { return lanes == 64 ? 1.4 : 0.75; }
inline constexpr double pair_step_cost = 1.5;

//! How an item is scored: a batch of targets of one query in 8-bit lanes (cpu_interseq.hpp),
//! one pair in 8-bit lanes of row bands (cpu_bands.hpp), or one pair by the striped passes.
enum class item_kind { batch, bands, pair };

//! One unit of work: a batch of targets of one query, or one pair.
struct score_item {
  item_kind kind = item_kind::pair;
  int lanes = 0;          //!< lanes of a batch or of bands (32 or 64)
  std::size_t first = 0;  //!< into score_plan::order: order[first, first + count) are its jobs
  std::size_t count = 1;  //!< jobs of the item (1 for a pair)
  double cost = 0;        //!< estimated vector steps
};

//! The plan: items longest first (they are taken in this order), job indices in `order`.
struct score_plan {
  std::vector<score_item> items;
  std::vector<std::size_t> order;
  interseq_scheme scheme8;  //!< the 8-bit scheme of the batches
  int lanes = 0;            //!< the widest lanes of a batch or bands (0: none)
};

//! The plan of jobs on `threads` threads with batches of at most `lanes` lanes (64: 64 or 32;
//! 32: 32; 0: pairs only) and
//! budget_bytes of memory per worker (a batch that needs more runs as pairs).
score_plan plan_scores(std::span<const pair_job> jobs, const scoring_scheme& scheme, int lanes, unsigned threads,
                       std::size_t budget_bytes);

}  // namespace swat::cpu

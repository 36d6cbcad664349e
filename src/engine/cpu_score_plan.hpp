#pragma once
// How the CPU engine's score_many runs a set of pairs: the targets of each query in batches of
// the inter-sequence 8-bit pass (cpu_interseq.hpp), or pair by pair (the striped passes), by an
// estimate of the time each takes on the engine's threads.
//
// Cost model, in vector steps: a batch costs m · (its longest target) · inter_step_cost (one
// step scores a cell of every lane), a pair m · n / 16 · pair_step_cost (the 16-bit striped
// pass scores 16 cells a step). The targets of a query are sorted by length, longest first, so a
// batch holds targets of similar lengths. A query's targets go in batches when that costs less
// in total than its pairs (few targets fill few lanes); then the whole plan is compared with
// every pair run alone on the threads by its makespan, max(total / threads, longest item): a few
// batches of long windows leave threads idle that their pairs would use.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/cpu_interseq.hpp"
#include "engine/engine.hpp"

namespace swat::cpu {

//! Relative time of one step of the inter-sequence pass and of the striped 16-bit pass.
inline constexpr double inter_step_cost = 1.0;
inline constexpr double pair_step_cost = 1.5;

//! One unit of work: a batch of targets of one query, or one pair.
struct score_item {
  bool batch = false;     //!< order[first, first + count) are the batch's jobs; else one pair
  std::size_t first = 0;  //!< into score_plan::order
  std::size_t count = 1;  //!< jobs of the item (1 for a pair)
  double cost = 0;        //!< estimated vector steps
};

//! The plan: items longest first (they are taken in this order), job indices in `order`.
struct score_plan {
  std::vector<score_item> items;
  std::vector<std::size_t> order;
  interseq_scheme scheme8;  //!< the 8-bit scheme of the batches
  int lanes = 0;            //!< lanes of the batches (0: none)
};

//! The plan of jobs on `threads` threads with `lanes` inter-sequence lanes (0: pairs only) and
//! budget_bytes of memory per worker (a batch that needs more runs as pairs).
score_plan plan_scores(std::span<const pair_job> jobs, const scoring_scheme& scheme, int lanes, unsigned threads,
                       std::size_t budget_bytes);

}  // namespace swat::cpu

#pragma once
// One fill cut into bands of consecutive strips (query rows), the logic of a long pair spread
// over several GPUs (issue: every GPU of the machine): each band has its own device buffers,
// as it would on its own GPU, and the last strip of a band writes its border row where the next
// band reads it and publishes it on the next band's flag with a system-scope release
// (fast_problem::band_out / band_ready); the first strip of a band waits on that flag
// with a system-scope acquire. Every band's strips keep their global numbers, so the best
// cells merge under the tie rule as one fill's strips do; each band has its own error word.
//
// Band g runs on devices[g % devices.size()]. Bands on one device run one after the other in
// launch order (a band only waits on the band before it, which has finished there or runs on
// another device); bands on different devices run at once, each streaming its border row to the
// next as its columns are done: written straight into the next device's memory where peer
// access allows it, else through mapped host memory (through_host forces that path, so that
// one GPU covers it too). Bands at once may wait for the whole of the bands above them: their
// watchdogs restart while a shared progress counter moves (fast_problem::band_beat). A band
// that stops on an error (16-bit overflow, watchdog) poisons the
// next band's flag, which stops it at once.

#include <vector>

#include "cuda/engines/fast/fast_fill.hpp"

namespace swat::fast {

//! Where the bands of a fill run and how they hand over.
struct band_layout {
  std::vector<int> devices{0};  //!< CUDA devices; band g runs on devices[g % size]
  bool through_host = false;    //!< hand every border row over through mapped host memory
  //! One stream per band, so that bands on one device run at once as on several GPUs (tests:
  //! every band's grid must then fit the device beside the others, e.g. with max_blocks).
  bool concurrent = false;
};

//! True when every device of a band layout can write to the first one's memory (peer access,
//! enabled here; a device named twice reaches itself): what special rows of a banded fill need.
bool bands_reach_first(const std::vector<int>& devices);

//! Fills query × target as `bands` bands (at most one per strip), or with bands = 0 as bands of
//! at most one round of the fill's co-resident warps each, as many on every device (the fewest
//! such). Several GPUs need the latter once a pair has more strips than one round: band g + 1
//! starts when band g's last strip runs, so a band of several rounds would keep the next GPU
//! waiting for all but its last round, while bands of one round cycled over the devices keep
//! every GPU filling at once; and a device with one band more than another would double its
//! time (5.86 Mb on two H200: 3 bands, 8.6 s; bench/results/multigpu_h200x4.csv). Variants score32 and score16
//! (a 16-bit overflow in any band reruns every band at 32 bits). Same result and errors as
//! fill_context::fill (the grid-barrier and origins variants are refused); special rows
//! (fill_options::special) are written by every band into the first device's memory, the same
//! rows as one fill's (throws std::invalid_argument without peer access to it); the result also
//! says how many border bytes crossed between bands and how many crossings went through host
//! memory.
fill_result fill_bands(residue_span query, residue_span target, const scoring_scheme& scheme,
                       const fill_options& options, int bands, const band_layout& layout = {});

}  // namespace swat::fast

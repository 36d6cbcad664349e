#pragma once
// The database-search engine behind swat::engine (plain C++ header): search() and large
// score_many() calls run the inter-sequence scan (db_scan.hpp) with the targets prepared once
// per target set; single pairs and the pairs the scan hands back (targets longer than its limit,
// scores that saturate 16 bits) go to the pair engine it wraps (the fast engine), which computes
// them exactly at 32 bits. The reported hits are aligned in the boxes of db_align.hpp.

#include <cstdint>
#include <functional>
#include <memory>

#include "cuda/engines/dbsearch/db_scan.hpp"
#include "engine/engine.hpp"
#include "engine/windows.hpp"

namespace swat {
class engine_registry;
}

namespace swat::dbsearch {

//! Searches of fewer (query, target) pairs, and score_many calls of fewer jobs, go to the pair engine.
inline constexpr std::size_t min_scan_targets = 64;

//! Makes one more pair engine on the same GPU whose work stays within `gpu_bytes` of device
//! memory (the large boxes of several hits are aligned at once, one such engine per host thread).
using pair_engine_factory = std::function<std::unique_ptr<swat::engine>(std::uint64_t gpu_bytes)>;

//! The database-search engine ("gpu-db") around `pairs` (single pairs, large boxes); the hits'
//! small alignment boxes go to `boxes` (the CPU engine, on its threads); the reverse pass runs
//! on device `gpu_id` (the pair engine's). With `more_pairs`, several large boxes are aligned at
//! once by engines it makes (each box's fill is latency-bound and leaves most of the GPU idle).
std::unique_ptr<swat::engine> make_db_engine(std::unique_ptr<swat::engine> pairs, std::unique_ptr<swat::engine> boxes,
                                             scan_options options, int gpu_id, pair_engine_factory more_pairs = {});

//! The windows the registered engine cuts tall pairs into (engine/windows.hpp) for a scan with
//! `options`: within the scan's target limit where the overlap allows, wider (scanned the other
//! way round) where it does not, any number for a side longer than the scan takes; narrower
//! where a search has fewer tasks than the SMs of options.devices take at once.
window_limits scan_window_limits(const scan_options& options);

//! Registers --kernel dbsearch (alias db): the highest rank of --kernel auto, built around the
//! registry's fast engine (registered before it) for single pairs.
void register_engines(engine_registry& registry);

}  // namespace swat::dbsearch

#pragma once
// The database-search engine behind swat::engine (plain C++ header): search() and large
// score_many() calls run the inter-sequence scan (db_scan.hpp) with the targets prepared once
// per target set; single pairs, the pairs the scan hands back (targets longer than its limit,
// scores that saturate 16 bits) and every alignment go to the pair engine it wraps (the fast
// engine), which computes them exactly at 32 bits.

#include <memory>

#include "cuda/engines/dbsearch/db_scan.hpp"
#include "engine/engine.hpp"

namespace swat::dbsearch {

//! Jobs of one query below this many targets are scored by the pair engine.
inline constexpr std::size_t min_scan_targets = 64;

//! The database-search engine ("gpu-db") around `pairs`.
std::unique_ptr<swat::engine> make_db_engine(std::unique_ptr<swat::engine> pairs, scan_options options);

}  // namespace swat::dbsearch

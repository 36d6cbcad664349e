#pragma once
// Boxes of identical residues (a sequence the database holds more than once, hit by the same
// query) have one alignment: the database engine aligns each distinct box once (plain C++).

#include <cstddef>
#include <vector>

#include "engine/engine.hpp"

namespace swat::dbsearch {

//! For each job, the first job with the same query and target residues (itself if none). Only
//! jobs whose two lengths another job shares are hashed (most boxes of a search have lengths of
//! their own), eight residues a step (bench shapes' all_vs_all has 10,000 boxes, about 40 MB of
//! residues: hashing 40 MB byte by byte took 0.10 s on the development machine, eight at a time
//! 0.017 s); equal hashes are compared residue by residue.
std::vector<std::size_t> first_of_equal(const std::vector<pair_job>& jobs);

//! The jobs that are their own first (first_of_equal), renumbering `first` to index them.
std::vector<pair_job> pick_unique(const std::vector<pair_job>& jobs, std::vector<std::size_t>& first);

}  // namespace swat::dbsearch

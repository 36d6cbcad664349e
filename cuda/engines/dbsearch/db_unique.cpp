// Distinct boxes of a database search's hits (db_unique.hpp).

#include "cuda/engines/dbsearch/db_unique.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <unordered_map>
#include <utility>

namespace swat::dbsearch {

namespace {

//! h mixed with r's length and its residues, eight at a time.
std::uint64_t mix_in(std::uint64_t h, residue_span r) {
  const auto mix = [&h](std::uint64_t v) {
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  };
  mix(r.size());
  std::size_t i = 0;
  for (; i + 8 <= r.size(); i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, r.data() + i, 8);
    mix(w);
  }
  std::uint64_t tail = 0;
  if (i < r.size()) std::memcpy(&tail, r.data() + i, r.size() - i);
  mix(tail);
  return h;
}

}  // namespace

std::vector<std::size_t> first_of_equal(const std::vector<pair_job>& jobs) {
  const auto same = [](residue_span a, residue_span b) { return std::ranges::equal(a, b); };
  const auto sizes = [&](std::size_t k) { return std::pair(jobs[k].query.size(), jobs[k].target.size()); };
  std::map<std::pair<std::size_t, std::size_t>, int> shared;  // jobs of each pair of lengths (2: several)
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    int& n = shared[sizes(k)];
    n = std::min(n + 1, 2);
  }
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> seen;
  std::vector<std::size_t> first(jobs.size());
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    first[k] = k;
    if (shared[sizes(k)] < 2) continue;  // equal residues have equal lengths
    auto& bucket = seen[mix_in(mix_in(0x243f6a8885a308d3ull, jobs[k].query), jobs[k].target)];
    for (std::size_t e : bucket)
      if (same(jobs[e].query, jobs[k].query) && same(jobs[e].target, jobs[k].target)) {
        first[k] = e;
        break;
      }
    if (first[k] == k) bucket.push_back(k);
  }
  return first;
}

std::vector<pair_job> pick_unique(const std::vector<pair_job>& jobs, std::vector<std::size_t>& first) {
  std::vector<pair_job> unique;
  std::vector<std::size_t> slot(jobs.size());
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (first[k] == k) {
      slot[k] = unique.size();
      unique.push_back(jobs[k]);
    }
    first[k] = slot[first[k]];
  }
  return unique;
}

}  // namespace swat::dbsearch

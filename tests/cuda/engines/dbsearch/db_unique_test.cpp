// Distinct boxes of a search's hits (db_unique.hpp), no GPU needed: every job points at the first
// job of the same residues, whatever their addresses, and only equal residues share one.

#include <gtest/gtest.h>

#include <random>

#include "cuda/engines/dbsearch/db_unique.hpp"

namespace swat::dbsearch {
namespace {

std::vector<std::uint8_t> random_ranks(std::mt19937& rng, std::size_t n) {
  std::vector<std::uint8_t> out(n);
  for (auto& r : out) r = std::uint8_t(std::uniform_int_distribution<int>(0, 3)(rng));
  return out;
}

TEST(DbUnique, EqualBoxesShareTheFirstAndOnlyThey) {
  std::mt19937 rng(27);
  // Sequences with copies at other addresses, lengths across the 8-residue words (1 … 17, 64,
  // 1000), and near copies: one residue changed (first, middle, last), or one residue shorter.
  std::vector<std::vector<std::uint8_t>> seqs;
  for (const std::size_t n : {1, 7, 8, 9, 15, 16, 17, 64, 1000}) {
    seqs.push_back(random_ranks(rng, n));
    seqs.push_back(seqs.back());  // a copy
    for (const std::size_t at : {std::size_t(0), n / 2, n - 1}) {
      seqs.push_back(seqs.back());
      seqs.back()[at] = std::uint8_t((seqs.back()[at] + 1) % 4);
    }
    if (n > 1) seqs.push_back(std::vector<std::uint8_t>(seqs[seqs.size() - 5].begin(), seqs[seqs.size() - 5].end() - 1));
  }
  std::vector<pair_job> jobs;
  for (std::size_t q = 0; q < seqs.size(); q += 3)
    for (std::size_t t = 0; t < seqs.size(); ++t) jobs.push_back({q, t, seqs[q], seqs[t]});
  for (int k = 0; k < 200; ++k) {  // the same pairs again, in another order
    const pair_job& j = jobs[std::uniform_int_distribution<std::size_t>(0, jobs.size() - 1)(rng)];
    jobs.push_back(j);
  }
  std::vector<std::size_t> first = first_of_equal(jobs);
  ASSERT_EQ(first.size(), jobs.size());
  const auto equal = [&](std::size_t a, std::size_t b) {
    return std::ranges::equal(jobs[a].query, jobs[b].query) && std::ranges::equal(jobs[a].target, jobs[b].target);
  };
  std::size_t distinct = 0;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    std::size_t want = k;
    for (std::size_t e = 0; e < k; ++e)
      if (equal(e, k)) {
        want = e;
        break;
      }
    EXPECT_EQ(first[k], want) << "job " << k;
    distinct += want == k ? 1 : 0;
  }
  const std::vector<pair_job> unique = pick_unique(jobs, first);
  ASSERT_EQ(unique.size(), distinct);
  EXPECT_LT(distinct, jobs.size());  // the copies and repeats were found
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    ASSERT_LT(first[k], unique.size());
    EXPECT_TRUE(std::ranges::equal(unique[first[k]].query, jobs[k].query) &&
                std::ranges::equal(unique[first[k]].target, jobs[k].target))
        << "job " << k;
  }
}

}  // namespace
}  // namespace swat::dbsearch

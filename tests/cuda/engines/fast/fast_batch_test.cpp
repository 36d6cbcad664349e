// Batches of fills in one launch (fill_context::fill_batch, fast_kernel.cuh's batch kernel) and
// the fast engine's score_many that uses them for tall, narrow pairs: every pair's best cell is
// the reference's, whatever the other pairs of its batch, the grid's size (a few warps taking
// the strips of many pairs in turn) or the tie rule (rows first for the transposed pairs).

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>

#include "cuda/engines/fast/fast_engine.hpp"
#include "cuda/engines/fast/fast_fill.hpp"
#include "cuda/engines/fast/fast_test_util.hpp"
#include "reference/reference.hpp"

namespace swat::fast {
namespace {

//! The schemes of test::schemes() whose scores the packed fill holds relative to a base.
std::vector<scoring_scheme> relative_schemes() {
  std::vector<scoring_scheme> out;
  for (const scoring_scheme& s : test::schemes())
    if (scheme_relative16(s)) out.push_back(s);
  return out;
}

//! A sequence of length n made of tandem copies of a short random unit (many cells share the
//! best score, so the tie rule decides).
std::vector<std::uint8_t> tandem(std::mt19937& rng, std::int64_t n, const scoring_scheme& s) {
  const std::int64_t unit = std::uniform_int_distribution<std::int64_t>(1, 5)(rng);
  auto out = test::random_residues(rng, n, s);
  for (std::size_t i = std::size_t(unit); i < out.size(); ++i) out[i] = out[i - std::size_t(unit)];
  return out;
}

struct pair_data {
  std::vector<std::uint8_t> rows, columns;
  bool rows_first = false;
};

TEST(FastBatch, EveryPairOfABatchEqualsTheReference) {
  SWAT_REQUIRE_DEVICE();
  const auto schemes = relative_schemes();
  ASSERT_GE(schemes.size(), 2u);
  std::mt19937 rng(2711);
  fill_context ctx(swat::test::test_device());
  const auto borders = test::border_lengths();
  int checked = 0;
  for (int b = 0; b < (test::short_run() ? 10 : 30); ++b) {
    const scoring_scheme& s = schemes[std::size_t(b) % schemes.size()];
    const int count = std::uniform_int_distribution<int>(1, 9)(rng);
    std::vector<pair_data> data(static_cast<std::size_t>(count));
    for (pair_data& d : data) {
      // rows across strip borders (1024 rows a strip) up to a few strips; columns across chunks
      const std::int64_t m = std::uniform_int_distribution<int>(0, 2)(rng) == 0
                                 ? borders[std::uniform_int_distribution<std::size_t>(0, borders.size() - 1)(rng)]
                                 : std::uniform_int_distribution<std::int64_t>(1, 5000)(rng);
      const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 700)(rng);
      const bool repeats = std::uniform_int_distribution<int>(0, 3)(rng) == 0;
      d.columns = repeats ? tandem(rng, n, s) : test::random_residues(rng, n, s);
      d.rows = repeats ? tandem(rng, m, s) : test::related_or_random(rng, d.columns, m, s);
      d.rows_first = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    }
    std::vector<batch_pair> pairs;
    for (const pair_data& d : data) pairs.push_back({d.rows, d.columns, d.rows_first});
    fill_options o;
    o.max_blocks = b % 3 == 0 ? 1 : b % 3 == 1 ? 3 : 0;  // few warps take many strips in turn
    const std::vector<fill_result> got = ctx.fill_batch(pairs, s, o);
    ASSERT_EQ(got.size(), pairs.size());
    for (std::size_t k = 0; k < data.size(); ++k) {
      const pair_data& d = data[k];
      best_cell want;
      if (d.rows_first) {  // the pair columns × rows filled transposed: its best cell, transposed
        const alignment a = reference::align(d.columns, d.rows, s);
        want = {a.score, a.target_end, a.query_end};
      } else {
        const alignment a = reference::align(d.rows, d.columns, s);
        want = {a.score, a.query_end, a.target_end};
      }
      EXPECT_EQ(got[k].best, want) << "batch " << b << " pair " << k << " rows " << d.rows.size() << " columns "
                                   << d.columns.size() << " rows_first " << d.rows_first << " " << s.matrix_name;
      EXPECT_EQ(got[k].ran, fill_variant::score16);
      ++checked;
    }
  }
  EXPECT_GT(checked, 40);
}

TEST(FastBatch, RefusesASchemeWithoutRelativeScores) {
  SWAT_REQUIRE_DEVICE();
  const scoring_scheme s = scoring::make_protein_scheme("BLOSUM45", 10, 2);  // o + e + max s = 27
  ASSERT_FALSE(scheme_relative16(s));
  std::mt19937 rng(5);
  const auto a = test::random_residues(rng, 100, s), b = test::random_residues(rng, 50, s);
  fill_context ctx(swat::test::test_device());
  const batch_pair p{a, b, false};
  EXPECT_THROW(ctx.fill_batch(std::span(&p, 1), s, fill_options{}), std::invalid_argument);
}

//! The engine's score_many: tall pairs both ways round (genes against longer "genomes", long
//! queries against short targets) in batches, the others one by one; every scheme, the
//! non-relative one (one by one) too.
TEST(FastBatch, EngineScoreManyOfTallPairsEqualsTheReference) {
  SWAT_REQUIRE_DEVICE();
  std::mt19937 rng(1127);
  auto eng = make_fast_engine(engine_options{});
  for (const scoring_scheme& s : test::schemes()) {
    std::vector<std::vector<std::uint8_t>> genes, genomes;
    for (int g = 0; g < 3; ++g) genes.push_back(test::random_residues(rng, std::uniform_int_distribution<int>(200, 1500)(rng), s));
    for (int g = 0; g < 3; ++g) {
      const std::int64_t n = std::uniform_int_distribution<std::int64_t>(7000, test::short_run() ? 12000 : 30000)(rng);
      auto genome = test::random_residues(rng, n, s);
      // a mutated copy of a gene somewhere in it, and a second, equal copy (a tie) in one of them
      const auto& gene = genes[std::size_t(g)];
      const auto copy = test::related_or_random(rng, gene, std::int64_t(gene.size()), s);
      const std::size_t at = std::uniform_int_distribution<std::size_t>(0, genome.size() - copy.size())(rng);
      std::copy(copy.begin(), copy.end(), genome.begin() + std::ptrdiff_t(at));
      if (g == 1) std::copy(copy.begin(), copy.end(), genome.begin() + std::ptrdiff_t((at + genome.size() / 2) % (genome.size() - copy.size())));
      genomes.push_back(std::move(genome));
    }
    const auto small = test::random_residues(rng, 300, s), other = test::random_residues(rng, 500, s);
    std::vector<pair_job> jobs;
    for (std::size_t q = 0; q < genes.size(); ++q)
      for (std::size_t t = 0; t < genomes.size(); ++t) jobs.push_back({q, t, genes[q], genomes[t]});
    for (std::size_t t = 0; t < genes.size(); ++t) jobs.push_back({9, t, genomes[t], genes[t]});  // long query
    jobs.push_back({7, 7, small, other});                                                    // not tall: one by one
    std::vector<best_cell> got(jobs.size());
    std::uint64_t reported = 0;
    eng->score_many(jobs, s, got, [&](std::uint64_t cells) { reported += cells; });
    std::uint64_t cells = 0;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      const alignment a = reference::align(jobs[k].query, jobs[k].target, s);
      EXPECT_EQ(got[k], (best_cell{a.score, a.query_end, a.target_end}))
          << "job " << k << " " << jobs[k].query.size() << " x " << jobs[k].target.size() << " " << s.matrix_name;
      cells += std::uint64_t(jobs[k].query.size()) * jobs[k].target.size();
    }
    EXPECT_EQ(reported, cells) << "progress counts every pair's cells once";
    const auto stages = eng->stage_seconds();  // --timing's line of the batches
    EXPECT_TRUE(std::any_of(stages.begin(), stages.end(), [](const auto& st) {
      return st.first.rfind("tall pairs at once ", 0) == 0 && st.second > 0;
    })) << s.matrix_name;
  }
}

//! score_many's other paths: one tall pair alone (cut into windows of its long side, its chain of
//! strips being far longer than its cells at the GPU's rate), and several pairs under a small
//! --max-gpu-mem (several batches, some of one piece); both ways round, every relative scheme.
TEST(FastBatch, EngineScoreManyAloneAndInSmallBudgets) {
  SWAT_REQUIRE_DEVICE();
  std::mt19937 rng(2611);
  for (const scoring_scheme& s : relative_schemes()) {
    for (const std::size_t budget : {std::size_t(0), std::size_t(96) << 10}) {
      engine_options o;
      o.max_gpu_mem_bytes = budget;
      auto eng = make_fast_engine(o);
      std::vector<std::vector<std::uint8_t>> genes, genomes;
      const int count = budget == 0 ? 1 : 5;
      for (int g = 0; g < count; ++g) {
        genes.push_back(test::random_residues(rng, std::uniform_int_distribution<int>(150, 700)(rng), s));
        auto genome = test::random_residues(rng, std::uniform_int_distribution<int>(9000, 26000)(rng), s);
        const auto copy = test::related_or_random(rng, genes.back(), std::int64_t(genes.back().size()), s);
        std::copy(copy.begin(), copy.end(), genome.begin() + std::ptrdiff_t(genome.size() / 3));
        genomes.push_back(std::move(genome));
      }
      std::vector<pair_job> jobs;
      for (std::size_t g = 0; g < genes.size(); ++g)
        jobs.push_back(g % 2 == 0 ? pair_job{g, g, genes[g], genomes[g]} : pair_job{g, g, genomes[g], genes[g]});
      std::vector<best_cell> got(jobs.size());
      eng->score_many(jobs, s, got, {});
      for (std::size_t k = 0; k < jobs.size(); ++k) {
        const alignment a = reference::align(jobs[k].query, jobs[k].target, s);
        EXPECT_EQ(got[k], (best_cell{a.score, a.query_end, a.target_end}))
            << "job " << k << " " << jobs[k].query.size() << " x " << jobs[k].target.size() << " budget " << budget
            << " " << s.matrix_name;
      }
    }
  }
}

}  // namespace
}  // namespace swat::fast

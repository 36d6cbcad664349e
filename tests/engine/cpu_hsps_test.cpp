// Several alignments per pair (--max-hsps, engine/cpu_hsps.hpp) against the full-matrix
// Waterman–Eggert of the reference: every alignment equal (score, coordinates, every CIGAR op)
// for tile edges from a few cells to one tile, traceback bands inside tiles, thresholds and
// limits; planted repeats are all found, the alignments share no residue pair, the refills stay
// near the alignments, and a long pair runs within its memory budget.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/cpu_engine.hpp"
#include "engine/cpu_hsps.hpp"
#include "engine/test_schemes.hpp"
#include "reference/reference.hpp"
#include "scoring/scoring.hpp"

namespace swat {
namespace {

using residues = std::vector<std::uint8_t>;
using test::mutate;
using test::random_residues;

std::string describe(const std::vector<alignment>& alns) {
  std::string s;
  for (const alignment& a : alns) {
    s += std::to_string(a.score) + " q[" + std::to_string(a.query_begin) + "," + std::to_string(a.query_end) +
         ") t[" + std::to_string(a.target_begin) + "," + std::to_string(a.target_end) + ") ";
    for (const cigar_op& c : a.ops) s += std::to_string(c.length) + c.op;
    s += "\n";
  }
  return s;
}

//! The aligned residue pairs of aln (0-based).
std::vector<std::pair<std::int64_t, std::int64_t>> pairs_of(const alignment& aln) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  std::int64_t i = aln.query_begin, j = aln.target_begin;
  for (const cigar_op& op : aln.ops)
    for (std::uint32_t k = 0; k < op.length; ++k) {
      if (op.op == 'M') out.emplace_back(i, j);
      if (op.op != 'D') ++i;
      if (op.op != 'I') ++j;
    }
  return out;
}

//! Each alignment rescores to its score, scores do not rise, and no pair is aligned twice.
void expect_valid(const std::vector<alignment>& alns, const residues& q, const residues& t,
                  const scoring_scheme& scheme) {
  std::set<std::pair<std::int64_t, std::int64_t>> used;
  for (std::size_t k = 0; k < alns.size(); ++k) {
    EXPECT_EQ(rescore(alns[k], q, t, scheme), alns[k].score);
    if (k > 0) {
      EXPECT_LE(alns[k].score, alns[k - 1].score);
    }
    for (const auto& p : pairs_of(alns[k])) EXPECT_TRUE(used.insert(p).second) << "pair aligned twice";
  }
}

//! A random target with copies (mutated, some reverse-ordered segments) of pieces of q planted.
residues with_planted_copies(std::mt19937& rng, const residues& q, std::size_t n, int alphabet, int copies) {
  residues t = random_residues(rng, n, alphabet);
  for (int c = 0; c < copies && !q.empty(); ++c) {
    const std::size_t len = std::min<std::size_t>(q.size(), 10 + rng() % 60);
    const std::size_t from = rng() % (q.size() - len + 1);
    const residues piece = mutate(rng, residues(q.begin() + std::ptrdiff_t(from), q.begin() + std::ptrdiff_t(from + len)),
                                  alphabet, 0.1);
    if (piece.size() >= t.size()) continue;
    const std::size_t at = rng() % (t.size() - piece.size());
    std::copy(piece.begin(), piece.end(), t.begin() + std::ptrdiff_t(at));
  }
  return t;
}

void check(const residues& q, const residues& t, const scoring_scheme& scheme, std::size_t max_hsps,
           std::int32_t min_score, const std::string& what) {
  const std::vector<alignment> want = reference::waterman_eggert(q, t, scheme, max_hsps, min_score);
  expect_valid(want, q, t, scheme);
  for (const cpu::hsp_plan layout : {cpu::hsp_plan{3, 0, 0}, cpu::hsp_plan{7, 2, 0}, cpu::hsp_plan{16, 5, 0},
                                     cpu::hsp_plan{64, 0, 0}, cpu::hsp_plan{}}) {
    for (unsigned threads : {1u, 3u}) {
      const std::vector<alignment> got =
          cpu::waterman_eggert(q, t, scheme, max_hsps, min_score, std::size_t(1) << 30, nullptr, layout, threads);
      ASSERT_EQ(describe(got), describe(want)) << what << " tile " << layout.tile << " band " << layout.band_rows
                                               << " threads " << threads << " m=" << q.size() << " n=" << t.size();
    }
  }
}

//! The tiles' first pass alone gives the reference's best cell (tie rule) on one thread and on
//! several (tiles of an anti-diagonal at once): related pairs with flanks, repeats (equal cells),
//! unrelated pairs, two schemes, sizes of several tiles.
TEST(cpu_hsps, tiled_best_cell_is_the_references_on_any_number_of_threads) {
  std::mt19937 rng(57);
  const std::vector<std::pair<scoring_scheme, int>> schemes = {{test::dna_scheme(2, -3, 5, 2), dna_size},
                                                               {test::protein_scheme(3, 11, 1), protein_size}};
  std::uniform_int_distribution<int> len(300, 1400), coin(0, 2);
  for (const auto& [scheme, alphabet] : schemes)
    for (int k = 0; k < 8; ++k) {
      const residues q = random_residues(rng, std::size_t(len(rng)), alphabet);
      residues t = random_residues(rng, std::size_t(len(rng)) / 2, alphabet);
      if (coin(rng) > 0) {
        const residues m = mutate(rng, q, alphabet, 0.1);
        t.insert(t.end(), m.begin(), m.end());
        if (coin(rng) == 0) t.insert(t.end(), m.begin(), m.end());  // a repeat
      }
      const alignment want = reference::align(q, t, scheme);
      const best_cell best{want.score, want.query_end, want.target_end};
      for (unsigned threads : {1u, 3u})
        ASSERT_EQ(cpu::tiled_best_cell(q, t, scheme, std::size_t(64) << 20, threads), best)
            << scheme.matrix_name << " pair " << k << " threads " << threads;
    }
}

//! best_alignment_in_band on the prefixes that end at the reference's best cell, with the band
//! its score allows (band_of_score, as the CPU engine's known boxes take it): the reference's alignment on tiles
//! of 3 to 64 cells (most of them outside the band), one thread and three, for related pairs
//! with indels, tandem repeats (many equal paths: the tie rule's) and unrelated pairs.
TEST(cpu_hsps, alignment_in_the_band_its_score_allows_is_the_references) {
  std::mt19937 rng(59);
  // DNA without N (identities score the maximum: narrow bands) and a protein matrix (wide ones).
  const std::vector<std::pair<scoring_scheme, int>> schemes = {{test::dna_scheme(2, -3, 5, 2), dna_size - 1},
                                                               {test::dna_scheme(1, -1, 2, 1), dna_size - 1},
                                                               {test::protein_scheme(3, 11, 1), protein_size}};
  std::uniform_int_distribution<int> len(200, 700), kind(0, 3);
  int skipped = 0;
  for (const auto& [scheme, alphabet] : schemes)
    for (int k = 0; k < 10; ++k) {
      residues q = random_residues(rng, std::size_t(len(rng)), alphabet);
      residues t = random_residues(rng, std::size_t(len(rng)) / 3, alphabet);
      const int what = kind(rng);
      if (what == 3) {  // a tandem repeat of a short unit on both sides
        const residues unit = random_residues(rng, 2 + std::size_t(k % 3), alphabet);
        for (std::size_t i = 0; i < q.size(); ++i) q[i] = unit[i % unit.size()];
        const residues m = mutate(rng, q, alphabet, 0.02);
        t.insert(t.end(), m.begin(), m.end());
      } else if (what > 0) {
        const residues m = mutate(rng, q, alphabet, what == 1 ? 0.03 : 0.12);
        t.insert(t.end(), m.begin(), m.end());
      }
      const residues tail = random_residues(rng, 50, alphabet);
      t.insert(t.end(), tail.begin(), tail.end());
      const alignment want = reference::align(q, t, scheme);
      if (want.score <= 0) continue;
      const residues qb(q.begin(), q.begin() + want.query_end), tb(t.begin(), t.begin() + want.target_end);
      const std::int64_t rows = std::int64_t(qb.size()), columns = std::int64_t(tb.size());
      const std::optional<cpu::diagonal_band> bound = cpu::band_of_score(rows, columns, want.score, scheme);
      ASSERT_TRUE(bound.has_value());
      const cpu::diagonal_band band = *bound;
      skipped += 2 * (band.hi - band.lo + 1) < columns ? 1 : 0;
      for (const cpu::hsp_plan layout : {cpu::hsp_plan{3, 0, 0}, cpu::hsp_plan{16, 5, 0}, cpu::hsp_plan{64, 0, 0}})
        for (unsigned threads : {1u, 3u}) {
          const std::optional<alignment> got =
              cpu::best_alignment_in_band(qb, tb, scheme, band, std::size_t(1) << 30, nullptr, layout, threads);
          ASSERT_TRUE(got.has_value());
          ASSERT_EQ(describe({*got}), describe({want})) << scheme.matrix_name << " pair " << k << " tile " << layout.tile
                                                       << " threads " << threads << " band " << band.lo << ".." << band.hi;
        }
    }
  EXPECT_GE(skipped, 10) << "too few pairs whose band leaves most of their columns out";
}

//! The diagonals (j − i) of the cells an alignment visits, from its first aligned pair on.
cpu::diagonal_band diagonals_of(const alignment& a) {
  std::int64_t i = a.query_begin, j = a.target_begin;
  cpu::diagonal_band d{INT64_MAX, INT64_MIN};
  for (const cigar_op& op : a.ops)
    for (std::uint32_t k = 0; k < op.length; ++k) {
      if (op.op != 'D') ++i;
      if (op.op != 'I') ++j;
      d.lo = std::min(d.lo, j - i);
      d.hi = std::max(d.hi, j - i);
    }
  return d;
}

//! The band only needs to hold the walked path: with the reference path's own diagonals as the
//! band, on tiles of 1 to 4 cells (so that the band's edges fall on tile edges), the reference's
//! alignment, on one thread and on two; gap open 0 among the schemes (paths at the bound).
TEST(cpu_hsps, alignment_in_its_own_paths_diagonals_is_the_references) {
  std::mt19937 rng(61);
  const std::vector<std::pair<scoring_scheme, int>> schemes = {{test::dna_scheme(2, -3, 0, 2), dna_size - 1},
                                                               {test::dna_scheme(1, -1, 2, 1), dna_size},
                                                               {test::protein_scheme(5, 11, 1), protein_size}};
  std::uniform_int_distribution<int> len(40, 160);
  for (const auto& [scheme, alphabet] : schemes)
    for (int k = 0; k < 12; ++k) {
      const residues q = random_residues(rng, std::size_t(len(rng)), alphabet);
      residues t = random_residues(rng, std::size_t(len(rng)) / 4, alphabet);
      const residues m = mutate(rng, q, alphabet, 0.15);
      t.insert(t.end(), m.begin(), m.end());
      const alignment want = reference::align(q, t, scheme);
      if (want.score <= 0) continue;
      const residues qb(q.begin(), q.begin() + want.query_end), tb(t.begin(), t.begin() + want.target_end);
      const cpu::diagonal_band band = diagonals_of(want);
      for (const std::int64_t tile : {1, 2, 3, 4})
        for (unsigned threads : {1u, 2u}) {
          const std::optional<alignment> got = cpu::best_alignment_in_band(qb, tb, scheme, band, std::size_t(1) << 30,
                                                                           nullptr, cpu::hsp_plan{tile, 0, 0}, threads);
          ASSERT_TRUE(got.has_value());
          ASSERT_EQ(describe({*got}), describe({want})) << scheme.matrix_name << " pair " << k << " tile " << tile
                                                       << " band " << band.lo << ".." << band.hi;
        }
    }
}

//! band_of_score is tight on both sides: with gap open 0, A·B against A·X·B is one gap of
//! exactly D_max = |X| target residues (the band's low edge, diagonal 0, holds A's pairs), and
//! A·X·B against A·B one of I_max = |X| query residues (the high edge, diagonal 0 again); the
//! alignment in the band is the reference's, and one diagonal less at that edge loses it (tiles
//! of one cell).
TEST(cpu_hsps, band_of_score_is_tight_at_gap_open_zero) {
  std::mt19937 rng(62);
  const scoring_scheme scheme = test::dna_scheme(2, -3, 0, 2);
  for (const bool gap_in_query : {false, true})
    for (const std::size_t gap : {std::size_t(1), std::size_t(7), std::size_t(40)}) {
      const residues a = random_residues(rng, 300, dna_size - 1), b = random_residues(rng, 250, dna_size - 1);
      const residues x = random_residues(rng, gap, dna_size - 1);
      residues shorter = a, longer = a;
      shorter.insert(shorter.end(), b.begin(), b.end());
      longer.insert(longer.end(), x.begin(), x.end());
      longer.insert(longer.end(), b.begin(), b.end());
      const residues& q = gap_in_query ? longer : shorter;
      const residues& t = gap_in_query ? shorter : longer;
      const alignment want = reference::align(q, t, scheme);
      ASSERT_EQ(want.score, 2 * 550 - 2 * std::int32_t(gap));
      ASSERT_EQ(want.query_end, std::int64_t(q.size()));
      ASSERT_EQ(want.target_end, std::int64_t(t.size()));
      const std::optional<cpu::diagonal_band> band =
          cpu::band_of_score(std::int64_t(q.size()), std::int64_t(t.size()), want.score, scheme);
      ASSERT_TRUE(band.has_value());
      if (gap_in_query) EXPECT_EQ(band->hi, 0) << "gap " << gap;  // end diagonal −|X|, I_max = |X|
      else EXPECT_EQ(band->lo, 0) << "gap " << gap;                // end diagonal |X|, D_max = |X|
      for (const std::int64_t tile : {1, 3}) {
        const std::optional<alignment> got =
            cpu::best_alignment_in_band(q, t, scheme, *band, std::size_t(1) << 30, nullptr, cpu::hsp_plan{tile, 0, 0}, 1);
        ASSERT_TRUE(got.has_value());
        EXPECT_EQ(describe({*got}), describe({want})) << "gap " << gap << " tile " << tile;
      }
      const cpu::diagonal_band narrower = gap_in_query ? cpu::diagonal_band{band->lo, band->hi - 1}
                                                       : cpu::diagonal_band{band->lo + 1, band->hi};
      const std::optional<alignment> lost =
          cpu::best_alignment_in_band(q, t, scheme, narrower, std::size_t(1) << 30, nullptr, cpu::hsp_plan{1, 0, 0}, 1);
      EXPECT_FALSE(lost && describe({*lost}) == describe({want})) << "gap " << gap << " in the query: " << gap_in_query;
    }
  EXPECT_FALSE(cpu::band_of_score(10, 10, 21, scheme).has_value()) << "a score above min(R, W) · max_score";
  EXPECT_FALSE(cpu::band_of_score(10, 10, 0, scheme).has_value());
}

TEST(cpu_hsps, reference_finds_both_copies_of_a_motif_without_sharing_a_pair) {
  const scoring_scheme s = test::dna_scheme();
  // ACGTTGCAAGGT planted twice in the target.
  const residues q = {0, 1, 2, 3, 3, 2, 1, 0, 0, 2, 2, 3};
  residues t(40, 1);
  std::copy(q.begin(), q.end(), t.begin() + 3);
  std::copy(q.begin(), q.end(), t.begin() + 25);
  const std::vector<alignment> alns = reference::waterman_eggert(q, t, s, 0, 10);
  ASSERT_EQ(alns.size(), 2u) << describe(alns);
  EXPECT_EQ(alns[0].score, 24);
  EXPECT_EQ(alns[1].score, 24);
  EXPECT_EQ(alns[0].target_begin, 3);  // equal scores: the smaller target end first
  EXPECT_EQ(alns[1].target_begin, 25);
  EXPECT_EQ(reference::waterman_eggert(q, t, s, 1, 1).size(), 1u);
  EXPECT_TRUE(reference::waterman_eggert(q, t, s, 0, 25).empty());
}

TEST(cpu_hsps, equal_to_the_reference_on_seeded_random_pairs) {
  std::mt19937 rng(20261124);
  const std::vector<scoring_scheme> schemes = {test::dna_scheme(), test::dna_scheme(1, -1, 0, 1),
                                               test::dna_scheme(5, -4, 10, 1), test::protein_scheme(7, 11, 1),
                                               test::protein_scheme(8, 4, 2), test::protein_scheme(9, 0, 3)};
  for (int round = 0; round < 120; ++round) {
    const scoring_scheme& s = schemes[std::size_t(round) % schemes.size()];
    const int alphabet = s.alphabet == alphabet_kind::dna ? 4 : 20;
    const std::size_t m = rng() % 90, n = rng() % 160;
    const residues q = random_residues(rng, m, alphabet);
    const residues t = round % 2 ? with_planted_copies(rng, q, n, alphabet, 4) : random_residues(rng, n, alphabet);
    const std::size_t max_hsps = std::vector<std::size_t>{0, 1, 2, 5}[std::size_t(round) % 4];
    const std::int32_t min_score = std::vector<std::int32_t>{1, 8, 20}[std::size_t(round) % 3];
    check(q, t, s, max_hsps, min_score, "round " + std::to_string(round));
  }
}

TEST(cpu_hsps, equal_to_the_reference_on_lengths_around_tile_borders) {
  std::mt19937 rng(77);
  const scoring_scheme s = test::dna_scheme(1, -1, 2, 1);
  for (std::size_t m : {1, 2, 15, 16, 17, 63, 64, 65})
    for (std::size_t n : {1, 16, 17, 64, 65, 130}) {
      const residues q = random_residues(rng, m, 4);
      const residues t = with_planted_copies(rng, q, n, 4, 3);
      check(q, t, s, 0, 3, "m " + std::to_string(m) + " n " + std::to_string(n));
    }
}

TEST(cpu_hsps, low_complexity_pairs_full_of_ties) {
  std::mt19937 rng(5);
  for (int round = 0; round < 30; ++round) {
    const scoring_scheme s = round % 2 ? test::dna_scheme(1, -1, 1, 1) : test::dna_scheme();
    const residues q = random_residues(rng, 20 + rng() % 60, 2);  // A/C only
    const residues t = random_residues(rng, 20 + rng() % 100, 2);
    check(q, t, s, round % 3 ? 0 : 4, 4, "round " + std::to_string(round));
  }
}

TEST(cpu_hsps, first_alignment_is_the_cpu_engines) {
  std::mt19937 rng(11);
  const scoring_scheme s = test::protein_scheme(3, 10, 1);
  cpu_engine eng(1);
  for (int round = 0; round < 20; ++round) {
    const residues q = random_residues(rng, 50 + rng() % 400, 20);
    const residues t = with_planted_copies(rng, q, 100 + rng() % 1500, 20, 3);
    const std::vector<alignment> got = cpu::waterman_eggert(q, t, s, 3, 1, std::size_t(1) << 30);
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got[0], eng.align(q, t, s));
    expect_valid(got, q, t, s);
  }
}

TEST(cpu_hsps, planted_copies_are_all_found_and_refills_stay_near_them) {
  std::mt19937 rng(2024);
  const scoring_scheme s = test::dna_scheme();
  const residues gene = random_residues(rng, 600, 4);
  residues genome = random_residues(rng, 40000, 4);
  const std::size_t at[] = {3000, 15000, 27000, 36000};
  for (std::size_t a : at) {
    const residues copy = mutate(rng, gene, 4, 0.03);
    std::copy(copy.begin(), copy.end(), genome.begin() + std::ptrdiff_t(a));
  }
  // A random 600 × 40,000 matrix scores ~20 at most: a threshold of 300 keeps only the copies.
  const std::uint64_t before = cpu::hsp_cells_filled();
  const std::vector<alignment> got = cpu::waterman_eggert(gene, genome, s, 0, 300, std::size_t(64) << 20);
  const std::uint64_t cells = cpu::hsp_cells_filled() - before;
  ASSERT_EQ(got.size(), 4u) << describe(got);
  std::vector<std::int64_t> starts;
  for (const alignment& a : got) starts.push_back(a.target_begin);
  std::sort(starts.begin(), starts.end());
  for (std::size_t k = 0; k < 4; ++k) EXPECT_NEAR(double(starts[k]), double(at[k]), 40.0);
  expect_valid(got, gene, genome, s);
  // The first pass fills m·n cells; the refills and the traceback bands of four alignments add
  // the tiles around them, a fraction of the matrix.
  const double matrix = double(gene.size()) * double(genome.size());
  EXPECT_LT(double(cells), 1.5 * matrix) << cells << " cells for a matrix of " << matrix;
  // Same answer with tiny tiles and bands.
  EXPECT_EQ(describe(cpu::waterman_eggert(gene, genome, s, 0, 300, std::size_t(64) << 20, nullptr, {64, 9, 0})),
            describe(got));
}

TEST(cpu_hsps, long_pair_runs_within_its_budget_with_banded_tiles) {
  std::mt19937 rng(99);
  const scoring_scheme s = test::dna_scheme();
  const residues q = random_residues(rng, 3000, 4);
  const residues t = with_planted_copies(rng, q, 300000, 4, 12);
  const std::size_t budget = std::size_t(8) << 20;
  const cpu::hsp_plan plan = cpu::plan_hsps(std::int64_t(q.size()), std::int64_t(t.size()), budget);
  EXPECT_LE(plan.bytes, budget);
  EXPECT_GT(plan.tile, cpu::hsp_min_tile);  // the budget forced larger tiles
  const std::vector<alignment> got = cpu::waterman_eggert(q, t, s, 6, 40, budget);
  ASSERT_FALSE(got.empty());
  expect_valid(got, q, t, s);
  EXPECT_EQ(got[0], cpu_engine(1).align(q, t, s));
  // Another layout (small tiles, short bands) and a first pass on 4 threads give the same alignments.
  EXPECT_EQ(describe(cpu::waterman_eggert(q, t, s, 6, 40, budget, nullptr, {1000, 7, 0})), describe(got));
  EXPECT_EQ(describe(cpu::waterman_eggert(q, t, s, 6, 40, budget, nullptr, {}, 4)), describe(got));
}

TEST(cpu_hsps, titin_domain_repeats_equal_the_reference) {
  // Titin is made of ~300 immunoglobulin and fibronectin-III domains: one stretch against
  // another holds many high-scoring, non-overlapping alignments.
  const std::filesystem::path file = std::filesystem::path(SWAT_SHARED_DATA) / "protein/titin_human_Q8WZ42.fa";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "shared data not found";
  const residues titin = test::read_first_record(file, protein_rank_table());
  ASSERT_GT(titin.size(), 30000u);
  const scoring_scheme s = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  const residues q(titin.begin() + 20000, titin.begin() + 20600);
  const residues t(titin.begin() + 24000, titin.begin() + 26500);
  const std::vector<alignment> want = reference::waterman_eggert(q, t, s, 0, 45);
  ASSERT_GE(want.size(), 5u) << describe(want);
  expect_valid(want, q, t, s);
  for (const cpu::hsp_plan layout : {cpu::hsp_plan{}, cpu::hsp_plan{100, 13, 0}})
    EXPECT_EQ(describe(cpu::waterman_eggert(q, t, s, 0, 45, std::size_t(64) << 20, nullptr, layout)), describe(want))
        << "tile " << layout.tile;
}

TEST(cpu_hsps, alignments_that_outgrow_the_budget_stop_the_search_and_say_so) {
  // A low-complexity pair holds thousands of alignments: their residue pairs fill a small
  // budget, the search stops, and what it reported is the reference's list up to there.
  std::mt19937 rng(4);
  const scoring_scheme s = test::dna_scheme(1, -1, 1, 1);
  const residues q = random_residues(rng, 300, 2), t = random_residues(rng, 3000, 2);
  const std::size_t budget = std::size_t(512) << 10;
  ASSERT_LE(cpu::plan_hsps(300, 3000, budget).bytes, budget);
  bool stopped = false;
  const std::vector<alignment> got = cpu::waterman_eggert(q, t, s, 0, 4, budget, nullptr, {}, 1, &stopped);
  EXPECT_TRUE(stopped);
  ASSERT_FALSE(got.empty());
  std::vector<alignment> want = reference::waterman_eggert(q, t, s, got.size(), 4);
  EXPECT_EQ(describe(got), describe(want));
  EXPECT_GT(reference::waterman_eggert(q, t, s, got.size() + 1, 4).size(), got.size());  // there were more
  bool unlimited_stopped = true;
  cpu::waterman_eggert(q, t, s, 3, 4, budget, nullptr, {}, 1, &unlimited_stopped);
  EXPECT_FALSE(unlimited_stopped);
}

TEST(cpu_hsps, refuses_a_pair_that_cannot_fit) {
  const scoring_scheme s = test::dna_scheme();
  const residues q(20000, 1), t(20000, 2);
  EXPECT_THROW(cpu::waterman_eggert(q, t, s, 0, 1, 1000), usage_error);
  EXPECT_TRUE(cpu::waterman_eggert(residues{}, t, s, 0, 1, 1000).empty());
}

TEST(cpu_hsps, engine_runs_pairs_on_threads_in_job_order) {
  std::mt19937 rng(8);
  const scoring_scheme s = test::dna_scheme();
  std::vector<residues> qs, ts;
  std::vector<pair_job> jobs;
  for (int k = 0; k < 12; ++k) {
    qs.push_back(random_residues(rng, 30 + rng() % 100, 4));
    ts.push_back(with_planted_copies(rng, qs.back(), 200 + rng() % 400, 4, 3));
  }
  for (std::size_t k = 0; k < qs.size(); ++k) jobs.push_back({k, k, qs[k], ts[k]});
  const std::vector<std::int32_t> min_scores(jobs.size(), 12);
  std::vector<std::vector<alignment>> got(jobs.size());
  cpu_engine(4).align_hsps_many(jobs, min_scores, 0, s, got, {});
  for (std::size_t k = 0; k < jobs.size(); ++k)
    EXPECT_EQ(describe(got[k]), describe(reference::waterman_eggert(qs[k], ts[k], s, 0, 12))) << k;
}

}  // namespace
}  // namespace swat

// Tall, thin pairs as windows (engine/windows.hpp): the plan covers every stretch an alignment
// can reach, and the windowed CPU engine gives reference::align's alignment exactly (score,
// ends, begins, CIGAR) on seeded random pairs with planted copies, both orientations, DNA and
// protein-like schemes and low-complexity sequences full of ties, under limits shrunk so that
// small pairs are cut into many windows.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <vector>

#include "engine/cpu_engine.hpp"
#include "engine/windows.hpp"
#include "reference/reference.hpp"
#include "test_schemes.hpp"

namespace swat {
namespace {

//! Limits that cut pairs of a few hundred residues: windows of 64..400 residues.
window_limits small_limits() {
  window_limits l;
  l.min_long = 200;
  l.min_ratio = 4;
  l.min_width = 64;
  l.max_width = 400;
  l.max_query_width = 300;
  return l;
}

//! An engine that records the longest sequence it was handed (to see that windows were used).
class spy_engine final : public engine {
 public:
  std::string name() const override { return "spy"; }
  alignment align(residue_span q, residue_span t, const scoring_scheme& s) override {
    note(q, t);
    return cpu_.align(q, t, s);
  }
  best_cell score_only(residue_span q, residue_span t, const scoring_scheme& s) override {
    note(q, t);
    return cpu_.score_only(q, t, s);
  }
  void score_many(std::span<const pair_job> jobs, const scoring_scheme& s, std::span<best_cell> out,
                  const progress_fn& progress) override {
    for (const auto& j : jobs) note(j.query, j.target);
    scanned_windows += jobs.size();
    ++batches;
    cpu_.score_many(jobs, s, out, progress);
  }
  std::size_t longest = 0, scanned_windows = 0, batches = 0;

 private:
  void note(residue_span q, residue_span t) { longest = std::max({longest, q.size(), t.size()}); }
  cpu_engine cpu_{1};
};

TEST(windows, windows_fill_the_lanes_of_their_last_round) {
  // A 5 kb read against a 1.46 Mb genome: 27 windows of 65,536 would leave 5 of 32 lanes idle;
  // 32 narrower ones fill them and cost fewer columns. Every window stays ≥ 4 overlaps wide.
  const scoring_scheme s = test::dna_scheme();
  window_limits lanes;
  lanes.lane_multiple = 32;
  const auto plain = plan_windows(1'460'000, 5000, false, s, window_limits{});
  const auto filled = plan_windows(1'460'000, 5000, false, s, lanes);
  ASSERT_TRUE(plain.has_value() && filled.has_value());
  EXPECT_EQ(plain->starts.size(), 27u);
  EXPECT_EQ(filled->starts.size(), 32u);
  EXPECT_LT(filled->width, plain->width);
  EXPECT_GE(filled->width, 4 * filled->overlap);
  EXPECT_GE(filled->starts.back() + filled->width, 1'460'000);
  for (std::size_t k = 1; k < filled->starts.size(); ++k)
    EXPECT_EQ(filled->starts[k] - filled->starts[k - 1], filled->width - filled->overlap);
  // Few windows (no batch of lanes takes them), windows as queries, or a full last round: as before.
  const auto gene = plan_windows(1'460'000, 40'000, false, s, lanes);
  ASSERT_TRUE(gene.has_value());
  EXPECT_EQ(gene->width, plan_windows(1'460'000, 40'000, false, s, window_limits{})->width);
  const auto as_queries = plan_windows(1'460'000, 1000, true, s, lanes);
  ASSERT_TRUE(as_queries.has_value());
  EXPECT_EQ(as_queries->width, plan_windows(1'460'000, 1000, true, s, window_limits{})->width);
  const std::int64_t step = plain->width - plain->overlap;
  EXPECT_EQ(plan_windows(32 * step + plain->overlap, 5000, false, s, lanes)->starts.size(), 32u);
}

TEST(windows, plan_covers_every_stretch_of_overlap_residues) {
  const scoring_scheme s = test::dna_scheme();
  for (std::int64_t len : {1000, 1001, 1537, 4096, 10007}) {
    for (std::int64_t shorter : {1, 7, 30}) {
      for (bool long_is_query : {false, true}) {
        const auto p = plan_windows(len, shorter, long_is_query, s, small_limits());
        ASSERT_TRUE(p.has_value()) << len << " " << shorter;
        EXPECT_EQ(p->overlap, shorter + (shorter * 2 + 1) / 2 + 1);
        EXPECT_EQ(p->starts.front(), 0);
        EXPECT_GE(p->starts.back() + p->width, len);
        EXPECT_LT(p->starts.back(), len);
        EXPECT_LE(p->width, long_is_query ? 300 : 400);
        // Every stretch [a, a + overlap) lies whole in some window.
        for (std::int64_t a = 0; a + p->overlap <= len; ++a) {
          const bool inside = std::any_of(p->starts.begin(), p->starts.end(), [&](std::int64_t w) {
            return w <= a && a + p->overlap <= std::min(w + p->width, len);
          });
          ASSERT_TRUE(inside) << "stretch at " << a << " of " << len;
        }
      }
    }
  }
  // Stays whole: not tall and thin enough, no gap extension cost, a short side too long for the cap.
  EXPECT_FALSE(plan_windows(150, 10, false, s, small_limits()).has_value());
  EXPECT_FALSE(plan_windows(1000, 300, false, s, small_limits()).has_value());
  EXPECT_FALSE(plan_windows(100000, 100, false, test::dna_scheme(2, -3, 5, 0), small_limits()).has_value());
  EXPECT_FALSE(plan_windows(100000, 100, false, s, small_limits()).has_value());  // overlap 201 > 400 / 2
  window_limits off = small_limits();
  off.enabled = false;
  EXPECT_FALSE(plan_windows(10000, 10, false, s, off).has_value());
  // The defaults: a 1 kb gene against a 100 Mb chromosome, a 1 Gb query against a 1 kb target.
  const auto gene = plan_windows(100'000'000, 1000, false, s, window_limits{});
  ASSERT_TRUE(gene.has_value());
  EXPECT_EQ(gene->overlap, 2001);
  EXPECT_EQ(gene->width, 65536);
  const auto reads = plan_windows(1'000'000'000, 1000, true, s, window_limits{});
  ASSERT_TRUE(reads.has_value());
  EXPECT_EQ(reads->width, 16384);
  EXPECT_FALSE(plan_windows(200'000, 1000, false, s, window_limits{}).has_value());  // below min_long
  // A database engine asks for 64 windows at least: narrower ones (≥ 4 × overlap), else whole.
  window_limits many;
  many.min_windows = 64;
  const auto narrow = plan_windows(2'000'000, 1000, false, s, many);
  ASSERT_TRUE(narrow.has_value());
  EXPECT_GE(narrow->starts.size(), 64u);
  EXPECT_GE(narrow->width, 4 * narrow->overlap);
  EXPECT_LT(narrow->width, 65536);
  EXPECT_EQ(plan_windows(1'000'000'000, 1000, false, s, many)->width, 65536);
  EXPECT_FALSE(plan_windows(1'460'000, 7900, false, s, many).has_value());  // SkV1 x S. kunkelii: 30 windows
}

//! A long side of random residues with copies of (a mutated) short side planted in it.
std::vector<std::uint8_t> long_with_copies(std::mt19937& rng, const std::vector<std::uint8_t>& shorter,
                                           std::size_t length, int alphabet, int copies) {
  std::vector<std::uint8_t> out = test::random_residues(rng, length, alphabet);
  for (int c = 0; c < copies && !shorter.empty(); ++c) {
    const auto copy = test::mutate(rng, shorter, alphabet, 0.08);
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, length - 1)(rng);
    for (std::size_t k = 0; k < copy.size() && at + k < length; ++k) out[at + k] = copy[k];
  }
  return out;
}

void expect_exact(const std::vector<std::uint8_t>& q, const std::vector<std::uint8_t>& t, const scoring_scheme& s,
                  engine& windowed, const std::string& what) {
  const alignment want = reference::align(q, t, s);
  EXPECT_EQ(windowed.align(q, t, s), want) << what << " score " << want.score;
  EXPECT_EQ(windowed.score_only(q, t, s), (best_cell{want.score, want.query_end, want.target_end})) << what;
}

TEST(windows, narrowed_plans_cover_every_stretch) {
  const scoring_scheme s = test::dna_scheme();
  window_limits l = small_limits();
  l.min_windows = 8;
  for (std::int64_t len : {1000, 1300, 2999, 5000}) {
    for (std::int64_t shorter : {2, 9, 20}) {
      const auto p = plan_windows(len, shorter, false, s, l);
      if (!p) {
        EXPECT_LT(len / (4 * (shorter + shorter + 1)), 9) << len << " " << shorter;  // too short for 8 windows
        continue;
      }
      EXPECT_GE(p->starts.size(), 8u);
      EXPECT_GE(p->width, 4 * p->overlap);
      for (std::int64_t a = 0; a + p->overlap <= len; ++a)
        ASSERT_TRUE(std::any_of(p->starts.begin(), p->starts.end(), [&](std::int64_t w) {
          return w <= a && a + p->overlap <= std::min(w + p->width, len);
        })) << "stretch at " << a << " of " << len;
    }
  }
}

TEST(windows, windowed_cpu_engine_equals_the_reference) {
  std::mt19937 rng(20261125);
  const std::vector<std::pair<scoring_scheme, int>> schemes = {
      {test::dna_scheme(), 4}, {test::dna_scheme(1, -1, 0, 1), 4}, {test::protein_scheme(3, 11, 1), 20},
      {test::protein_scheme(4, 10, 2), 20}};
  auto spy = std::make_unique<spy_engine>();
  spy_engine* seen = spy.get();
  auto windowed = with_windows(std::move(spy), small_limits());
  int cut = 0;
  for (int k = 0; k < 160; ++k) {
    const auto& [s, alphabet] = schemes[std::size_t(k) % schemes.size()];
    const std::size_t shorter = std::uniform_int_distribution<std::size_t>(1, alphabet == 4 ? 40 : 12)(rng);
    const std::size_t longer = std::uniform_int_distribution<std::size_t>(200, 3000)(rng);
    const auto small = test::random_residues(rng, shorter, alphabet);
    const auto big = long_with_copies(rng, small, longer, alphabet, k % 4);
    seen->longest = 0;
    const std::string what = "pair " + std::to_string(k) + " (" + std::to_string(shorter) + " x " + std::to_string(longer) + ")";
    if (k % 2 == 0)
      expect_exact(small, big, s, *windowed, what + ", long target");
    else
      expect_exact(big, small, s, *windowed, what + ", long query");
    if (plan_windows(std::int64_t(longer), std::int64_t(shorter), k % 2 == 1, s, small_limits())) {
      EXPECT_LT(seen->longest, longer) << what << ": no window was cut";
      ++cut;
    }
  }
  EXPECT_GT(cut, 100);
  EXPECT_GT(seen->scanned_windows, 1000u);
}

//! A database engine: the windows go to search(), as queries (long query) or as targets.
class search_spy final : public engine {
 public:
  std::string name() const override { return "search-spy"; }
  alignment align(residue_span q, residue_span t, const scoring_scheme& s) override { return cpu_.align(q, t, s); }
  bool scans_first() const override { return true; }
  void search(std::span<const residue_span> queries, std::span<const residue_span> targets, const scoring_scheme& s,
              std::span<best_cell> results, const progress_fn& progress) override {
    ++searches;
    windows += queries.size() * targets.size();
    for (const residue_span& q : queries) longest_query = std::max(longest_query, q.size());
    for (const residue_span& t : targets) longest_target = std::max(longest_target, t.size());
    cpu_.search(queries, targets, s, results, progress);
  }
  std::size_t searches = 0, windows = 0, longest_query = 0, longest_target = 0;

 private:
  cpu_engine cpu_{1};
};

TEST(windows, database_engines_get_the_windows_in_one_search) {
  auto spy = std::make_unique<search_spy>();
  search_spy* seen = spy.get();
  auto windowed = with_windows(std::move(spy), small_limits());
  std::mt19937 rng(17);
  const scoring_scheme s = test::protein_scheme(9, 11, 1);
  for (int k = 0; k < 30; ++k) {
    const auto small = test::random_residues(rng, 3 + std::size_t(k % 9), 20);
    const auto big = long_with_copies(rng, small, 600 + std::size_t(k) * 97, 20, 1 + k % 3);
    const std::size_t before = seen->searches;
    if (k % 2 == 0)
      expect_exact(small, big, s, *windowed, "search pair " + std::to_string(k) + ", long target");
    else
      expect_exact(big, small, s, *windowed, "search pair " + std::to_string(k) + ", long query");
    EXPECT_EQ(seen->searches, before + 2) << k;  // one search for align's scan, one for score_only's
  }
  EXPECT_GT(seen->windows, 300u);
}

TEST(windows, a_long_query_is_scanned_as_targets_when_the_scores_are_symmetric) {
  std::mt19937 rng(31);
  scoring_scheme asymmetric = test::protein_scheme(9, 11, 1);
  asymmetric.matrix[1 * matrix_stride + 2] = 5;  // query rank 1 against target rank 2 only
  for (const bool symmetric : {true, false}) {
    const scoring_scheme s = symmetric ? test::protein_scheme(9, 11, 1) : asymmetric;
    auto spy = std::make_unique<search_spy>();
    search_spy* seen = spy.get();
    auto windowed = with_windows(std::move(spy), small_limits());
    for (int k = 0; k < 20; ++k) {
      const auto small = test::random_residues(rng, 4 + std::size_t(k % 7), 20);
      const auto big = long_with_copies(rng, small, 900 + std::size_t(k) * 131, 20, 2);
      expect_exact(big, small, s, *windowed, (symmetric ? "symmetric " : "asymmetric ") + std::to_string(k));
    }
    // The windows were the targets (symmetric) or the queries (asymmetric), never the whole side.
    EXPECT_LE(symmetric ? seen->longest_target : seen->longest_query, 400u);
    EXPECT_LE(symmetric ? seen->longest_query : seen->longest_target, 10u);
  }
}

TEST(windows, ties_after_a_transposed_scan_follow_the_tie_rule) {
  // Repeats: the transposed scan's cell is another one of the ties; the rescored windows decide.
  const scoring_scheme s = test::dna_scheme(1, -1, 0, 1);
  auto windowed = with_windows(std::make_unique<search_spy>(), small_limits());
  for (int k = 0; k < 30; ++k) {
    const std::size_t period = 1 + std::size_t(k % 4);
    std::vector<std::uint8_t> small(5 + std::size_t(k % 20)), big(500 + std::size_t(k) * 61);
    for (std::size_t i = 0; i < small.size(); ++i) small[i] = std::uint8_t((i + std::size_t(k)) % period);
    for (std::size_t j = 0; j < big.size(); ++j) big[j] = std::uint8_t(j % period);
    if (k % 3 == 0) big[big.size() / 3] = 3;
    expect_exact(big, small, s, *windowed, "repeat " + std::to_string(k));
  }
}

TEST(windows, a_search_groups_tall_pairs_by_their_long_side) {
  // Reads against two long targets and a short one, and a long query against the reads: every
  // cell equals the reference, in one search for the long sides (they share their short sides:
  // the windows of both are the targets of one scan) and one for the short pairs.
  std::mt19937 rng(41);
  const scoring_scheme s = test::dna_scheme();
  std::vector<std::vector<std::uint8_t>> reads;
  for (int k = 0; k < 6; ++k) reads.push_back(test::random_residues(rng, 8 + std::size_t(k) * 3, 4));
  std::vector<std::vector<std::uint8_t>> db = {long_with_copies(rng, reads[0], 2600, 4, 2), test::random_residues(rng, 30, 4),
                                               long_with_copies(rng, reads[3], 1900, 4, 3)};
  const auto check = [&](std::span<const residue_span> qs, std::span<const residue_span> ts, std::size_t searches) {
    auto spy = std::make_unique<search_spy>();
    search_spy* seen = spy.get();
    auto windowed = with_windows(std::move(spy), small_limits());
    std::vector<best_cell> cells(qs.size() * ts.size());
    windowed->search(qs, ts, s, cells, {});
    for (std::size_t q = 0; q < qs.size(); ++q)
      for (std::size_t t = 0; t < ts.size(); ++t) {
        const alignment want = reference::align(qs[q], ts[t], s);
        EXPECT_EQ(cells[q * ts.size() + t], (best_cell{want.score, want.query_end, want.target_end})) << q << " x " << t;
      }
    EXPECT_EQ(seen->searches, searches);
    EXPECT_LE(std::max(seen->longest_query, seen->longest_target), 400u);
  };
  std::vector<residue_span> read_spans(reads.begin(), reads.end()), db_spans(db.begin(), db.end());
  check(read_spans, db_spans, 2);
  const residue_span genome(db[0]);
  check(std::span<const residue_span>(&genome, 1), read_spans, 1);
}

//! A database engine's windows at test sizes: it scans targets up to 400 residues, and its
//! searches need far more tasks (64) than these tests' searches have.
window_limits limits_of_a_database_engine() {
  window_limits limits = small_limits();
  limits.max_width = 4000;
  limits.min_width = 64;
  limits.scan_target_limit = 400;
  limits.min_long = 401;
  limits.min_ratio = 2;
  limits.min_windows = 64;
  return limits;
}

TEST(windows, beyond_a_database_engines_target_limit_windows_widen_or_stay_within_it) {
  // A database engine that scans targets up to 400 residues (scan_target_limit): short sides
  // whose overlap is at most a quarter of that get windows within it; longer ones get windows
  // four overlaps wide (the engine scans those the other way round), unless the scores are
  // asymmetric. A long side beyond the limit is windowed whatever the number of tasks (one
  // window when a single window four overlaps wide holds it), all in one search.
  const window_limits limits = limits_of_a_database_engine();
  std::mt19937 rng(53);
  scoring_scheme asymmetric = test::dna_scheme();
  asymmetric.matrix[1 * matrix_stride + 2] = 1;  // query rank 1 against target rank 2 only
  for (const bool symmetric : {true, false}) {
    const scoring_scheme s = symmetric ? test::dna_scheme() : asymmetric;
    for (const std::size_t short_len : {std::size_t(20), std::size_t(70)}) {
      const std::int64_t overlap = window_overlap(std::int64_t(short_len), s);
      auto spy = std::make_unique<search_spy>();
      search_spy* seen = spy.get();
      auto windowed = with_windows(std::move(spy), limits);
      std::vector<std::vector<std::uint8_t>> shorts, longs;
      for (int k = 0; k < 3; ++k) shorts.push_back(test::random_residues(rng, short_len - std::size_t(k), 4));
      longs.push_back(long_with_copies(rng, shorts[0], 2300, 4, 2));
      longs.push_back(long_with_copies(rng, shorts[2], 1500, 4, 3));
      longs.push_back(long_with_copies(rng, shorts[1], 500, 4, 1));  // beyond the limit, within 4 overlaps
      std::vector<residue_span> qs(shorts.begin(), shorts.end()), ts(longs.begin(), longs.end());
      std::vector<best_cell> cells(qs.size() * ts.size());
      windowed->search(qs, ts, s, cells, {});
      const std::string what = std::string(symmetric ? "symmetric" : "asymmetric") + ", short sides of " +
                               std::to_string(short_len) + ", overlap " + std::to_string(overlap);
      for (std::size_t q = 0; q < qs.size(); ++q)
        for (std::size_t t = 0; t < ts.size(); ++t) {
          const alignment want = reference::align(qs[q], ts[t], s);
          EXPECT_EQ(cells[q * ts.size() + t], (best_cell{want.score, want.query_end, want.target_end}))
              << what << ": " << q << " x " << t;
        }
      EXPECT_EQ(seen->searches, 1u) << what;  // both long sides' windows in one search
      EXPECT_LT(seen->longest_target, 1500u) << what;
      if (4 * overlap <= 400 || !symmetric)
        EXPECT_LE(seen->longest_target, 400u) << what;
      else
        EXPECT_EQ(std::int64_t(seen->longest_target), 4 * overlap) << what;
    }
  }
}

//! Genes against genomes in small: three short sides of 70, 50 and 30 residues, and long sides
//! holding copies of them (ties): 2,600 and 1,700 residues, beyond limits_of_a_database_engine's
//! target limit, and 270, too short for windows.
struct few_tasks_data {
  std::vector<std::vector<std::uint8_t>> shorts, longs;
  std::vector<residue_span> qs, ts;
  explicit few_tasks_data(std::mt19937& rng) {
    for (int k = 0; k < 3; ++k) shorts.push_back(test::random_residues(rng, 70 - std::size_t(k) * 20, 4));
    longs.push_back(long_with_copies(rng, shorts[0], 2600, 4, 4));
    longs.push_back(long_with_copies(rng, shorts[2], 1700, 4, 3));
    longs.push_back(long_with_copies(rng, shorts[1], 270, 4, 2));
    qs.assign(shorts.begin(), shorts.end());
    ts.assign(longs.begin(), longs.end());
  }
  few_tasks_data(const few_tasks_data&) = delete;  // qs and ts point into shorts and longs
  few_tasks_data& operator=(const few_tasks_data&) = delete;
};

TEST(windows, searches_of_few_tasks_take_narrower_windows) {
  // Genes against genomes: few short sides whose overlap is long, long sides beyond the engine's
  // target limit. Where the search has fewer tasks than keep the engine busy (fill_tasks), the
  // windows are three, then two overlaps wide; every cell stays the reference's, copies of the
  // short sides (ties) included, on both sides of the windows' edges. A long side too short for
  // windows, against the same short sides, joins the search as one window.
  window_limits limits = limits_of_a_database_engine();
  std::mt19937 rng(59);
  const scoring_scheme s = test::dna_scheme();
  const std::int64_t overlap = window_overlap(70, s);
  for (const std::int64_t fill : {std::int64_t(0), std::int64_t(12), std::int64_t(20), std::int64_t(1000)}) {
    limits.fill_tasks = fill;
    auto spy = std::make_unique<search_spy>();
    search_spy* seen = spy.get();
    auto windowed = with_windows(std::move(spy), limits);
    const few_tasks_data data(rng);  // the 270-residue side, too short for windows, joins as one
    const std::vector<residue_span>& qs = data.qs;
    const std::vector<residue_span>& ts = data.ts;
    std::vector<best_cell> cells(qs.size() * ts.size());
    windowed->search(qs, ts, s, cells, {});
    for (std::size_t q = 0; q < qs.size(); ++q)
      for (std::size_t t = 0; t < ts.size(); ++t) {
        const alignment want = reference::align(qs[q], ts[t], s);
        EXPECT_EQ(cells[q * ts.size() + t], (best_cell{want.score, want.query_end, want.target_end}))
            << "fill " << fill << ": " << q << " x " << t;
      }
    EXPECT_EQ(seen->searches, 1u) << fill;  // the short long side's pairs too
    // Four overlaps wide: 2600 and 1700 residues give 6 + 4 windows, 30 tasks of a window and a
    // short side (the joined side's are not counted); 12 tasks at once need 24: enough; 20 need
    // 40: three overlaps give 9 + 6 windows, 45 tasks; 1,000 need more than even two overlaps give.
    const std::int64_t wide = fill == 1000 ? 2 : fill == 20 ? 3 : 4;
    EXPECT_EQ(std::int64_t(seen->longest_target), wide * overlap) << fill;
  }
}

//! A database engine whose pair engine fills tall pairs together (scores_tall_pairs_at_once):
//! what reaches its search() and its score_tall_pairs().
class at_once_spy final : public engine {
 public:
  //! at_once: pairs whose longer side is longer than `longer_than` residues are filled at once.
  at_once_spy(bool at_once, std::size_t longer_than) : at_once_(at_once), longer_than_(longer_than) {}
  std::string name() const override { return "at-once-spy"; }
  alignment align(residue_span q, residue_span t, const scoring_scheme& s) override { return cpu_.align(q, t, s); }
  bool scans_first() const override { return true; }
  bool scores_tall_pairs_at_once(residue_span q, residue_span t, const scoring_scheme&) const override {
    return at_once_ && std::max(q.size(), t.size()) > longer_than_;
  }
  void search(std::span<const residue_span> queries, std::span<const residue_span> targets, const scoring_scheme& s,
              std::span<best_cell> results, const progress_fn& progress) override {
    searched += queries.size() * targets.size();
    cpu_.search(queries, targets, s, results, progress);
  }
  void score_tall_pairs(std::span<const pair_job> jobs, const scoring_scheme& s, std::span<best_cell> results,
                        const progress_fn& progress) override {
    whole += jobs.size();
    for (const pair_job& j : jobs) longest_whole = std::max(longest_whole, std::max(j.query.size(), j.target.size()));
    cpu_.score_many(jobs, s, results, progress);
  }
  std::size_t searched = 0, whole = 0, longest_whole = 0;

 private:
  bool at_once_;
  std::size_t longer_than_;
  cpu_engine cpu_{1};
};

TEST(windows, searches_of_few_tasks_go_whole_to_an_engine_that_fills_tall_pairs_at_once) {
  // As above, but the engine fills tall pairs together (the fast engine's batches): a search of
  // too few tasks goes to its score_tall_pairs whole instead of narrower windows, and so do the pairs
  // of a long side too short for windows that would have joined it, when the engine fills them at
  // once too; with enough tasks, or an engine that does not, the windows stay. Every cell is the
  // reference's either way.
  window_limits limits = limits_of_a_database_engine();
  std::mt19937 rng(61);
  const scoring_scheme s = test::dna_scheme();
  for (const int mode : {0, 1, 2})  // 0: no batches; 1: pairs beyond the scan's limit (400); 2: every pair
    for (const std::int64_t fill : {std::int64_t(12), std::int64_t(20), std::int64_t(1000)}) {
      const bool at_once = mode > 0;
      limits.fill_tasks = fill;
      auto spy = std::make_unique<at_once_spy>(at_once, mode == 2 ? 0 : 400);
      at_once_spy* seen = spy.get();
      auto windowed = with_windows(std::move(spy), limits);
      const few_tasks_data data(rng);  // the 270-residue side is not tall: searched, or joins the whole pairs
      const std::vector<residue_span>& qs = data.qs;
      const std::vector<residue_span>& ts = data.ts;
      std::vector<best_cell> cells(qs.size() * ts.size());
      windowed->search(qs, ts, s, cells, {});
      const std::string what = "mode " + std::to_string(mode) + ", fill " + std::to_string(fill);
      for (std::size_t q = 0; q < qs.size(); ++q)
        for (std::size_t t = 0; t < ts.size(); ++t) {
          const alignment want = reference::align(qs[q], ts[t], s);
          EXPECT_EQ(cells[q * ts.size() + t], (best_cell{want.score, want.query_end, want.target_end}))
              << what << ": " << q << " x " << t;
        }
      // 30 tasks at four overlaps wide: enough for 12 at once (24), too few for 20 or 1,000.
      const bool whole = at_once && fill > 12;
      // 3 short sides x the 2 long sides, and x the short long side when it joins them
      EXPECT_EQ(seen->whole, !whole ? 0u : mode == 2 ? 9u : 6u) << what;
      EXPECT_EQ(seen->longest_whole, whole ? 2600u : 0u) << what;
      if (whole)
        EXPECT_EQ(seen->searched, mode == 2 ? 0u : 3u) << what;  // the short long side's pairs alone
      else
        EXPECT_GE(seen->searched, 33u) << what;  // at least 30 tasks of windows and the 3 joined pairs
      const std::vector<std::string> d = windowed->decisions();
      EXPECT_EQ(std::count_if(d.begin(), d.end(), [](const std::string& x) { return x.find("filled at once") != std::string::npos; }),
                whole ? 1 : 0)
          << what;
    }
}

TEST(windows, search_of_an_engine_that_is_not_a_database_engine_cuts_its_tall_pairs) {
  auto spy = std::make_unique<spy_engine>();
  spy_engine* seen = spy.get();
  auto windowed = with_windows(std::move(spy), small_limits());
  std::mt19937 rng(23);
  const scoring_scheme s = test::dna_scheme();
  const auto q = test::random_residues(rng, 25, 4);
  const std::vector<std::vector<std::uint8_t>> db = {long_with_copies(rng, q, 2500, 4, 2), test::random_residues(rng, 40, 4),
                                                      long_with_copies(rng, q, 1800, 4, 1)};
  std::vector<residue_span> targets(db.begin(), db.end());
  const residue_span query(q);
  std::vector<best_cell> cells(targets.size());
  windowed->search(std::span<const residue_span>(&query, 1), targets, s, cells, {});
  for (std::size_t t = 0; t < db.size(); ++t) {
    const alignment want = reference::align(q, db[t], s);
    EXPECT_EQ(cells[t], (best_cell{want.score, want.query_end, want.target_end})) << "target " << t;
  }
  EXPECT_LT(seen->longest, 1800u);  // the two long targets went in windows
}

//! With share_threads, a search is one score_many, and a tall pair holding a small share of its
//! cells stays whole (no overlaps paid for threads that are busy anyway), while one holding a
//! large share is cut; the cells are the reference's either way.
TEST(windows, tall_pairs_with_a_small_share_of_the_work_stay_whole) {
  std::mt19937 rng(24);
  const scoring_scheme s = test::dna_scheme();
  std::vector<std::vector<std::uint8_t>> qs;
  for (int k = 0; k < 12; ++k) qs.push_back(test::random_residues(rng, 25, 4));
  const std::vector<std::vector<std::uint8_t>> db = {long_with_copies(rng, qs[0], 2500, 4, 2)};
  const std::vector<residue_span> targets(db.begin(), db.end());
  for (const std::size_t queries : {std::size_t(1), qs.size()}) {
    auto spy = std::make_unique<spy_engine>();
    spy_engine* seen = spy.get();
    window_limits limits = small_limits();
    limits.share_threads = 2;  // a pair stays whole at most 1/4 of the cells
    auto windowed = with_windows(std::move(spy), limits);
    const std::vector<residue_span> query_spans(qs.begin(), qs.begin() + std::ptrdiff_t(queries));
    std::vector<best_cell> cells(queries);
    windowed->search(query_spans, targets, s, cells, {});
    for (std::size_t q = 0; q < queries; ++q) {
      const alignment want = reference::align(qs[q], db[0], s);
      EXPECT_EQ(cells[q], (best_cell{want.score, want.query_end, want.target_end})) << "query " << q;
    }
    EXPECT_EQ(seen->batches, 1u) << "one score_many for the search";
    if (queries == 1) EXPECT_LT(seen->longest, 2500u) << "the only pair holds all the work: cut";
    else EXPECT_EQ(seen->longest, 2500u) << "12 pairs of 1/12 each: whole";
  }
}

//! Tall pairs as many as the threads, of equal cells, stay whole: each thread takes one pair,
//! and windows would only add their overlaps (two reads against a genome on 2 threads); with
//! twice as many threads as pairs they are cut, so that every thread has work. The cells are
//! the reference's either way.
TEST(windows, as_many_tall_pairs_as_threads_stay_whole) {
  std::mt19937 rng(25);
  const scoring_scheme s = test::dna_scheme();
  const std::vector<std::vector<std::uint8_t>> qs = {test::random_residues(rng, 25, 4), test::random_residues(rng, 25, 4)};
  const std::vector<std::vector<std::uint8_t>> db = {long_with_copies(rng, qs[1], 2500, 4, 2)};
  const std::vector<residue_span> targets(db.begin(), db.end());
  const std::vector<residue_span> query_spans(qs.begin(), qs.end());
  for (const std::int64_t threads : {2, 4}) {
    auto spy = std::make_unique<spy_engine>();
    spy_engine* seen = spy.get();
    window_limits limits = small_limits();
    limits.share_threads = threads;
    auto windowed = with_windows(std::move(spy), limits);
    std::vector<best_cell> cells(qs.size());
    windowed->search(query_spans, targets, s, cells, {});
    for (std::size_t q = 0; q < qs.size(); ++q) {
      const alignment want = reference::align(qs[q], db[0], s);
      EXPECT_EQ(cells[q], (best_cell{want.score, want.query_end, want.target_end})) << "query " << q;
    }
    EXPECT_EQ(seen->batches, 1u);
    if (threads == 2) EXPECT_EQ(seen->longest, 2500u) << "one pair per thread: whole";
    else EXPECT_LT(seen->longest, 2500u) << "two pairs on four threads: cut";
  }
  // A long query against two short targets stays cut on 2 threads: its row bands, whole, would
  // hold state for every one of its rows.
  auto spy = std::make_unique<spy_engine>();
  spy_engine* seen = spy.get();
  window_limits limits = small_limits();
  limits.share_threads = 2;
  auto windowed = with_windows(std::move(spy), limits);
  const residue_span long_query(db[0]);
  const std::vector<residue_span> shorts(qs.begin(), qs.end());
  std::vector<best_cell> cells(shorts.size());
  windowed->search(std::span<const residue_span>(&long_query, 1), shorts, s, cells, {});
  for (std::size_t t = 0; t < qs.size(); ++t) {
    const alignment want = reference::align(db[0], qs[t], s);
    EXPECT_EQ(cells[t], (best_cell{want.score, want.query_end, want.target_end})) << "target " << t;
  }
  EXPECT_LT(seen->longest, 2500u) << "a long query: cut";
}

TEST(windows, ties_in_low_complexity_sequences) {
  // Repeats: many cells share the best score; the tie rule must pick the reference's cell.
  const scoring_scheme s = test::dna_scheme(1, -1, 0, 1);
  auto windowed = with_windows(std::make_unique<cpu_engine>(2), small_limits());
  std::mt19937 rng(11);
  for (int k = 0; k < 40; ++k) {
    const std::size_t period = 1 + std::size_t(k % 4);
    std::vector<std::uint8_t> small(5 + std::size_t(k % 20)), big(400 + std::size_t(k) * 53);
    for (std::size_t i = 0; i < small.size(); ++i) small[i] = std::uint8_t(i % period);
    for (std::size_t j = 0; j < big.size(); ++j) big[j] = std::uint8_t(j % period);
    if (k % 3 == 0) big[big.size() / 2] = 3;  // a break in the repeat
    expect_exact(small, big, s, *windowed, "repeat " + std::to_string(k) + " long target");
    expect_exact(big, small, s, *windowed, "repeat " + std::to_string(k) + " long query");
  }
}

TEST(windows, score_many_and_align_many_mix_whole_and_windowed_pairs) {
  const scoring_scheme s = test::dna_scheme();
  auto windowed = with_windows(std::make_unique<cpu_engine>(2), small_limits());
  std::mt19937 rng(5);
  std::vector<std::vector<std::uint8_t>> seqs;
  std::vector<pair_job> jobs;
  for (int k = 0; k < 12; ++k) {
    seqs.push_back(test::random_residues(rng, k % 3 == 0 ? 120 : 20, 4));
    seqs.push_back(long_with_copies(rng, seqs.back(), k % 3 == 0 ? 150 : 1500, 4, 2));
  }
  for (std::size_t k = 0; k < seqs.size(); k += 2)
    jobs.push_back(k % 4 == 0 ? pair_job{k, k + 1, seqs[k], seqs[k + 1]} : pair_job{k + 1, k, seqs[k + 1], seqs[k]});
  std::vector<best_cell> cells(jobs.size());
  std::vector<alignment> alns(jobs.size());
  windowed->score_many(jobs, s, cells, {});
  windowed->align_many(jobs, s, alns, {});
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const alignment want = reference::align(jobs[k].query, jobs[k].target, s);
    EXPECT_EQ(alns[k], want) << "job " << k;
    EXPECT_EQ(cells[k], (best_cell{want.score, want.query_end, want.target_end})) << "job " << k;
  }
  // Progress counts the pairs' own cells (the overlaps, scanned twice, are scaled away).
  std::atomic<std::uint64_t> done{0};
  windowed->score_many(jobs, s, cells, [&](std::uint64_t c) { done += c; });
  std::uint64_t total = 0;
  for (const auto& j : jobs) total += std::uint64_t(j.query.size()) * j.target.size();
  EXPECT_LE(done.load(), total);
  EXPECT_GE(double(done.load()), 0.97 * double(total));
  // A known best cell (from a database scan) skips the scan and gives the same alignment.
  std::vector<pair_job> known = jobs;
  for (std::size_t k = 0; k < known.size(); ++k) known[k].known = cells[k];
  std::vector<alignment> again(jobs.size());
  windowed->align_many(known, s, again, {});
  EXPECT_EQ(again, alns);
  // An engine that is not a database engine gets every tall pair's windows and the whole pairs
  // in one batch (its threads across all of them), with the same cells.
  auto spy = std::make_unique<spy_engine>();
  spy_engine* seen = spy.get();
  auto batched = with_windows(std::move(spy), small_limits());
  std::vector<best_cell> once(jobs.size());
  batched->score_many(jobs, s, once, {});
  EXPECT_EQ(once, cells);
  EXPECT_EQ(seen->batches, 1u);
  EXPECT_GT(seen->scanned_windows, jobs.size());
  EXPECT_LT(seen->longest, 1500u);
}

TEST(windows, known_best_cells_are_aligned_within_the_reach_of_their_score) {
  // Hits of reads whose copies in the genome carry long deletions and insertions of the read
  // (an alignment spanning far more than the read on the long side) and a tandem repeat of it
  // (paths that tie): each is aligned in the residues an alignment of its score can reach
  // (window_reach_of_score), never fewer than its own span, and equals the reference's; the box
  // is narrower than the windows' overlap whenever the score allows it.
  std::mt19937 rng(1127);
  for (const scoring_scheme& s : {test::dna_scheme(), test::dna_scheme(1, -1, 0, 1)}) {
    window_limits limits = small_limits();
    limits.min_windows = 1000;
    auto spy = std::make_unique<spy_engine>();
    spy_engine* seen = spy.get();
    auto windowed = with_windows(std::move(spy), limits);
    std::size_t narrower = 0;
    for (int k = 0; k < 24; ++k) {
      const auto read = test::random_residues(rng, 30 + std::size_t(k % 10) * 6, 4);  // windows of 400 at most
      auto genome = test::random_residues(rng, 3000, 4);
      std::vector<std::uint8_t> copy;  // the read with a gap in the genome's copy, or with an insertion
      const std::size_t cut = read.size() / 2, gap = std::size_t(k % 4) * 9;
      copy.insert(copy.end(), read.begin(), read.begin() + std::ptrdiff_t(cut));
      if (k % 2 == 0) {
        const auto extra = test::random_residues(rng, gap, 4);
        copy.insert(copy.end(), extra.begin(), extra.end());
        copy.insert(copy.end(), read.begin() + std::ptrdiff_t(cut), read.end());
      } else {
        copy.insert(copy.end(), read.begin() + std::ptrdiff_t(std::min(read.size(), cut + gap / 3)), read.end());
      }
      if (k % 3 == 0) copy.insert(copy.end(), copy.begin(), copy.end());  // tandem: equal paths
      const std::size_t at = 1000 + std::size_t(k) * 37;
      std::copy(copy.begin(), copy.end(), genome.begin() + std::ptrdiff_t(at));
      const alignment want = reference::align(read, genome, s);
      ASSERT_GT(want.score, 0);
      const best_cell end{want.score, want.query_end, want.target_end};
      const pair_job job{0, 0, residue_span(read).first(std::size_t(end.query_end)),
                         residue_span(genome).first(std::size_t(end.target_end)), end};
      const std::int64_t reach = window_reach_of_score(end.query_end, end.score, s);
      ASSERT_GE(reach, want.target_end - want.target_begin) << "the bound holds the alignment, read " << k;
      seen->longest = 0;
      std::vector<alignment> got(1);
      windowed->align_many(std::span(&job, 1), s, got, {});
      EXPECT_EQ(got[0], want) << "read " << k << " " << s.matrix_name;
      EXPECT_LE(std::int64_t(seen->longest), std::max<std::int64_t>(reach, std::int64_t(read.size())))
          << "read " << k;
      narrower += reach < window_overlap(std::int64_t(read.size()), s) ? 1 : 0;
    }
    EXPECT_GT(narrower, 12u) << s.matrix_name;
  }
}

}  // namespace
}  // namespace swat

namespace swat {
namespace {

// A long side shared by many short ones is windowed when the group has enough tasks (short
// sides × windows), though one pair alone would have too few windows and stay whole: reads
// against a genome. The cells equal the reference; one short side alone is searched whole.
TEST(windows, many_short_sides_share_the_windows_of_one_long_side) {
  std::mt19937 rng(53);
  const scoring_scheme s = test::dna_scheme();
  window_limits limits = small_limits();
  limits.min_windows = 40;  // one read: ~8 windows of the genome, too few; 12 reads: ~96 tasks
  std::vector<std::vector<std::uint8_t>> reads;
  for (int k = 0; k < 12; ++k) reads.push_back(test::random_residues(rng, 10 + std::size_t(k) * 2, 4));
  const std::vector<std::uint8_t> genome = long_with_copies(rng, reads[2], 2400, 4, 3);
  const residue_span target(genome);
  for (const std::size_t count : {std::size_t(12), std::size_t(1)}) {
    auto spy = std::make_unique<search_spy>();
    search_spy* seen = spy.get();
    auto windowed = with_windows(std::move(spy), limits);
    std::vector<residue_span> qs(reads.begin(), reads.begin() + std::ptrdiff_t(count));
    std::vector<best_cell> cells(qs.size());
    windowed->search(qs, std::span<const residue_span>(&target, 1), s, cells, {});
    for (std::size_t q = 0; q < qs.size(); ++q) {
      const alignment want = reference::align(qs[q], genome, s);
      EXPECT_EQ(cells[q], (best_cell{want.score, want.query_end, want.target_end})) << count << " reads, read " << q;
    }
    if (count == 12) {
      EXPECT_LE(seen->longest_target, 400u);  // windows
      ASSERT_FALSE(windowed->decisions().empty());
      EXPECT_NE(windowed->decisions()[0].find("windows of"), std::string::npos) << windowed->decisions()[0];
    } else {
      EXPECT_EQ(seen->longest_target, genome.size());  // whole
      EXPECT_TRUE(windowed->decisions().empty());
    }
  }
}

}  // namespace
}  // namespace swat

namespace swat {
namespace {

// Hits whose best cell a search found are aligned in the overlap before that cell, whatever the
// pair's number of windows (one read against a genome: too few windows to scan, but the box is
// narrow), in the inner engine's batch.
TEST(windows, known_best_cells_are_aligned_in_their_overlap_whatever_the_windows) {
  std::mt19937 rng(59);
  const scoring_scheme s = test::dna_scheme();
  window_limits limits = small_limits();
  limits.min_windows = 1000;  // never enough windows to scan one pair
  auto spy = std::make_unique<spy_engine>();
  spy_engine* seen = spy.get();
  auto windowed = with_windows(std::move(spy), limits);
  std::vector<pair_job> jobs;
  std::vector<std::vector<std::uint8_t>> reads, genomes;
  for (int k = 0; k < 6; ++k) {
    reads.push_back(test::random_residues(rng, 12 + std::size_t(k), 4));
    genomes.push_back(long_with_copies(rng, reads.back(), 2000 + std::size_t(k) * 100, 4, 2));
  }
  std::vector<alignment> want;
  for (std::size_t k = 0; k < reads.size(); ++k) {
    want.push_back(reference::align(reads[k], genomes[k], s));
    const best_cell end{want.back().score, want.back().query_end, want.back().target_end};
    // As the pipeline hands a scanned hit over: the prefixes that end at its best cell.
    jobs.push_back({k, k, residue_span(reads[k]).first(std::size_t(end.query_end)),
                    residue_span(genomes[k]).first(std::size_t(end.target_end)), end});
  }
  std::vector<alignment> got(jobs.size());
  windowed->align_many(jobs, s, got, {});
  for (std::size_t k = 0; k < jobs.size(); ++k) EXPECT_EQ(got[k], want[k]) << "read " << k;
  EXPECT_LT(seen->longest, 200u);  // boxes of the overlap (read + gaps), never the genome
}

}  // namespace
}  // namespace swat

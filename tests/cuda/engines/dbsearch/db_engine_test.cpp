// The database-search engine's alignment of reported hits (db_engine.cpp, align_many): hits
// whose boxes are large run several at once (up to four) on their own pair engines, the others
// many at once on the GPU's batched boxes, and hits whose boxes hold
// the same residues (a sequence the database holds more than once) are aligned once; every
// alignment equals the CPU engine's of the whole pair (score, both ends, CIGAR), and the stage
// names say how many boxes were distinct. Weak hits of long prefixes take their boxes from the
// pruned reverse pass on the CPU. Many queries against a few targets are scanned the
// other way round (the queries as the database), with the same best cells as the CPU engine.

#include <gtest/gtest.h>

#include <cstdio>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cuda/engines/dbsearch/db_align.hpp"
#include "cuda/engines/dbsearch/db_engine.hpp"
#include "cuda/engines/fast/fast_engine.hpp"
#include "engine/cpu_engine.hpp"
#include "engines/dbsearch/db_test_util.hpp"
#include "engines/fast/fast_test_util.hpp"
#include "scoring/scoring.hpp"
#include "support/gpu_test.hpp"

namespace swat::dbsearch {
namespace {

//! q with 1 in 10 residues substituted and 1 in 40 dropped or doubled, between random flanks.
std::vector<std::uint8_t> mutated(std::mt19937& rng, const std::vector<std::uint8_t>& q, const scoring_scheme& s) {
  std::vector<std::uint8_t> t = test::random_residues(rng, 40, s);
  std::uniform_int_distribution<int> roll(0, 39), residue(0, 19);
  for (std::uint8_t r : q) {
    const int e = roll(rng);
    if (e == 0) continue;
    if (e == 1) t.push_back(r);
    t.push_back(e < 5 ? std::uint8_t(residue(rng)) : r);
  }
  const auto tail = test::random_residues(rng, 40, s);
  t.insert(t.end(), tail.begin(), tail.end());
  return t;
}

//! The CPU engine's alignments of the whole pairs (want), and the pipeline's jobs of them: each
//! pair's prefixes that end at its best cell, with that cell known.
struct cpu_hits {
  std::vector<pair_job> jobs;
  std::vector<alignment> want;
};
cpu_hits hits_of(const std::vector<std::vector<std::uint8_t>>& queries, const std::vector<std::vector<std::uint8_t>>& targets,
                 const std::vector<std::pair<std::size_t, std::size_t>>& pairs, const scoring_scheme& s) {
  cpu_engine cpu(0);
  std::vector<pair_job> whole;
  for (const auto& [q, t] : pairs) whole.push_back({q, t, queries[q], targets[t]});
  std::vector<best_cell> cells(whole.size());
  cpu.score_many(whole, s, cells, {});
  cpu_hits out;
  out.want.resize(whole.size());
  cpu.align_many(whole, s, out.want, {});
  for (std::size_t k = 0; k < whole.size(); ++k) {
    EXPECT_GT(cells[k].score, 0) << k;
    pair_job j = whole[k];
    j.query = j.query.first(std::size_t(cells[k].query_end));
    j.target = j.target.first(std::size_t(cells[k].target_end));
    j.known = cells[k];
    out.jobs.push_back(j);
  }
  return out;
}

//! The database engine on the test GPU: the fast engine for pairs, the CPU engine for boxes the
//! GPU did not reach, fast engines for the lanes.
std::unique_ptr<engine> db_engine_on_test_gpu() {
  engine_options o;
  o.gpu_id = swat::test::test_device().id();
  return make_db_engine(fast::make_fast_engine(o), std::make_unique<cpu_engine>(0), scan_options{}, o.gpu_id,
                        [o](std::uint64_t gpu_bytes) {
                          engine_options b = o;
                          b.max_gpu_mem_bytes = gpu_bytes;
                          return fast::make_fast_engine(b);
                        });
}

//! Every alignment the CPU engine's (score, both ends, CIGAR).
void expect_alignments(const std::vector<alignment>& got, const std::vector<alignment>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k)
    EXPECT_EQ(got[k], want[k]) << what << " hit " << k << ": " << got[k].score << " @" << got[k].query_begin << "-"
                               << got[k].query_end << " want " << want[k].score << " @" << want[k].query_begin << "-"
                               << want[k].query_end;
}

TEST(DbEngine, LargeBoxesAtOnceAndRepeatedBoxesOnceEqualTheCpu) {
  SWAT_REQUIRE_DEVICE();
  const scoring_scheme s = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  std::mt19937 rng(20261125);
  // Three distinct large hits (boxes of ~4,600² cells, above the 2^24 cells this test lets the
  // GPU's batched boxes take), each also held twice more as separate copies: the pair engines
  // align them, several at once; small hits, one of them repeated: the batched boxes.
  std::vector<std::vector<std::uint8_t>> queries, targets;
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  // (query, target)
  for (int k = 0; k < 3; ++k) {
    queries.push_back(test::random_residues(rng, 4600 + 100 * k, s));
    for (int copy = 0; copy < 3; ++copy) {
      if (copy == 0) targets.push_back(mutated(rng, queries.back(), s));
      else targets.push_back(targets.back());  // same residues, another buffer
      pairs.push_back({queries.size() - 1, targets.size() - 1});
    }
  }
  for (int k = 0; k < 6; ++k) {
    queries.push_back(test::random_residues(rng, 300, s));
    targets.push_back(mutated(rng, queries.back(), s));
    pairs.push_back({queries.size() - 1, targets.size() - 1});
    if (k == 0) {
      targets.push_back(targets.back());
      pairs.push_back({queries.size() - 1, targets.size() - 1});
    }
  }
  const auto [jobs, want] = hits_of(queries, targets, pairs, s);

  engine_options o;
  o.gpu_id = swat::test::test_device().id();
  int made = 0;
  scan_options lower;
  lower.large_box_cells = std::int64_t(1) << 24;
  auto db = make_db_engine(fast::make_fast_engine(o), std::make_unique<cpu_engine>(0), lower, o.gpu_id,
                           [&](std::uint64_t gpu_bytes) {
                             ++made;
                             EXPECT_GT(gpu_bytes, 0u);
                             engine_options b = o;
                             b.max_gpu_mem_bytes = gpu_bytes;
                             return fast::make_fast_engine(b);
                           });
  std::vector<alignment> got(jobs.size());
  db->align_many(jobs, s, got, {});
  for (std::size_t k = 0; k < jobs.size(); ++k)
    EXPECT_EQ(got[k], want[k]) << "hit " << k << ": " << got[k].score << " @" << got[k].query_begin << "-"
                               << got[k].query_end << " want " << want[k].score << " @" << want[k].query_begin << "-"
                               << want[k].query_end;
  EXPECT_EQ(made, 3) << "one pair engine per distinct large box, at most four";
  bool named_large = false, named_small = false;
  for (const auto& [name, seconds] : db->stage_seconds()) {
    named_large = named_large || name == "large boxes 9 (3 distinct)";
    named_small = named_small || name == "gpu boxes 7 (6 distinct)";
  }
  EXPECT_TRUE(named_large && named_small);
}

TEST(DbEngine, LargeHitsAlignedInTheirReachWindowsEqualTheCpu) {
  SWAT_REQUIRE_DEVICE();
  // Hits whose reach window has 2^20 cells or more skip the reverse pass and are aligned in the
  // whole window on the GPU's boxes (strips of one box on many warps): proteins of 2,100-3,400
  // residues (a weak reach bound: the windows are the whole prefixes) and DNA of 6-9 kb (a tight
  // one), each against a mutated copy, a repeated target among them, and small hits beside
  // them that still take the reverse pass. Every alignment equals the CPU engine's of the whole
  // pair, and the stages say how many hits skipped the reverse pass.
  for (const bool dna : {false, true}) {
    const scoring_scheme s = dna ? scoring::make_dna_scheme(2, -3, 5, 2) : scoring::make_protein_scheme("BLOSUM62", 11, 1);
    std::mt19937 rng(dna ? 112702u : 112701u);
    std::vector<std::vector<std::uint8_t>> queries, targets;
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    const std::vector<std::size_t> lengths =
        dna ? std::vector<std::size_t>{6000, 9000, 150, 400} : std::vector<std::size_t>{2100, 3400, 2600, 200, 350};
    // 1 in 10 residues substituted (by a residue of the alphabet), 1 in 40 dropped or doubled.
    const auto mutate = [&](const std::vector<std::uint8_t>& q) {
      std::vector<std::uint8_t> t = test::random_residues(rng, 40, s);
      std::uniform_int_distribution<int> roll(0, 39);
      for (std::uint8_t r : q) {
        const int e = roll(rng);
        if (e == 0) continue;
        if (e == 1) t.push_back(r);
        t.push_back(e < 5 ? test::random_residues(rng, 1, s).front() : r);
      }
      return t;
    };
    for (std::size_t len : lengths) {
      queries.push_back(test::random_residues(rng, len, s));
      targets.push_back(mutate(queries.back()));
      pairs.push_back({queries.size() - 1, targets.size() - 1});
    }
    targets.push_back(targets.front());  // the first large hit twice
    pairs.push_back({0, targets.size() - 1});
    const auto [jobs, want] = hits_of(queries, targets, pairs, s);
    std::size_t large = 0;
    for (const pair_job& j : jobs)
      if (reach_cells(std::int64_t(j.query.size()), std::int64_t(j.target.size()), j.known.score, s) >= direct_box_min_cells)
        ++large;
    ASSERT_EQ(large, dna ? 3u : 4u) << "the test's large hits must reach the threshold";
    auto db = db_engine_on_test_gpu();
    std::vector<alignment> got(jobs.size());
    db->align_many(jobs, s, got, {});
    expect_alignments(got, want, dna ? "dna" : "protein");
    bool named = false;
    for (const auto& [name, seconds] : db->stage_seconds())
      named = named || name == "reach windows as boxes " + std::to_string(large);
    EXPECT_TRUE(named) << (dna ? "dna" : "protein");
  }
}

TEST(DbEngine, WeakHitsOfLongPrefixesGetBoxesFromThePrunedReversePass) {
  SWAT_REQUIRE_DEVICE();
  // Hits whose reach window is too large for the GPU's reverse pass (over 2^29 cells): two weak
  // ones (a planted 50-mer at the end of 26-27 kb random prefixes, the genes-against-genomes
  // shape's second-best hits) get their boxes from the pruned pass on the CPU; a strong one (a
  // 26 kb query against a copy with 1 in 4 residues changed) keeps a band too wide for its
  // budget and is aligned whole. Every alignment equals the CPU engine's of the whole pair.
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  std::mt19937 rng(20261128);
  std::vector<std::vector<std::uint8_t>> queries, targets;
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (int k = 0; k < 2; ++k) {
    const std::vector<std::uint8_t> planted = test::random_residues(rng, 50, s);
    queries.push_back(test::random_residues(rng, 26000 + 500 * std::size_t(k), s));
    queries.back().insert(queries.back().end(), planted.begin(), planted.end());
    targets.push_back(test::random_residues(rng, 27000, s));
    targets.back().insert(targets.back().end(), planted.begin(), planted.end());
    pairs.push_back({queries.size() - 1, targets.size() - 1});
  }
  queries.push_back(test::random_residues(rng, 26000, s));
  std::vector<std::uint8_t> copy;
  std::uniform_int_distribution<int> roll(0, 99);
  for (std::uint8_t r : queries.back()) {
    const int e = roll(rng);
    if (e == 0) continue;                                      // 1 in 100 dropped
    if (e == 1) copy.push_back(r);                             // 1 in 100 doubled
    copy.push_back(e < 25 ? test::random_residues(rng, 1, s).front() : r);  // about 1 in 4 changed
  }
  targets.push_back(copy);
  pairs.push_back({queries.size() - 1, targets.size() - 1});
  const auto [jobs, want] = hits_of(queries, targets, pairs, s);
  for (const pair_job& j : jobs) {
    ASSERT_GT(reach_cells(std::int64_t(j.query.size()), std::int64_t(j.target.size()), j.known.score, s), max_hit_cells);
    ASSERT_LE(j.known.score, 32767 - s.max_score());
  }
  auto db = db_engine_on_test_gpu();
  std::vector<alignment> got(jobs.size());
  db->align_many(jobs, s, got, {});
  expect_alignments(got, want, "dna");
  bool pruned = false, whole = false;
  for (const auto& [name, seconds] : db->stage_seconds()) {
    pruned = pruned || name == "pruned reverse pass 3 (2 boxed)";
    whole = whole || name == "whole pairs 1";
  }
  EXPECT_TRUE(pruned && whole);
}

TEST(DbEngine, ManyQueriesAgainstFewTargetsScanTheOtherWayRound) {
  SWAT_REQUIRE_DEVICE();
  // 300 DNA fragments against four genomes (one holding copies of fragments, one with runs of a
  // short repeat for ties), one fragment longer than the scan's target limit (2^17): search()
  // scans the fragments as the database (auto, and forced), except where a fragment cannot be a
  // target or the scores are not symmetric; every best cell equals the CPU engine's, and
  // --timing's stages say which way it ran.
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  std::mt19937 rng(11252026);
  std::vector<std::vector<std::uint8_t>> queries, targets;
  for (int k = 0; k < 300; ++k)
    queries.push_back(test::random_residues(rng, std::uniform_int_distribution<std::int64_t>(200, 1200)(rng), s));
  targets.push_back(test::random_residues(rng, 20000, s));
  for (int k = 0; k < 40; ++k) {  // copies of fragments, some mutated
    const auto& q = queries[std::size_t(k * 7)];
    std::vector<std::uint8_t> copy;  // odd k: 1 in 10 bases substituted, 1 in 40 dropped
    for (std::uint8_t r : q) {
      const int e = std::uniform_int_distribution<int>(0, 39)(rng);
      if (k % 2 == 1 && e == 0) continue;
      copy.push_back(k % 2 == 1 && e < 4 ? std::uint8_t(std::uniform_int_distribution<int>(0, 3)(rng)) : r);
    }
    targets[0].insert(targets[0].begin() + std::ptrdiff_t(500 * k), copy.begin(), copy.end());
  }
  targets.push_back(test::random_residues(rng, 9000, s));
  {
    const auto unit = test::random_residues(rng, 4, s);
    std::vector<std::uint8_t> repeat(6000);
    for (std::size_t k = 0; k < repeat.size(); ++k) repeat[k] = unit[k % 4];
    targets.push_back(repeat);
    for (int k = 0; k < 10; ++k) queries[std::size_t(3 * k + 1)].assign(repeat.begin() + k, repeat.begin() + 300 + 13 * k);
  }
  targets.push_back(test::random_residues(rng, 1500, s));
  const std::vector<residue_span> qs(queries.begin(), queries.end()), ts(targets.begin(), targets.end());
  const std::vector<best_cell> want = test_support::cpu_cells(qs, ts, s);  // q · nt + t

  engine_options o;
  o.gpu_id = swat::test::test_device().id();
  // score_limit > 0: lowered so that many pairs saturate and come back as rescans (which the
  // transposed scan hands back as (query, target) like its results, in place).
  const auto search = [&](int transpose, std::span<const residue_span> queries_in, bool expect_flip,
                          std::int32_t score_limit = 0) {
    scan_options so;
    so.transpose = transpose;
    so.score_limit = score_limit;
    auto db = make_db_engine(fast::make_fast_engine(o), std::make_unique<cpu_engine>(0), so, o.gpu_id);
    std::vector<best_cell> got(queries_in.size() * ts.size());
    db->search(queries_in, ts, s, got, {});
    bool flipped = false;
    long rescans = -1;
    for (const auto& [name, seconds] : db->stage_seconds()) {
      flipped = flipped || name.find("transposed") != std::string::npos;
      if (name.rfind("rescans ", 0) == 0) rescans = std::stol(name.substr(8));
    }
    EXPECT_EQ(flipped, expect_flip) << "transpose " << transpose;
    if (score_limit > 0) {
      EXPECT_GT(rescans, 0) << "score limit " << score_limit;
    }
    return got;
  };
  for (int transpose : {0, 1, -1, 2}) {  // 2: forced, with saturated pairs rescanned
    const std::vector<best_cell> got =
        transpose == 2 ? search(1, qs, true, 60) : search(transpose, qs, transpose >= 0);
    int wrong = 0;
    for (std::size_t k = 0; k < want.size(); ++k)
      if (got[k] != want[k] && ++wrong <= 10)
        ADD_FAILURE() << "transpose " << transpose << ": query " << k / ts.size() << " target "
                      << k % ts.size() << " got " << got[k].score << " @" << got[k].query_end << ","
                      << got[k].target_end << " want " << want[k].score << " @" << want[k].query_end << ","
                      << want[k].target_end;
    EXPECT_EQ(wrong, 0) << "transpose " << transpose;
  }
  // Scores that depend on the side (A against C is not C against A): never the other way round.
  {
    scoring_scheme lopsided = s;
    lopsided.matrix[0 * matrix_stride + 1] = 1;
    const std::vector<best_cell> want_lopsided = test_support::cpu_cells(qs, ts, lopsided);
    scan_options so;
    so.transpose = 1;
    auto db = make_db_engine(fast::make_fast_engine(o), std::make_unique<cpu_engine>(0), so, o.gpu_id);
    std::vector<best_cell> got(want_lopsided.size());
    db->search(qs, ts, lopsided, got, {});
    for (const auto& [name, seconds] : db->stage_seconds()) EXPECT_EQ(name.find("transposed"), std::string::npos);
    int wrong = 0;
    for (std::size_t k = 0; k < got.size(); ++k) wrong += got[k] != want_lopsided[k];
    EXPECT_EQ(wrong, 0) << "asymmetric scores";
  }
  // A query longer than a scan target may be: scanned the usual way, still exact.
  std::vector<std::vector<std::uint8_t>> with_long = queries;
  with_long.push_back(test::random_residues(rng, std::size_t(scan_options{}.max_target_length) + 5, s));
  const std::vector<residue_span> ql(with_long.begin(), with_long.end());
  const std::vector<best_cell> got = search(1, ql, false);
  std::vector<pair_job> last;
  for (std::size_t t = 0; t < ts.size(); ++t) last.push_back({ql.size() - 1, t, ql.back(), ts[t]});
  std::vector<best_cell> want_last(last.size());
  cpu_engine(0).score_many(last, s, want_last, {});
  for (std::size_t t = 0; t < ts.size(); ++t) {
    EXPECT_EQ(got[(ql.size() - 1) * ts.size() + t], want_last[t]) << "long query, target " << t;
    EXPECT_EQ(got[5 * ts.size() + t], want[5 * ts.size() + t]) << "query 5, target " << t;
  }
}

TEST(DbEngine, PinnedTargetsStayPreparedBetweenSearches) {
  SWAT_REQUIRE_DEVICE();
  // A server's resident database: after pin_targets, searches of exactly those targets reuse
  // the packed database (the stages say so from the second search on); other targets, and the
  // same targets after a new pin, are prepared again. Every best cell equals the CPU engine's.
  const scoring_scheme s = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  std::mt19937 rng(112626);
  std::vector<std::vector<std::uint8_t>> db, q1, q2;
  for (int k = 0; k < 300; ++k) db.push_back(test::random_residues(rng, 50 + std::size_t(k % 400), s));
  for (int k = 0; k < 3; ++k) q1.push_back(mutated(rng, db[std::size_t(k * 17)], s));
  for (int k = 0; k < 5; ++k) q2.push_back(test::random_residues(rng, 100 + std::size_t(k) * 60, s));
  const std::vector<residue_span> ts(db.begin(), db.end()), qs1(q1.begin(), q1.end()), qs2(q2.begin(), q2.end());
  engine_options o;
  o.gpu_id = swat::test::test_device().id();
  auto eng = make_db_engine(fast::make_fast_engine(o), std::make_unique<cpu_engine>(0), scan_options{}, o.gpu_id);
  eng->pin_targets(ts);
  const auto resident = [&] {
    for (const auto& [name, seconds] : eng->stage_seconds())
      if (name.find("resident") != std::string::npos) return true;
    return false;
  };
  const auto search = [&](const std::vector<residue_span>& qs, const std::vector<residue_span>& targets) {
    std::vector<best_cell> got(qs.size() * targets.size());
    eng->search(qs, targets, s, got, {});
    EXPECT_EQ(got, test_support::cpu_cells(qs, targets, s));
  };
  search(qs1, ts);
  EXPECT_FALSE(resident()) << "the first search prepares the pinned targets";
  search(qs2, ts);
  EXPECT_TRUE(resident());
  const std::vector<residue_span> fewer(ts.begin(), ts.begin() + 200);
  auto fresh = make_db_engine(fast::make_fast_engine(o), std::make_unique<cpu_engine>(0), scan_options{}, o.gpu_id);
  eng.swap(fresh);  // stages of a new engine: other targets are not the pinned ones
  eng->pin_targets(ts);
  search(qs2, fewer);
  EXPECT_FALSE(resident()) << "other targets";
  eng->pin_targets(fewer);
  search(qs1, fewer);
  EXPECT_FALSE(resident()) << "the first search after a new pin";
  search(qs2, fewer);
  EXPECT_TRUE(resident());
}

TEST(DbEngine, GenesAgainstGenomesLongerThanTheScanTakesRunAsWindowsOfOneScan) {
  SWAT_REQUIRE_DEVICE();
  // Genes of 3-40 kb against genomes of 60-700 kb holding mutated copies of them, through the
  // windows the registered engine uses (scan_window_limits): the genomes beyond the scan's target
  // limit are cut into windows whatever their number, all genomes' windows in one search; the
  // genes whose overlap is too long for windows within the limit get windows four overlaps wide,
  // which the scan takes the other way round (the genes as its database); copies of the long
  // genes saturate 16 bits and are rescanned. Every best cell equals the CPU engine's, and the
  // hits' alignments (in the prefixes that end at their best cells) equal the CPU engine's.
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  std::mt19937 rng(11262026);
  std::vector<std::vector<std::uint8_t>> genes, genomes;
  for (std::size_t len : {3000, 12000, 25000, 40000}) genes.push_back(test::random_residues(rng, len, s));
  for (std::size_t len : {60000, 150000, 400000, 700000}) genomes.push_back(test::random_residues(rng, len, s));
  std::uniform_int_distribution<int> roll(0, 99);
  for (std::size_t g = 0; g < genomes.size(); ++g)
    for (std::size_t k = 0; k < genes.size(); ++k) {
      if ((g + k) % 2 == 1 || genes[k].size() * 2 > genomes[g].size()) continue;
      std::vector<std::uint8_t> copy;  // 3 % substituted, 1 % dropped
      for (std::uint8_t r : genes[k]) {
        const int e = roll(rng);
        if (e == 0) continue;
        copy.push_back(e < 4 ? std::uint8_t(roll(rng) % 4) : r);
      }
      const std::size_t at = std::size_t(roll(rng)) * (genomes[g].size() - copy.size()) / 100;
      std::copy(copy.begin(), copy.end(), genomes[g].begin() + std::ptrdiff_t(at));
    }
  const std::vector<residue_span> qs(genes.begin(), genes.end()), ts(genomes.begin(), genomes.end());
  const std::vector<best_cell> want = test_support::cpu_cells(qs, ts, s);

  engine_options o;
  o.gpu_id = swat::test::test_device().id();
  o.gpus = gpu_selection{false, 0, {o.gpu_id}};  // one GPU: several would take the windows instead (fast_engine)
  // Windows four overlaps wide (as if the tasks that fill the GPU were unknown), then as the
  // registered engine plans them for its GPU: fewer tasks than its SMs, so whole pairs filled at
  // once by the fast engine.
  for (const bool narrow : {false, true}) {
    const scan_options so;
    window_limits limits = scan_window_limits(so);
    EXPECT_GT(limits.fill_tasks, 0);  // the SMs of scan_options' devices (device 0 by default)
    if (!narrow) limits.fill_tasks = 0;
    auto db = with_windows(make_db_engine(fast::make_fast_engine(o), std::make_unique<cpu_engine>(0), so, o.gpu_id), limits);
    std::vector<best_cell> got(want.size());
    db->search(qs, ts, s, got, {});
    int wrong = 0;
    for (std::size_t k = 0; k < want.size(); ++k)
      if (got[k] != want[k] && ++wrong <= 10)
        ADD_FAILURE() << "gene " << k / ts.size() << " genome " << k % ts.size() << " got " << got[k].score << " @"
                      << got[k].query_end << "," << got[k].target_end << " want " << want[k].score << " @"
                      << want[k].query_end << "," << want[k].target_end;
    EXPECT_EQ(wrong, 0);
    bool windowed = false;
    for (const std::string& d : db->decisions()) {
      const std::size_t at = d.find(" windows of ");
      if (at == std::string::npos) continue;
      windowed = true;
      long long width = 0, overlap = 0;  // "… in K windows of W (overlap O) …"
      ASSERT_EQ(std::sscanf(d.c_str() + at, " windows of %lld (overlap %lld)", &width, &overlap), 2) << d;
      // The line is the last windowed long side's (an order of addresses): a side beyond the
      // scan's limit that one window holds is that window, whatever its width.
      if (d.find(" in 1 windows of ") != std::string::npos)
        EXPECT_LT(width, 4 * overlap) << d;
      else if (narrow)
        EXPECT_LE(width, 3 * overlap) << d;
      else
        EXPECT_GE(width, 4 * overlap) << d;
    }
    // As the registered engine cuts them, the search has fewer tasks than the GPU's SMs: its
    // pairs go whole to the fast engine, which fills them at once (no windows).
    const std::vector<std::string> d = db->decisions();
    const bool at_once = std::any_of(d.begin(), d.end(), [](const std::string& x) {
      return x.find("tall pairs whole, filled at once") != std::string::npos;
    });
    EXPECT_EQ(windowed, !narrow);
    EXPECT_EQ(at_once, narrow);
    int saturated = 0;
    for (const best_cell& c : want) saturated += c.score > 32767 - s.max_score();
    EXPECT_GT(saturated, 0);  // the long genes' copies: rescanned at 32 bits

    // The hits aligned as the pipeline asks for them: prefixes ending at the best cells.
    std::vector<pair_job> jobs;
    for (std::size_t q = 0; q < qs.size(); ++q)
      for (std::size_t t = 0; t < ts.size(); ++t) {
        const best_cell& c = want[q * ts.size() + t];
        if (c.score < 200) continue;
        jobs.push_back({q, t, qs[q].first(std::size_t(c.query_end)), ts[t].first(std::size_t(c.target_end)), c});
      }
    ASSERT_GT(jobs.size(), 4u);
    std::vector<alignment> alns(jobs.size()), cpu(jobs.size());
    db->align_many(jobs, s, alns, {});
    std::vector<pair_job> plain = jobs;
    for (pair_job& j : plain) j.known = {};
    cpu_engine(0).align_many(plain, s, cpu, {});
    for (std::size_t k = 0; k < jobs.size(); ++k)
      EXPECT_EQ(alns[k], cpu[k]) << "gene " << jobs[k].query_index << " genome " << jobs[k].target_index;
  }
}

TEST(DbEngine, FewGenesAgainstGenomesAreFilledWholeAtOnce) {
  SWAT_REQUIRE_DEVICE();
  // Few tasks for a scan of windows (three genes against two genomes, both beyond the scan's
  // target limit): the registered windows give the pairs whole to the fast engine, which fills
  // them together (its batches, windows of the genomes where a chain of strips is long). Every
  // best cell equals the CPU engine's, copies (and a tie of two equal copies) included.
  const scoring_scheme s = scoring::make_dna_scheme(2, -3, 5, 2);
  std::mt19937 rng(1127);
  std::vector<std::vector<std::uint8_t>> genes, genomes;
  for (std::size_t len : {2000, 5000, 9000}) genes.push_back(test::random_residues(rng, len, s));
  for (std::size_t len : {200000, 330000}) genomes.push_back(test::random_residues(rng, len, s));
  for (std::size_t k = 0; k < genes.size(); ++k) {
    std::vector<std::uint8_t>& g = genomes[k % genomes.size()];
    const std::size_t at = (k + 1) * g.size() / 5;
    std::copy(genes[k].begin(), genes[k].end(), g.begin() + std::ptrdiff_t(at));
    if (k == 1) std::copy(genes[k].begin(), genes[k].end(), g.begin() + std::ptrdiff_t(at + g.size() / 2));
  }
  const std::vector<residue_span> qs(genes.begin(), genes.end()), ts(genomes.begin(), genomes.end());
  const std::vector<best_cell> want = test_support::cpu_cells(qs, ts, s);
  engine_options o;
  o.gpu_id = swat::test::test_device().id();
  o.gpus = gpu_selection{false, 0, {o.gpu_id}};  // one GPU: several would take the windows instead (fast_engine)
  const scan_options so;
  auto db = with_windows(make_db_engine(fast::make_fast_engine(o), std::make_unique<cpu_engine>(0), so, o.gpu_id),
                         scan_window_limits(so));
  std::vector<best_cell> got(want.size());
  db->search(qs, ts, s, got, {});
  for (std::size_t k = 0; k < want.size(); ++k)
    EXPECT_EQ(got[k], want[k]) << "gene " << k / ts.size() << " genome " << k % ts.size();
  const std::vector<std::string> d = db->decisions();
  EXPECT_TRUE(std::any_of(d.begin(), d.end(), [](const std::string& x) { return x.find("6 tall pairs whole") == 0; }))
      << (d.empty() ? std::string("no decisions") : d.front());
}

}  // namespace
}  // namespace swat::dbsearch

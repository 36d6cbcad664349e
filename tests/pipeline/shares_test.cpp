// One search in shares (pipeline/shares.hpp, search_share of align_pipeline.hpp): the split is
// contiguous, complete and balanced; the hits' byte form reads back exactly and refuses cut or
// foreign bytes; and the shares' hits merged are exactly the hits of one search (the same targets,
// order, alignments and E-values), for DNA on both strands and protein (Spouge's target-dependent
// E-values), several --max-hits and --max-hsps, more shares than targets, and empirical statistics
// whose fit gathers every share's scores (shares searched at once in threads, as ranks are).

#include "pipeline/shares.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "engine/cpu_engine.hpp"

namespace swat::pipeline {
namespace {

//! Records of these lengths; every `every`-th one carries a mutated copy of `motif`, so that the
//! queries have real hits (and ties among them).
sequence_set random_set(std::mt19937_64& rng, alphabet_kind kind, const std::vector<std::size_t>& lengths,
                        const std::vector<std::uint8_t>& motif, const std::string& prefix, std::size_t every) {
  const unsigned letters = kind == alphabet_kind::dna ? 4 : 20;
  sequence_set set;
  set.alphabet = kind;
  set.file = prefix + ".fa";
  for (std::size_t n : lengths) {
    sequence_record r;
    r.name = prefix + std::to_string(set.records.size());
    for (std::size_t i = 0; i < n; ++i) r.residues.push_back(std::uint8_t(rng() % letters));
    if (set.records.size() % every == 0 && n > motif.size()) {
      const std::size_t at = rng() % (n - motif.size());
      for (std::size_t i = 0; i < motif.size(); ++i)
        r.residues.own()[at + i] = rng() % 8 == 0 ? std::uint8_t(rng() % letters) : motif[i];
    }
    set.records.push_back(std::move(r));
  }
  return set;
}

std::vector<std::size_t> lengths(std::mt19937_64& rng, std::size_t count, std::size_t low, std::size_t high) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < count; ++k) out.push_back(low + rng() % (high - low + 1));
  return out;
}

struct search_case {
  sequence_set queries, targets;
  scoring_scheme scheme;
  align_options options;
};

search_case make_case(alphabet_kind kind, std::size_t targets, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const unsigned letters = kind == alphabet_kind::dna ? 4 : 20;
  std::vector<std::uint8_t> motif(60);
  for (auto& m : motif) m = std::uint8_t(rng() % letters);
  search_case c;
  c.queries = random_set(rng, kind, lengths(rng, 3, 80, 200), motif, "q", 1);
  c.targets = random_set(rng, kind, lengths(rng, targets, 20, 300), motif, "t", 2);
  c.scheme = build_scheme(kind, {});
  c.options.outfmt = output::parse_outfmt("6 std score");
  c.options.stats.evalue_given = false;
  return c;
}

//! The written output of these hits (tabular with every column that depends on the alignment).
std::string written(const search_case& c, const checked_search& checked, const search_result& found) {
  std::ostringstream out;
  write_search(out, c.scheme, checked, c.queries, c.targets, found, "cpu", "CPU");
  return out.str();
}

//! The search in `parts` shares, one after another on one engine, merged.
search_result in_shares(search_case& c, const checked_search& checked, std::size_t parts) {
  std::vector<std::uint64_t> sizes;
  for (const auto& t : c.targets.records) sizes.push_back(t.residues.size());
  cpu_engine eng(2);
  std::vector<std::vector<output::hit>> found;
  search_result merged;
  for (const target_share& share : split_targets(sizes, parts)) {
    search_result h = search_share(eng, c.scheme, checked, c.queries, c.targets, share, {}, false);
    for (const output::hit& hit : h.hits) {
      EXPECT_GE(hit.target_index, share.first);
      EXPECT_LT(hit.target_index, share.last);
    }
    // Through the byte form, as a rank sends them.
    found.push_back(decode_hits(encode_hits(h.hits)));
    merged.statistics = std::move(h.statistics);
  }
  merged.hits = merge_hits(std::move(found), c.queries.records.size(), checked.searching.max_hits);
  return merged;
}

TEST(split_targets, contiguous_complete_balanced) {
  std::mt19937_64 rng(7);
  for (std::size_t n : {0, 1, 2, 5, 40, 333})
    for (std::size_t parts : {1, 2, 3, 4, 7, 50}) {
      std::vector<std::uint64_t> sizes;
      std::uint64_t total = 0, largest = 0;
      for (std::size_t k = 0; k < n; ++k) {
        sizes.push_back(rng() % 1000 + (k % 17 == 0 ? 20000 : 0));
        total += sizes.back() + share_target_cost_residues;
        largest = std::max<std::uint64_t>(largest, sizes.back() + share_target_cost_residues);
      }
      const std::vector<target_share> shares = split_targets(sizes, parts);
      ASSERT_EQ(shares.size(), parts);
      std::size_t next = 0;
      for (const target_share& s : shares) {
        EXPECT_EQ(s.first, next);
        EXPECT_LE(s.first, s.last);
        next = s.last;
        std::uint64_t cost = 0;
        for (std::size_t t = s.first; t < s.last; ++t) cost += sizes[t] + share_target_cost_residues;
        EXPECT_LE(cost, total / parts + largest + 1) << n << " targets in " << parts;
      }
      EXPECT_EQ(next, n);
      if (parts <= n && total / parts > 2 * largest) {  // enough work: no share without it
        for (const target_share& s : shares) EXPECT_GT(s.size(), 0u);
      }
    }
  EXPECT_THROW(split_targets({}, 0), std::invalid_argument);
}

TEST(hit_bytes, read_back_exactly_and_refuse_damage) {
  std::mt19937_64 rng(11);
  std::vector<output::hit> hits;
  for (int k = 0; k < 50; ++k) {
    output::hit h{rng() % 1000, rng() % (std::size_t(1) << 40), {}, k % 2 ? output::dna_strand::minus : output::dna_strand::plus};
    h.aln.score = std::int32_t(rng() % 100000);
    h.aln.query_begin = std::int64_t(rng() % 5000);
    h.aln.query_end = h.aln.query_begin + std::int64_t(rng() % 5000);
    h.aln.target_begin = std::int64_t(rng() % (std::uint64_t(1) << 33));
    h.aln.target_end = h.aln.target_begin + 77;
    for (int r = 0; r < k % 6; ++r) h.aln.ops.push_back({"MID"[r % 3], std::uint32_t(rng() % 300000 + 1)});
    hits.push_back(h);
  }
  hits.push_back({0, 0, {}, output::dna_strand::plus});  // no alignment
  const std::string bytes = encode_hits(hits);
  const std::vector<output::hit> back = decode_hits(bytes);
  ASSERT_EQ(back.size(), hits.size());
  for (std::size_t k = 0; k < hits.size(); ++k) {
    EXPECT_EQ(back[k].query_index, hits[k].query_index);
    EXPECT_EQ(back[k].target_index, hits[k].target_index);
    EXPECT_EQ(back[k].strand, hits[k].strand);
    EXPECT_EQ(back[k].aln, hits[k].aln);
  }
  EXPECT_TRUE(decode_hits(encode_hits({})).empty());
  for (std::size_t cut = 0; cut < bytes.size(); cut += 7)
    EXPECT_THROW(decode_hits(std::string_view(bytes).substr(0, cut)), runtime_failure) << cut;
  EXPECT_THROW(decode_hits(bytes + "x"), runtime_failure);
  std::string bad_op = encode_hits(std::vector<output::hit>{hits[3]});
  const std::size_t at = bad_op.find('M') != std::string::npos ? bad_op.find('M') : bad_op.find('I');
  ASSERT_NE(at, std::string::npos);
  bad_op[at] = 'Q';
  EXPECT_THROW(decode_hits(bad_op), runtime_failure);
}

//! Every split of the case gives the one search's output, byte for byte.
void expect_shares_equal_whole(search_case& c, const std::vector<std::size_t>& max_hits,
                               const std::vector<std::size_t>& max_hsps) {
  for (std::size_t hits : max_hits)
    for (std::size_t hsps : max_hsps) {
      c.options.max_hits = hits;
      c.options.max_hsps = hsps;
      const checked_search checked = check_search(c.options, c.queries, c.targets, c.scheme);
      cpu_engine eng(2);
      const search_result whole =
          search_share(eng, c.scheme, checked, c.queries, c.targets, {0, c.targets.records.size()}, {}, false);
      const std::string expected = written(c, checked, whole);
      if (hits > 1) {
        ASSERT_GT(whole.hits.size(), c.queries.records.size()) << "the case must have hits to rank";
      }
      for (std::size_t parts : {1, 2, 3, 4, 9}) {
        const search_result merged = in_shares(c, checked, parts);
        EXPECT_EQ(written(c, checked, merged), expected)
            << parts << " shares, --max-hits " << hits << " --max-hsps " << hsps;
      }
    }
}

TEST(search_share, dna_both_strands_merged_as_one_search) {
  search_case c = make_case(alphabet_kind::dna, 7, 21);
  expect_shares_equal_whole(c, {1, 2, 100}, {1, 0});
}

TEST(search_share, protein_spouge_evalues_merged_as_one_search) {
  search_case c = make_case(alphabet_kind::protein, 8, 22);
  c.options.stats.max_evalue = 1e-3;  // the target-dependent rule decides some hits
  expect_shares_equal_whole(c, {1, 3, 100}, {1, 2});
}

TEST(search_share, dbsize_and_dbseqs_give_a_shard_the_whole_evalues) {
  // A shard searched alone with the whole database's size reports the E-values of the whole.
  search_case c = make_case(alphabet_kind::protein, 8, 23);
  c.options.max_hits = 100;
  std::ostringstream whole_out;
  {
    const checked_search checked = check_search(c.options, c.queries, c.targets, c.scheme);
    cpu_engine eng(2);
    write_search(whole_out, c.scheme, checked, c.queries, c.targets,
                 search_share(eng, c.scheme, checked, c.queries, c.targets, {0, c.targets.records.size()}, {}, false), "cpu",
                 "CPU");
  }
  std::uint64_t residues = 0;
  for (const auto& t : c.targets.records) residues += t.residues.size();
  search_case shard = c;
  shard.targets.records.erase(shard.targets.records.begin(), shard.targets.records.begin() + 4);
  shard.options.db_residues = residues;
  shard.options.db_sequences = c.targets.records.size();
  const checked_search checked = check_search(shard.options, shard.queries, shard.targets, shard.scheme);
  cpu_engine eng(2);
  std::ostringstream shard_out;
  const search_result found =
      search_share(eng, shard.scheme, checked, shard.queries, shard.targets, {0, shard.targets.records.size()}, {}, false);
  ASSERT_FALSE(found.hits.empty());
  write_search(shard_out, shard.scheme, checked, shard.queries, shard.targets, found, "cpu", "CPU");
  // Every line of the shard's output is a line of the whole's (same E-values, bit scores).
  std::istringstream lines(shard_out.str());
  std::size_t compared = 0;
  for (std::string line; std::getline(lines, line); ++compared)
    EXPECT_NE(whole_out.str().find(line + "\n"), std::string::npos) << line;
  EXPECT_EQ(compared, found.hits.size());
  // Without the sizes, the shard's E-values are smaller (a smaller database).
  shard.options.db_residues.reset();
  shard.options.db_sequences.reset();
  const checked_search alone = check_search(shard.options, shard.queries, shard.targets, shard.scheme);
  std::ostringstream alone_out;
  write_search(alone_out, shard.scheme, alone, shard.queries, shard.targets,
               search_share(eng, shard.scheme, alone, shard.queries, shard.targets, {0, shard.targets.records.size()}, {}, false),
               "cpu", "CPU");
  EXPECT_NE(alone_out.str(), shard_out.str());
}

TEST(search_share, empirical_fits_gather_every_share) {
  // 520 targets: enough to fit (--stats empirical); the shares run at once, as ranks do, and
  // their gather meets at a barrier.
  search_case c = make_case(alphabet_kind::protein, 520, 24);
  c.targets.records.resize(520);
  for (auto& t : c.targets.records) t.residues.resize(std::min<std::size_t>(t.residues.size(), 60));
  c.queries.records.resize(2);
  c.options.stats.choice = scoring::stats_choice::empirical;
  c.options.max_hits = 5;
  const checked_search checked = check_search(c.options, c.queries, c.targets, c.scheme);
  ASSERT_EQ(checked.plan.method, scoring::evalue_method::empirical);
  const std::size_t nq = c.queries.records.size(), nt = c.targets.records.size();
  cpu_engine whole_engine(2);
  const std::string expected =
      written(c, checked, search_share(whole_engine, c.scheme, checked, c.queries, c.targets, {0, nt}, {}, false));

  std::vector<std::uint64_t> sizes;
  for (const auto& t : c.targets.records) sizes.push_back(t.residues.size());
  const std::size_t parts = 3;
  const std::vector<target_share> shares = split_targets(sizes, parts);
  std::vector<std::int32_t> all(nq * nt, -1);
  std::barrier meet{std::ptrdiff_t(parts)};
  std::vector<search_result> found(parts);
  std::vector<sequence_set> queries(parts, c.queries);  // each share complements its own copy
  std::vector<std::thread> ranks;
  for (std::size_t p = 0; p < parts; ++p)
    ranks.emplace_back([&, p] {
      const target_share share = shares[p];
      const gather_scores_fn gather = [&](std::span<const std::int32_t> mine) {
        for (std::size_t q = 0; q < nq; ++q)
          for (std::size_t j = 0; j < share.size(); ++j) all[q * nt + share.first + j] = mine[q * share.size() + j];
        meet.arrive_and_wait();
        return all;
      };
      cpu_engine eng(1);
      found[p] = search_share(eng, c.scheme, checked, queries[p], c.targets, share, gather, false);
    });
  for (std::thread& t : ranks) t.join();
  EXPECT_EQ(std::count(all.begin(), all.end(), -1), 0);
  std::vector<std::vector<output::hit>> hits;
  for (search_result& f : found) hits.push_back(std::move(f.hits));
  search_result merged;
  merged.statistics = std::move(found[0].statistics);
  merged.hits = merge_hits(std::move(hits), nq, c.options.max_hits);
  EXPECT_EQ(written(c, checked, merged), expected);
  // A share of an empirical search cannot fit alone.
  cpu_engine eng(1);
  sequence_set q = c.queries;
  EXPECT_THROW(search_share(eng, c.scheme, checked, q, c.targets, shares[1], {}, false), std::logic_error);
}

}  // namespace
}  // namespace swat::pipeline

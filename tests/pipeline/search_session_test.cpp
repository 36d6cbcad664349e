// The search session over targets given in memory (the Python package's way in): hits() are the
// records of the hits the JSON output writes for the same search, scores() the reference's best
// score of every pair (the better strand for DNA), an engine handed back by release_engine()
// searches again the same way, and an exception from the progress callback ends a search.

#include "pipeline/search_session.hpp"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/cpu_engine.hpp"
#include "reference/reference.hpp"

namespace swat::pipeline {
namespace {

//! Records of random residues; every third carries a mutated copy of one motif (real hits).
sequence_set random_set(std::mt19937_64& rng, alphabet_kind kind, std::size_t count, const std::string& prefix) {
  const unsigned letters = kind == alphabet_kind::dna ? 4 : 20;
  std::vector<std::uint8_t> motif(60);
  std::mt19937_64 motif_rng(7);
  for (auto& r : motif) r = std::uint8_t(motif_rng() % letters);
  sequence_set set;
  set.alphabet = kind;
  set.file = prefix;
  for (std::size_t k = 0; k < count; ++k) {
    sequence_record r;
    r.name = prefix + std::to_string(k);
    const std::size_t n = 80 + rng() % 120;
    for (std::size_t i = 0; i < n; ++i) r.residues.push_back(std::uint8_t(rng() % letters));
    if (k % 3 == 0) {
      std::vector<std::uint8_t> copy = motif;
      for (auto& c : copy)
        if (rng() % 10 == 0) c = std::uint8_t(rng() % letters);
      if (kind == alphabet_kind::dna && k % 2 == 1) copy = reverse_complement(copy);
      std::copy(copy.begin(), copy.end(), r.residues.own().begin() + std::ptrdiff_t(rng() % (n - copy.size())));
    }
    set.records.push_back(std::move(r));
  }
  return set;
}

align_options request(const std::string& query_label) {
  align_options o;
  o.query_path = query_label;
  o.outfmt = output::parse_outfmt("json");
  o.max_hits = 5;
  return o;
}

void check_session(alphabet_kind kind) {
  std::mt19937_64 rng(kind == alphabet_kind::dna ? 11 : 12);
  sequence_set queries = random_set(rng, kind, 6, "q");
  const sequence_set original = queries;
  const sequence_set targets = random_set(rng, kind, 12, "t");
  session_options options;
  options.db_path = "targets";
  options.pin = false;
  options.warm_up = false;
  search_session session(options, targets, std::make_unique<cpu_engine>(2), {});
  const checked_search checked = session.check(request("queries"), queries);

  // The records are what the JSON output holds for the same search: one object per record, in
  // order, with the same score and CIGAR.
  const std::vector<output::hit_record> records = session.hits(checked, queries);
  ASSERT_FALSE(records.empty());
  cpu_engine eng(2);
  std::ostringstream json;
  search_and_write(eng, session.scheme(), checked, queries, session.targets(), json, false);
  std::size_t at = 0;
  for (const output::hit_record& r : records) {
    const std::string object = "{\"query\": \"" + r.query + "\", \"target\": \"" + r.target + "\", \"score\": " +
                               std::to_string(r.score) + ",";
    at = json.str().find(object, at);
    ASSERT_NE(at, std::string::npos) << object;
    const std::size_t end = json.str().find('}', at);
    EXPECT_NE(json.str().substr(at, end - at).find("\"cigar\": \"" + r.cigar + "\""), std::string::npos);
    EXPECT_EQ(r.strand.has_value(), kind == alphabet_kind::dna);
    EXPECT_EQ(r.query_aligned.size(), std::size_t(r.length));
  }
  std::size_t objects = 0;
  for (std::size_t k = 0; (k = json.str().find("{\"query\": ", k)) != std::string::npos; ++k) ++objects;
  EXPECT_EQ(objects, records.size());

  // scores(): the reference's best score of every pair, the better strand for DNA.
  const std::vector<std::int32_t> scores = session.scores(checked, queries);
  ASSERT_EQ(scores.size(), queries.records.size() * targets.records.size());
  for (std::size_t q = 0; q < queries.records.size(); ++q)
    for (std::size_t t = 0; t < targets.records.size(); ++t) {
      const auto& qr = queries.records[q].residues;
      std::int32_t best = reference::align(qr, targets.records[t].residues, session.scheme()).score;
      if (kind == alphabet_kind::dna)
        best = std::max(best, reference::align(reverse_complement(qr), targets.records[t].residues, session.scheme()).score);
      EXPECT_EQ(scores[q * targets.records.size() + t], best) << q << " " << t;
    }

  // The engine handed back searches again as before; an exception from the progress callback
  // leaves the search.
  std::unique_ptr<engine> back = session.release_engine();
  ASSERT_TRUE(back);
  search_session again(options, targets, std::move(back), {});
  const checked_search checked_again = again.check(request("queries"), queries);
  const std::vector<output::hit_record> records_again = again.hits(checked_again, queries);
  ASSERT_EQ(records_again.size(), records.size());
  for (std::size_t k = 0; k < records.size(); ++k) {
    EXPECT_EQ(records_again[k].target, records[k].target);
    EXPECT_EQ(records_again[k].cigar, records[k].cigar);
    EXPECT_EQ(records_again[k].evalue, records[k].evalue);
  }
  const progress_fn stop = [](std::uint64_t) { throw std::runtime_error("stopped"); };
  EXPECT_THROW(again.scores(checked_again, queries, stop), std::runtime_error);
  EXPECT_THROW(again.hits(checked_again, queries, stop), std::runtime_error);
  for (std::size_t q = 0; q < queries.records.size(); ++q)  // back on the plus strand, exception or not
    EXPECT_EQ(queries.records[q].residues, original.records[q].residues);
}

TEST(SearchSession, TargetsGivenProtein) { check_session(alphabet_kind::protein); }
TEST(SearchSession, TargetsGivenDnaBothStrands) { check_session(alphabet_kind::dna); }

}  // namespace
}  // namespace swat::pipeline

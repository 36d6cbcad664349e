// JSON output: golden text, string escaping, null statistics, validity.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fixtures.hpp"
#include "output/detail.hpp"

namespace swat::output::test {
namespace {

TEST(json, golden) {
  dna_fixture f;
  // evalue/bitscore: see the hand check in blast6_test.cpp (0.2058 and 10.30 for the first hit).
  EXPECT_EQ(render(parse_outfmt("json"), f.ctx, {f.hits[0], f.hits[2]}),
            "[\n"
            "  {\"query\": \"q1\", \"target\": \"t1\", \"score\": 11, \"query_start\": 2, "
            "\"query_end\": 9, \"target_start\": 4, \"target_end\": 11, \"strand\": \"plus\", \"query_length\": 10, "
            "\"target_length\": 14, \"length\": 8, \"identity\": 87.500, \"matches\": 7, "
            "\"mismatches\": 1, \"positives\": 7, \"gap_opens\": 0, \"gaps\": 0, "
            "\"cigar\": \"3=1X4=\", \"evalue\": 0.205786, \"bitscore\": 10.3031},\n"
            "  {\"query\": \"q2\", \"target\": \"t2\", \"score\": 7, \"query_start\": 4, "
            "\"query_end\": 13, \"target_start\": 1, \"target_end\": 8, \"strand\": \"plus\", \"query_length\": 16, "
            "\"target_length\": 12, \"length\": 10, \"identity\": 80.000, \"matches\": 8, "
            "\"mismatches\": 0, \"positives\": 8, \"gap_opens\": 1, \"gaps\": 2, "
            "\"cigar\": \"4=2I4=\", \"evalue\": 4.01119, \"bitscore\": 6.69641}\n"
            "]\n");
}

TEST(json, empty_hit_list_is_an_empty_array) {
  dna_fixture f;
  EXPECT_EQ(render(parse_outfmt("json"), f.ctx, {}), "[]\n");
}

TEST(json, null_statistics_without_published_parameters) {
  dna_fixture f;
  f.scheme.gap_extend = 1;
  const std::string out = render(parse_outfmt("json"), f.ctx, {f.hits[1]});
  EXPECT_NE(out.find("\"evalue\": null, \"bitscore\": null}"), std::string::npos) << out;
}

TEST(json, string_escaping) {
  EXPECT_EQ(detail::json_quote("plain"), "\"plain\"");
  EXPECT_EQ(detail::json_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(detail::json_quote("t\tn\nr\rb\bf\f"), "\"t\\tn\\nr\\rb\\bf\\f\"");
  EXPECT_EQ(detail::json_quote(std::string("x\x01y\x1fz") + '\0'), "\"x\\u0001y\\u001fz\\u0000\"");
  EXPECT_EQ(detail::json_quote("caf\xc3\xa9 /"), "\"caf\xc3\xa9 /\"");
}

TEST(json, names_are_escaped_in_hits) {
  const sequence_set q = make_set(alphabet_kind::dna, {{"q\"1\\x\t", "ACGT"}});
  const sequence_set t = make_set(alphabet_kind::dna, {{"t\x02", "ACGT"}});
  const scoring_scheme s = dna_scheme();
  run_context ctx{q, t, s, "", "", 4};
  const std::vector<hit> hits{{0, 0, make_alignment(q, 0, t, 0, s, 0, 0, "4M")}};
  const std::string out = render(parse_outfmt("json"), ctx, hits);
  EXPECT_NE(out.find("{\"query\": \"q\\\"1\\\\x\\t\", \"target\": \"t\\u0002\", "), std::string::npos)
      << out;
}

TEST(json, output_parses_with_python) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const sequence_set q = make_set(alphabet_kind::dna, {{"q\"1\\\x01", "ACGT"}});
  const sequence_set t = make_set(alphabet_kind::dna, {{"t", "ACGT"}});
  const scoring_scheme s = dna_scheme();
  run_context ctx{q, t, s, "", "", 4};
  const std::vector<hit> hits{{0, 0, make_alignment(q, 0, t, 0, s, 0, 0, "4M")},
                              {0, 0, make_alignment(q, 0, t, 0, s, 1, 1, "2M")}};
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("swat_output_json_" + std::to_string(::getpid()) + ".json"))
                               .string();
  std::ofstream(path) << render(parse_outfmt("json"), ctx, hits);
  const std::string cmd =
      "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
      "assert len(d)==2 and d[0][\"query\"]==\"q\\\"1\\\\\\x01\" and d[1][\"score\"]==4' " + path;
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace swat::output::test

// JSON output: golden text with the run's metadata, string escaping, estimated parameters,
// E-values below the double range, validity.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fixtures.hpp"
#include "output/detail.hpp"
#include "scoring/scoring.hpp"
#include "scoring/statistics.hpp"

namespace swat::output::test {
namespace {

const char* const dna_metadata =
    "{\n  \"metadata\": {\"program\": \"swat-gpu\", \"version\": \"0.1.0\", \"command\": \"swat-gpu -q q.fa -d db.fa\", "
    "\"engine\": \"cpu\", \"device\": \"cpu\", \"scheme\": {\"alphabet\": \"dna\", \"matrix\": \"match 2 mismatch -3\", "
    "\"gap_open\": 5, \"gap_extend\": 2}, \"queries\": {\"file\": \"test.fa\", \"sequences\": 2}, "
    "\"database\": {\"file\": \"test.fa\", \"sequences\": 2, \"residues\": 26}, \"statistics\": {\"method\": "
    "\"analytic\", \"description\": \"analytic, lambda=0.625 K=0.41 H=0.78 alpha=0.8 beta=-2 (E-values of odd scores: "
    "those of the even score below) from NCBI BLAST table: blastn reward 2 penalty -3, gap 5/2\"}, \"evalue_parameters\": "
    "{\"lambda\": 0.625, \"k\": 0.41, \"h\": 0.78, \"alpha\": 0.8, \"beta\": -2, \"even_scores_only\": true, "
    "\"finite_size_correction\": null, \"source\": \"ncbi_table\", \"origin\": \"NCBI BLAST table: blastn reward 2 penalty -3, gap 5/2\"}},\n";

TEST(json, golden) {
  dna_fixture f;
  f.ctx.engine = f.ctx.device = "cpu";
  // evalue/bitscore: see the hand check in blast6_test.cpp (0.1108 and 11.2 for the first hit).
  EXPECT_EQ(render(parse_outfmt("json"), f.ctx, {f.hits[0], f.hits[2]}),
            std::string(dna_metadata) +
                "  \"hits\": [\n"
                "    {\"query\": \"q1\", \"target\": \"t1\", \"score\": 11, \"query_start\": 2, "
                "\"query_end\": 9, \"target_start\": 4, \"target_end\": 11, \"strand\": \"plus\", \"query_length\": 10, "
                "\"target_length\": 14, \"length\": 8, \"identity\": 87.500, \"matches\": 7, "
                "\"mismatches\": 1, \"positives\": 7, \"gap_opens\": 0, \"gaps\": 0, "
                "\"cigar\": \"3=1X4=\", \"evalue\": 0.11080806741947043, \"bitscore\": 11.204832591268266, "
                "\"query_aligned\": \"CGTACGTA\", \"target_aligned\": \"CGTTCGTA\"},\n"
                "    {\"query\": \"q2\", \"target\": \"t2\", \"score\": 7, \"query_start\": 4, "
                "\"query_end\": 13, \"target_start\": 1, \"target_end\": 8, \"strand\": \"plus\", \"query_length\": 16, "
                "\"target_length\": 12, \"length\": 10, \"identity\": 80.000, \"matches\": 8, "
                "\"mismatches\": 0, \"positives\": 8, \"gap_opens\": 1, \"gaps\": 2, "
                "\"cigar\": \"4=2I4=\", \"evalue\": 2.50699170825057, \"bitscore\": 7.5980949890458565, "
                "\"query_aligned\": \"ACGTTTACGT\", \"target_aligned\": \"ACGT--ACGT\"}\n"
                "  ]\n}\n");
}

TEST(json, no_hits_still_carries_the_metadata) {
  dna_fixture f;
  f.ctx.engine = f.ctx.device = "cpu";
  EXPECT_EQ(render(parse_outfmt("json"), f.ctx, {}), std::string(dna_metadata) + "  \"hits\": []\n}\n");
}

TEST(json, estimated_parameters_are_named_as_such) {
  dna_fixture f;
  f.scheme.gap_extend = 1;  // 2/-3 with gap 5/1: not in blastn's table
  const std::string out = render(parse_outfmt("json"), f.ctx, {f.hits[1]});
  EXPECT_NE(out.find("\"source\": \"estimated\", \"origin\": \"an island-method estimate"), std::string::npos) << out;
  // Every value set but Spouge's correction, which only built-in protein matrices have.
  std::string rest = out;
  const std::string no_correction = "\"finite_size_correction\": null";
  ASSERT_NE(rest.find(no_correction), std::string::npos) << out;
  rest.erase(rest.find(no_correction), no_correction.size());
  EXPECT_EQ(rest.find("null"), std::string::npos) << out;
}

TEST(json, tiny_evalues_keep_their_logarithm) {
  const std::string seq(2000, 'A');
  const sequence_set q = make_set(alphabet_kind::dna, {{"q", seq}});
  const scoring_scheme s = dna_scheme();
  run_context ctx{q, q, s, "", "", 2000};
  const std::string out = render(parse_outfmt("json"), ctx, {hit{0, 0, make_alignment(q, 0, q, 0, s, 0, 0, "2000M")}});
  // E = 0.41 * (2000 - 16)^2 * e^(-0.625 * 4000) = 2.96e-1080 (length adjustment 16): far
  // below the double range, a double 0 with its log10 beside it.
  const std::size_t at = out.find("\"evalue\": 0, \"log10_evalue\": -1079.52");
  ASSERT_NE(at, std::string::npos) << out.substr(out.find("evalue\": "), 60);
  const double log10_e = std::strtod(out.c_str() + at + std::string("\"evalue\": 0, \"log10_evalue\": ").size(), nullptr);
  EXPECT_NEAR(log10_e, std::log10(2.96) - 1080, 0.002);
}

// A built-in protein matrix: Spouge's correction, named with its parameters.
TEST(json, builtin_protein_matrix_carries_the_finite_size_correction) {
  const std::string a =
      "MVLSPADKTNVKAAWGKVGAHAGEYGAEALERMFLSFPTTKTYFPHFDLSHGSAQVKGHGKKVADALTNAVAHVDDMPNALSALSDLHAHKLRVDPVNFKLLSHCLLV"
      "TLAAHLPAEFTPAVHASLDKFLASVSTVLTSKYR";
  const sequence_set q = make_set(alphabet_kind::protein, {{"q", a}});
  const scoring_scheme s = scoring::make_protein_scheme("BLOSUM62", 11, 1);
  const scoring::search_statistics stats = scoring::search_statistics::analytic(scoring::karlin_params_for(s));
  run_context ctx{q, q, s, "", "", 1230410, "", "", &stats};
  const std::string out = render(parse_outfmt("json"), ctx, {hit{0, 0, make_alignment(q, 0, q, 0, s, 0, 0, "141M")}});
  EXPECT_NE(out.find("\"finite_size_correction\": {\"a\": 1.9, \"b\": -26.6016, \"alpha\": 42.6028, \"beta\": "
                     "-903.315, \"sigma\": 43.6362, \"tau\": -928.117}"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Spouge's finite-size correction"), std::string::npos) << out;
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
  if (!have_tool("python3")) GTEST_SKIP() << "no python3";
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
      "h=d[\"hits\"]; assert len(h)==2 and h[0][\"query\"]==\"q\\\"1\\\\\\x01\" and h[1][\"score\"]==4 "
      "and d[\"metadata\"][\"evalue_parameters\"][\"lambda\"]==0.625' " + path;
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace swat::output::test

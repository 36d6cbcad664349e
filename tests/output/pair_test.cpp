// Pairwise (EMBOSS water-like) output: header block, markup, 60-column blocks, coordinates.

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace swat::output::test {
namespace {

TEST(pair, golden_protein_with_similarity_markup) {
  const sequence_set q = make_set(alphabet_kind::protein, {{"pq", "PQIKWLEA"}});
  const sequence_set t = make_set(alphabet_kind::protein, {{"pt", "PQVRWEC"}});
  const scoring_scheme s = protein_scheme();
  run_context ctx{q, t, s, "0.1.0", "swat-gpu --outfmt pair", 1000000, "", "", &blosum62_stats()};
  const std::vector<hit> hits{{0, 0, make_alignment(q, 0, t, 0, s, 0, 0, "5M1I2M")}};
  EXPECT_EQ(render(parse_outfmt("pair"), ctx, hits),
            "########################################\n"
            "# Program: swat-gpu\n"
            "# Version: 0.1.0\n"
            "# Commandline: swat-gpu --outfmt pair\n"
            "# Align_format: pair\n"
            "########################################\n"
            "\n"
            "#=======================================\n"
            "#\n"
            "# Aligned_sequences: 2\n"
            "# 1: pq\n"
            "# 2: pt\n"
            "# Matrix: BLOSUM62\n"
            "# Gap_open: 11\n"
            "# Gap_extend: 1\n"
            "# Gap_cost: open + k*extend for a gap of k residues\n"
            "#\n"
            "# Length: 8\n"
            "# Identity:       4/8 (50.0%)\n"
            "# Similarity:     6/8 (75.0%)\n"
            "# Gaps:           1/8 (12.5%)\n"
            "# Score: 10\n"
            "# E-value: 22715\n"
            "# Bit_score:  8.5\n"
            "#\n"
            "#\n"
            "#=======================================\n"
            "\n"
            "pq                 1 PQIKWLEA      8\n"
            "                     ||::| |.\n"
            "pt                 1 PQVRW-EC      7\n"
            "\n"
            "\n"
            "#---------------------------------------\n"
            "#---------------------------------------\n");
}

//! The alignment lines of a one-hit pair report (between the header block and the trailer).
std::string body(const std::string& report) {
  const std::string open = "#=======================================\n\n";
  const std::size_t from = report.rfind(open) + open.size();
  const std::size_t to = report.find("\n#---------------------------------------\n", from);
  return report.substr(from, to - from);
}

TEST(pair, gap_crossing_a_line_boundary) {
  const std::string a14 = "ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGT";
  ASSERT_EQ(a14.size(), 56u);
  const sequence_set q = make_set(alphabet_kind::dna, {{"ql", a14 + "AC" + "TTT" + "GTACGTACGTACGT"}});
  const sequence_set t = make_set(alphabet_kind::dna, {{"tl", a14 + "AC" + "GTACGTACGTACGT"}});
  const scoring_scheme s = dna_scheme();
  run_context ctx{q, t, s, "", "", 72};
  const std::vector<hit> hits{{0, 0, make_alignment(q, 0, t, 0, s, 0, 0, "58M3I14M")}};
  const std::string out = render(parse_outfmt("pair"), ctx, hits);
  EXPECT_NE(out.find("# Length: 75\n"), std::string::npos);
  EXPECT_NE(out.find("# Gaps:           3/75 ( 4.0%)\n"), std::string::npos) << out;
  EXPECT_EQ(body(out),
            "ql                 1 ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACTT     60\n"
            "                     ||||||||||||||||||||||||||||||||||||||||||||||||||||||||||  \n"
            "tl                 1 ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTAC--     58\n"
            "\n"
            "ql                61 TGTACGTACGTACGT     75\n"
            "                      ||||||||||||||\n"
            "tl                59 -GTACGTACGTACGT     72\n"
            "\n");
}

TEST(pair, line_of_only_gaps_repeats_the_previous_coordinate) {
  const std::string a15 = "ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGT";
  const std::string g60 = "GGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG";
  ASSERT_EQ(a15.size(), 60u);
  ASSERT_EQ(g60.size(), 60u);
  const sequence_set q = make_set(alphabet_kind::dna, {{"query_with_long_name", "AA" + a15 + "TTTTT"}});
  const sequence_set t = make_set(alphabet_kind::dna, {{"tl", a15 + g60 + "TTTTT"}});
  const scoring_scheme s = dna_scheme();
  run_context ctx{q, t, s, "", "", 125};
  const std::vector<hit> hits{{0, 0, make_alignment(q, 0, t, 0, s, 2, 0, "60M60D5M")}};
  // Rows carry the name cut to 13 characters as EMBOSS water does; the header has it whole.
  const std::string out = render(parse_outfmt("pair"), ctx, hits);
  EXPECT_NE(out.find("# 1: query_with_long_name\n"), std::string::npos) << out;
  EXPECT_EQ(body(out),
            "query_with_lo      3 ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGT     62\n"
            "                     ||||||||||||||||||||||||||||||||||||||||||||||||||||||||||||\n"
            "tl                 1 ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGT     60\n"
            "\n"
            "query_with_lo     62 ------------------------------------------------------------     62\n"
            "                                                                                 \n"
            "tl                61 GGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG    120\n"
            "\n"
            "query_with_lo     63 TTTTT     67\n"
            "                     |||||\n"
            "tl               121 TTTTT    125\n"
            "\n");
}

TEST(pair, coordinates_of_seven_digits_shorten_the_name_not_the_layout) {
  const sequence_set q = make_set(alphabet_kind::dna, {{"a_long_query_name", "ACGTTGCA"}});
  const sequence_set t = make_set(alphabet_kind::dna, {{"chromosome_1", std::string(12'345'677, 'G') + "ACGTTGCA"}});
  const scoring_scheme s = dna_scheme();
  run_context ctx{q, t, s, "", "", 12'345'685};
  const std::vector<hit> hits{{0, 0, make_alignment(q, 0, t, 0, s, 0, 12'345'677, "8M")}};
  EXPECT_EQ(body(render(parse_outfmt("pair"), ctx, hits)),
            "a_long_quer        1 ACGTTGCA      8\n"
            "                     ||||||||\n"
            "chromosome_ 12345678 ACGTTGCA 12345685\n"
            "\n");
}

//! Runs Bio.AlignIO over a pair report; the script checks what it is given.
swat::test::process_result biopython_emboss(const std::string& python, const std::string& report,
                                            const std::string& checks) {
  swat::test::temp_dir dir;
  const std::string script = "import sys\nfrom Bio import AlignIO\n"
                             "alns = list(AlignIO.parse(sys.argv[1], 'emboss'))\n" + checks + "print('ok')\n";
  return run_python(python, script, report, dir);
}

TEST(pair, biopython_reads_any_name_length_and_strand) {
  const std::string python = python_with("Bio.AlignIO");
  if (python.empty()) GTEST_SKIP() << "no python3 with Biopython (Debian: python3-biopython)";
  const std::string name(300, 'n');
  const sequence_set q = make_set(alphabet_kind::dna, {{name + "_query", "AAACGTAACGTTCC"}});
  const sequence_set rc = make_set(alphabet_kind::dna, {{name + "_query", "GGAACGTTACGTTT"}});
  const sequence_set t = make_set(alphabet_kind::dna, {{name + "_target", "GGGGAACGTTACCTGGG"}});
  const scoring_scheme s = dna_scheme();
  run_context ctx{q, t, s, "0.1.0", "swat-gpu", 17};
  const std::vector<hit> hits{{0, 0, make_alignment(q, 0, t, 0, s, 3, 4, "3M")},
                              {0, 0, make_alignment(rc, 0, t, 0, s, 2, 4, "10M"), dna_strand::minus}};
  const auto r = biopython_emboss(python, render(parse_outfmt("pair"), ctx, hits),
                                  "assert len(alns) == 2\n"
                                  "assert alns[0][0].id == '" + name + "_query' and alns[0][1].id == '" + name + "_target'\n"
                                  "assert str(alns[1][0].seq) == 'AACGTTACGT' and str(alns[1][1].seq) == 'AACGTTACCT'\n");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(pair, no_hits_prints_header_and_trailer_only) {
  dna_fixture f;
  const std::string out = render(parse_outfmt("pair"), f.ctx, {});
  EXPECT_EQ(out.find("#======"), std::string::npos);
  EXPECT_NE(out.find("# Program: swat-gpu\n"), std::string::npos);
  EXPECT_NE(out.find("#---------------------------------------\n"), std::string::npos);
}

}  // namespace
}  // namespace swat::output::test

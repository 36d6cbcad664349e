// BLAST tabular output: golden lines, column selection, NA statistics.

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace swat::output::test {
namespace {

// Hand check of the first line: CGTACGTA vs CGTTCGTA, 7 identical of 8 (87.500%), score
// 7*2 - 3 = 11, rounded down to 10 for the 2/-3 parameters (lambda 0.625, K 0.41):
// bits = (6.25 + 0.8916) / 0.6931 = 10.30; E = 0.41 * 10 * 26 * e^-6.25 = 0.2058.
TEST(blast6, golden_standard_columns) {
  dna_fixture f;
  EXPECT_EQ(render(parse_outfmt("blast6"), f.ctx, f.hits),
            "q1\tt1\t87.500\t8\t1\t0\t2\t9\t4\t11\t2.06e-01\t10.3\n"
            "q1\tt2\t100.000\t10\t0\t0\t1\t10\t1\t10\t3.97e-04\t19.3\n"
            "q2\tt2\t80.000\t10\t0\t1\t4\t13\t1\t8\t4.01e+00\t6.7\n");
}

TEST(blast6, extra_columns) {
  dna_fixture f;
  const std::string out =
      render(parse_outfmt("6 score cigar qlen slen nident positive gaps qseq sseq"), f.ctx, f.hits);
  EXPECT_EQ(out,
            "q1\tt1\t87.500\t8\t1\t0\t2\t9\t4\t11\t2.06e-01\t10.3"
            "\t11\t3=1X4=\t10\t14\t7\t7\t0\tCGTACGTA\tCGTTCGTA\n"
            "q1\tt2\t100.000\t10\t0\t0\t1\t10\t1\t10\t3.97e-04\t19.3"
            "\t20\t10=\t10\t12\t10\t10\t0\tACGTACGTAC\tACGTACGTAC\n"
            "q2\tt2\t80.000\t10\t0\t1\t4\t13\t1\t8\t4.01e+00\t6.7"
            "\t7\t4=2I4=\t16\t12\t8\t8\t2\tACGTTTACGT\tACGT--ACGT\n");
}

TEST(blast6, custom_column_list_in_given_order) {
  dna_fixture f;
  output_spec spec{format::blast6, {"sseqid", "qseqid", "score"}};
  EXPECT_EQ(render(spec, f.ctx, f.hits), "t1\tq1\t11\nt2\tq1\t20\nt2\tq2\t7\n");
}

TEST(blast6, na_without_published_parameters_and_empty_hit_list) {
  dna_fixture f;
  f.scheme.gap_open = 4;
  const std::string out = render(parse_outfmt("blast6"), f.ctx, {f.hits[0]});
  EXPECT_EQ(out, "q1\tt1\t87.500\t8\t1\t0\t2\t9\t4\t11\tNA\tNA\n");
  EXPECT_EQ(render(parse_outfmt("blast6"), f.ctx, {}), "");
}

TEST(blast6, protein_positive_counts_positive_mismatches) {
  const sequence_set q = make_set(alphabet_kind::protein, {{"pq", "PQIKWLEA"}});
  const sequence_set t = make_set(alphabet_kind::protein, {{"pt", "PQVRWEC"}});
  const scoring_scheme s = protein_scheme();
  run_context ctx{q, t, s, "0.1.0", "", 1000000};
  const std::vector<hit> hits{{0, 0, make_alignment(q, 0, t, 0, s, 0, 0, "5M1I2M")}};
  // P|P Q|Q I:V K:R W|W L/- E|E A.C: score 5+5+2+2+5-12+5-2 = 10.
  ASSERT_EQ(hits[0].aln.score, 10);
  EXPECT_EQ(render(parse_outfmt("6 score nident positive mismatch qseq sseq cigar"), ctx, hits),
            "pq\tpt\t50.000\t8\t3\t1\t1\t8\t1\t7\t2.27e+04\t8.5"
            "\t10\t4\t6\t3\tPQIKWLEA\tPQVRW-EC\t2=2X1=1I1=1X\n");
}

}  // namespace
}  // namespace swat::output::test

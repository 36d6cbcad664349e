// BLAST tabular output (-outfmt 6 and 7): golden lines, BLAST's column semantics, the columns
// BLAST added (sstrand, qcovs, qcovhsp, ppos), comment lines, and Biopython's parser.

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace swat::output::test {
namespace {

// Hand check of the first line: CGTACGTA vs CGTTCGTA, 7 identical of 8 (87.500%), score
// 7*2 - 3 = 11 (lambda 0.625, K 0.41, alpha 0.8, beta -2): bits = (6.875 + 0.8916) / 0.6931 =
// 11.2; the E-value uses 10 (odd scores round down for 2/-3). BLAST's length adjustment for m = 10,
// N = 26 residues in 2 sequences is 3 (f(3) = 1.28 * ln(0.41 * 7 * 20) - 2 = 3.18 >= 3), so the
// search space is 7 * 20 = 140 and E = 0.41 * 140 * e^-6.25 = 0.1108.
TEST(blast6, golden_standard_columns) {
  dna_fixture f;
  EXPECT_EQ(render(parse_outfmt("6"), f.ctx, f.hits),
            "q1\tt1\t87.500\t8\t1\t0\t2\t9\t4\t11\t0.11\t11.2\n"
            "q1\tt2\t100.000\t10\t0\t0\t1\t10\t1\t10\t2.14e-04\t19.3\n"
            "q2\tt2\t80.000\t10\t0\t1\t4\t13\t1\t8\t2.5\t 7.6\n");
  EXPECT_EQ(render(parse_outfmt("blast6"), f.ctx, f.hits), render(parse_outfmt("6 std"), f.ctx, f.hits));
}

TEST(blast6, old_spelling_appends_columns_to_std) {
  dna_fixture f;
  const std::string out =
      render(parse_outfmt("blast6 score cigar qlen slen nident positive gaps qseq sseq"), f.ctx, f.hits);
  EXPECT_EQ(out, render(parse_outfmt("6 std score cigar qlen slen nident positive gaps qseq sseq"), f.ctx, f.hits));
  EXPECT_EQ(out,
            "q1\tt1\t87.500\t8\t1\t0\t2\t9\t4\t11\t0.11\t11.2"
            "\t11\t3=1X4=\t10\t14\t7\t7\t0\tCGTACGTA\tCGTTCGTA\n"
            "q1\tt2\t100.000\t10\t0\t0\t1\t10\t1\t10\t2.14e-04\t19.3"
            "\t20\t10=\t10\t12\t10\t10\t0\tACGTACGTAC\tACGTACGTAC\n"
            "q2\tt2\t80.000\t10\t0\t1\t4\t13\t1\t8\t2.5\t 7.6"
            "\t7\t4=2I4=\t16\t12\t8\t8\t2\tACGTTTACGT\tACGT--ACGT\n");
}

TEST(blast6, named_columns_replace_the_standard_ones) {
  dna_fixture f;
  EXPECT_EQ(render(parse_outfmt("6 sseqid qseqid score"), f.ctx, f.hits), "t1\tq1\t11\nt2\tq1\t20\nt2\tq2\t7\n");
  output_spec spec{format::blast6, {"sseqid", "qseqid", "score"}};
  EXPECT_EQ(render(spec, f.ctx, f.hits), "t1\tq1\t11\nt2\tq1\t20\nt2\tq2\t7\n");
}

TEST(blast6, estimated_parameters_instead_of_na_and_empty_hit_list) {
  dna_fixture f;
  f.scheme.gap_open = 3;  // 2/-3 with gap 3/2 is not in blastn's table
  const std::string out = render(parse_outfmt("6 evalue bitscore"), f.ctx, {f.hits[0]});
  EXPECT_EQ(out.find("NA"), std::string::npos) << out;
  EXPECT_GT(std::stod(out), 0.0) << out;
  EXPECT_EQ(render(parse_outfmt("6"), f.ctx, {}), "");
}

TEST(blast6, protein_positive_and_ppos_count_positive_mismatches) {
  const sequence_set q = make_set(alphabet_kind::protein, {{"pq", "PQIKWLEA"}});
  const sequence_set t = make_set(alphabet_kind::protein, {{"pt", "PQVRWEC"}});
  const scoring_scheme s = protein_scheme();
  run_context ctx{q, t, s, "0.1.0", "", 1000000, "", "", &blosum62_stats()};
  const std::vector<hit> hits{{0, 0, make_alignment(q, 0, t, 0, s, 0, 0, "5M1I2M")}};
  // P|P Q|Q I:V K:R W|W L/- E|E A.C: score 5+5+2+2+5-12+5-2 = 10; 6 of 8 columns positive.
  ASSERT_EQ(hits[0].aln.score, 10);
  EXPECT_EQ(render(parse_outfmt("6 score nident positive ppos mismatch qseq sseq cigar sstrand"), ctx, hits),
            "10\t4\t6\t75.00\t3\tPQIKWLEA\tPQVRW-EC\t2=2X1=1I1=1X\tN/A\n");
}

TEST(blast6, many_rows_formatted_on_several_threads_read_as_one_at_a_time) {
  // 2,100 rows (over the 512 from which rows are formatted on several threads, in runs of one a
  // thread), plus and minus strand alternating: the same text as each row written alone.
  dna_fixture f;
  std::vector<hit> many;
  for (int k = 0; k < 700; ++k)
    for (const hit& h : f.hits) {
      many.push_back(h);
      many.back().strand = k % 2 ? dna_strand::minus : dna_strand::plus;
    }
  const output_spec spec = parse_outfmt("6 std score cigar qlen slen nident positive gaps qseq sseq sstrand qcovhsp");
  std::string one_by_one;
  for (const hit& h : many) one_by_one += render(spec, f.ctx, {h});
  EXPECT_EQ(render(spec, f.ctx, many), one_by_one);
}

TEST(blast6, coverage_columns_round_like_blast) {
  dna_fixture f;
  // A second hit of q1 to t1 over query [0, 4): with the first ([1, 9)) it covers 9 of 10.
  std::vector<hit> hits = f.hits;
  hits.insert(hits.begin() + 1, {0, 0, make_alignment(f.queries, 0, f.targets, 0, f.scheme, 0, 2, "4M")});
  EXPECT_EQ(render(parse_outfmt("6 qseqid sseqid qstart qend qcovhsp qcovs"), f.ctx, hits),
            "q1\tt1\t2\t9\t80\t90\n"
            "q1\tt1\t1\t4\t40\t90\n"
            "q1\tt2\t1\t10\t100\t100\n"
            "q2\tt2\t4\t13\t63\t63\n");  // 10/16 = 62.5% rounds up
}

const char* const fields_std =
    "# Fields: query id, subject id, % identity, alignment length, mismatches, gap opens, q. start, q. end, "
    "s. start, s. end, evalue, bit score\n";

TEST(blast6, seven_adds_blast_comment_lines_per_query) {
  dna_fixture f;
  const std::vector<hit> only_q1{f.hits[0], f.hits[1]};
  EXPECT_EQ(render(parse_outfmt("7"), f.ctx, only_q1),
            std::string("# swat-gpu 0.1.0\n# Query: q1\n# Database: test.fa\n") + fields_std +
                "# 2 hits found\n"
                "q1\tt1\t87.500\t8\t1\t0\t2\t9\t4\t11\t0.11\t11.2\n"
                "q1\tt2\t100.000\t10\t0\t0\t1\t10\t1\t10\t2.14e-04\t19.3\n"
                "# swat-gpu 0.1.0\n# Query: q2\n# Database: test.fa\n# 0 hits found\n"
                "# swat-gpu processed 2 queries\n");
  const std::string extra = render(parse_outfmt("7 qseqid sstrand qcovs qcovhsp score cigar qlen ppos"), f.ctx, only_q1);
  EXPECT_NE(extra.find("# Fields: query id, subject strand, % query coverage per subject, % query coverage per hsp, "
                       "score, cigar, query length, % positives\n"),
            std::string::npos)
      << extra;
}

//! The DNA fixture plus a minus-strand hit of q2 to t1: ACGT of q2's reverse complement
//! (GGG ACGT AAACGTCCC) at t1[2, 6).
std::vector<hit> hits_with_minus(const dna_fixture& f) {
  const sequence_set rc = make_set(alphabet_kind::dna, {{"q2", "GGGACGTAAACGTCCC"}});
  std::vector<hit> hits = f.hits;
  hits.push_back({1, 0, make_alignment(rc, 0, f.targets, 0, f.scheme, 3, 2, "4M"), dna_strand::minus});
  return hits;
}

TEST(blast6, biopython_reads_tabular_and_commented_tabular) {
  const std::string python = python_with("Bio.SearchIO");
  if (python.empty()) GTEST_SKIP() << "no python3 with Biopython (Debian: python3-biopython)";
  dna_fixture f;
  const std::vector<hit> hits = hits_with_minus(f);
  const std::string columns = "qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore "
                              "score qlen slen nident positive gaps ppos qseq sseq sstrand";
  swat::test::temp_dir dir;
  // -outfmt 6: the parser is told the fields.
  const std::string script6 = R"py(
import sys
from Bio import SearchIO
qs = list(SearchIO.parse(sys.argv[1], 'blast-tab', fields=')py" + columns + R"py('))
assert [q.id for q in qs] == ['q1', 'q2'], [q.id for q in qs]
assert [h.id for h in qs[1]] == ['t2', 't1'], [h.id for h in qs[1]]
minus = qs[1]['t1'].hsps[0]
assert minus.hit_strand == -1 and minus.hit_start == 2 and minus.hit_end == 6, (minus.hit_strand, minus.hit_start, minus.hit_end)
assert minus.query_start == 9 and minus.query_end == 13, (minus.query_start, minus.query_end)
assert str(minus.query.seq) == 'ACGT' and minus.bitscore_raw == 8
assert abs(qs[0]['t1'].hsps[0].evalue - 0.11) < 1e-9
print('ok')
)py";
  auto r = run_python(python, script6, render(parse_outfmt("6 " + columns), f.ctx, hits), dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // -outfmt 7: the fields come from the comment lines.
  const std::string script7 = R"py(
import sys
from Bio import SearchIO
qs = list(SearchIO.parse(sys.argv[1], 'blast-tab', comments=True))
assert [q.id for q in qs] == ['q1', 'q2'], [q.id for q in qs]
assert len(qs[0]) == 2 and len(qs[1]) == 2
assert qs[1]['t1'].hsps[0].hit_strand == -1
assert qs[0]['t2'].hsps[0].ident_num == 10
print('ok')
)py";
  r = run_python(python, script7, render(parse_outfmt("7 " + columns), f.ctx, hits), dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

}  // namespace
}  // namespace swat::output::test

// Minus-strand hits in every writer: coordinates, rows and flags as BLAST, SAM and EMBOSS show
// them, from a hand-made alignment of the reverse-complemented query.

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "output/detail.hpp"

namespace swat::output::test {
namespace {

// Query q: AA ACGTAACGTT CC. Its reverse complement GG AACGTTACGT TT aligns (one mismatch,
// G/C at the 9th column) to t[4, 14) = AACGTTACCT. On the forward query that is q[2, 12)
// against the reverse complement of the target segment: qstart 3, qend 12, sstart 14, send 5.
struct minus_fixture {
  sequence_set queries = make_set(alphabet_kind::dna, {{"q", "AAACGTAACGTTCC"}});
  sequence_set targets = make_set(alphabet_kind::dna, {{"t", "GGGGAACGTTACCTGGG"}});
  sequence_set rc_queries = make_set(alphabet_kind::dna, {{"q", "GGAACGTTACGTTT"}});
  scoring_scheme scheme = dna_scheme();
  run_context ctx{queries, targets, scheme, "0.1.0", "swat-gpu", 17};
  hit minus{0, 0, make_alignment(rc_queries, 0, targets, 0, scheme, 2, 4, "10M"), dna_strand::minus};
};

output_spec columns(std::vector<std::string> names) { return {format::blast6, std::move(names)}; }

TEST(strand, reverse_complement_of_ranks) {
  const sequence_set s = make_set(alphabet_kind::dna, {{"x", "AACGTN"}});
  const std::vector<std::uint8_t> rc = swat::reverse_complement(s.records[0].residues);
  EXPECT_EQ(detail::letters(rc, alphabet_kind::dna), "NACGTT");
}

TEST(strand, blast6_reports_minus_hits_as_blast_does) {
  minus_fixture f;
  ASSERT_EQ(f.minus.aln.score, 15);
  const std::string out = render(columns({"qseqid", "sstart", "send", "qstart", "qend", "sstrand", "qseq", "sseq",
                                         "cigar", "nident", "mismatch"}),
                                 f.ctx, {f.minus});
  EXPECT_EQ(out, "q\t14\t5\t3\t12\tminus\tACGTAACGTT\tAGGTAACGTT\t1=1X8=\t9\t1\n");
  const hit plus{0, 0, f.minus.aln};  // same numbers read as a plus hit of the forward query
  EXPECT_EQ(render(columns({"sstart", "send", "qstart", "qend", "sstrand"}), f.ctx, {plus}), "5\t14\t3\t12\tplus\n");
}

TEST(strand, sam_minus_hit_has_flag_16_and_reverse_complemented_seq) {
  minus_fixture f;
  const std::string sam = render(parse_outfmt("sam"), f.ctx, {f.minus});
  EXPECT_NE(sam.find("q\t16\tt\t5\t255\t2S8=1X1=2S\t*\t0\t0\tGGAACGTTACGTTT\t*\tAS:i:15"), std::string::npos) << sam;
}

TEST(strand, json_and_pair_show_the_strand) {
  minus_fixture f;
  const std::string json = render(parse_outfmt("json"), f.ctx, {f.minus});
  EXPECT_NE(json.find("\"query_start\": 3, \"query_end\": 12, \"target_start\": 14, \"target_end\": 5"),
            std::string::npos) << json;
  EXPECT_NE(json.find("\"strand\": \"minus\""), std::string::npos) << json;
  const std::string pair = render(parse_outfmt("pair"), f.ctx, {f.minus});
  EXPECT_NE(pair.find("# Strand: minus"), std::string::npos) << pair;
  EXPECT_NE(pair.find("q                  3 AACGTTACGT     12\n"), std::string::npos) << pair;
  EXPECT_NE(pair.find("t                  5 AACGTTACCT     14\n"), std::string::npos) << pair;
}

TEST(strand, minus_protein_hit_is_a_logic_error) {
  const sequence_set q = make_set(alphabet_kind::protein, {{"p", "MKV"}});
  const scoring_scheme s = protein_scheme();
  run_context ctx{q, q, s, "", "", 3, "", "", &blosum62_stats()};
  const hit h{0, 0, make_alignment(q, 0, q, 0, s, 0, 0, "3M"), dna_strand::minus};
  EXPECT_THROW(render(parse_outfmt("6"), ctx, {h}), std::logic_error);
}

}  // namespace
}  // namespace swat::output::test

// SAM/BAM output: golden text, flags, soft clips, unmapped records, NM/MD/AS/ZE tags, name
// checks, and the real tools: samtools view/quickcheck/calmd (MD and NM must equal its own) and
// pysam where installed.

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "fixtures.hpp"

namespace swat::output::test {
namespace {

using swat::test::process_result;
using swat::test::read_file;
using swat::test::run_shell;
using swat::test::temp_dir;
using swat::test::write_file;

const char* const dna_header =
    "@HD\tVN:1.6\tSO:unsorted\n"
    "@SQ\tSN:t1\tLN:14\n"
    "@SQ\tSN:t2\tLN:12\n"
    "@PG\tID:swat-gpu\tPN:swat-gpu\tVN:0.1.0\tCL:swat-gpu -q q.fa -d db.fa\n"
    "@CO\tscoring: match 2 mismatch -3, gap open 5 extend 2 (a gap of k residues costs open + k*extend)\n"
    "@CO\tE-values (ZE tag): lambda=0.625 K=0.41 H=0.78 alpha=0.8 beta=-2 (E-values of odd scores: those of the even score below) "
    "from NCBI BLAST table: blastn reward 2 penalty -3, gap 5/2\n";

const char* const dna_records =
    "q1\t0\tt1\t4\t255\t1S3=1X4=1S\t*\t0\t0\tACGTACGTAC\t*\tAS:i:11\tNM:i:1\tMD:Z:3T4\tZE:Z:0.11\n"
    "q1\t256\tt2\t1\t255\t10=\t*\t0\t0\tACGTACGTAC\t*\tAS:i:20\tNM:i:0\tMD:Z:10\tZE:Z:2.14e-04\n"
    "q2\t0\tt2\t1\t255\t3S4=2I4=3S\t*\t0\t0\tGGGACGTTTACGTCCC\t*\tAS:i:7\tNM:i:2\tMD:Z:8\tZE:Z:2.5\n";

TEST(sam, golden_with_soft_clips_secondary_seq_and_tags) {
  dna_fixture f;
  EXPECT_EQ(render(parse_outfmt("sam"), f.ctx, f.hits), std::string(dna_header) + dna_records);
}

TEST(sam, pg_names_the_engine_and_device) {
  dna_fixture f;
  f.ctx.engine = "gpu-fast";
  f.ctx.device = "gpu";
  const std::string out = render(parse_outfmt("sam"), f.ctx, f.hits);
  EXPECT_NE(out.find("@PG\tID:swat-gpu\tPN:swat-gpu\tVN:0.1.0\tCL:swat-gpu -q q.fa -d db.fa\tDS:engine gpu-fast on gpu\n"),
            std::string::npos)
      << out;
}

TEST(sam, deletion_in_md_and_nm_and_command_line_stays_on_one_line) {
  const sequence_set q = make_set(alphabet_kind::dna, {{"r", "ACGTACGT"}});
  const sequence_set t = make_set(alphabet_kind::dna, {{"ref", "ACGTTTACGA"}});
  const scoring_scheme s = dna_scheme();
  run_context ctx{q, t, s, "", "a\tb\nc", 18};
  const std::vector<hit> hits{{0, 0, make_alignment(q, 0, t, 0, s, 0, 0, "4M2D4M")}};
  const std::string out = render(parse_outfmt("sam"), ctx, hits);
  EXPECT_NE(out.find("@PG\tID:swat-gpu\tPN:swat-gpu\tCL:a b c\n"), std::string::npos) << out;
  EXPECT_NE(out.find("r\t0\tref\t1\t255\t4=2D3=1X\t*\t0\t0\tACGTACGT\t*\tAS:i:2\tNM:i:3\tMD:Z:4^TT3A0\tZE:Z:"),
            std::string::npos)
      << out;
}

TEST(sam, queries_without_hits_are_unmapped_unless_hit_only) {
  dna_fixture f;
  const std::vector<hit> only_q2{f.hits[2]};
  const std::string out = render(parse_outfmt("sam"), f.ctx, only_q2);
  EXPECT_NE(out.find("\nq1\t4\t*\t0\t0\t*\t*\t0\t0\tACGTACGTAC\t*\nq2\t0\tt2\t1\t"), std::string::npos) << out;
  output_spec hit_only = parse_outfmt("sam");
  hit_only.sam_hit_only = true;
  EXPECT_EQ(render(hit_only, f.ctx, only_q2).find("q1\t"), std::string::npos);
  // A hit without an alignment (score 0) is unmapped too.
  const std::string zero = render(parse_outfmt("sam"), f.ctx, {hit{1, 0, alignment{}}});
  EXPECT_NE(zero.find("q2\t4\t*\t0\t0\t*\t*\t0\t0\tGGGACGTTTACGTCCC\t*\n"), std::string::npos) << zero;
}

TEST(sam, bad_or_duplicate_names_are_input_errors_naming_the_records) {
  const scoring_scheme s = dna_scheme();
  const auto expect_error = [&](const sequence_set& q, const sequence_set& t, std::vector<std::string> needles) {
    run_context ctx{q, t, s, "", "", 8};
    try {
      render(parse_outfmt("sam"), ctx, {});
      ADD_FAILURE() << "no error";
    } catch (const input_error& e) {
      for (const std::string& n : needles) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
    }
  };
  const sequence_set good = make_set(alphabet_kind::dna, {{"a", "ACGT"}, {"b", "ACGT"}});
  expect_error(good, make_set(alphabet_kind::dna, {{"x", "ACGT"}, {"y", "AC"}, {"x", "GT"}}),
               {"test.fa", "record 1 'x'", "record 3 'x'", "unique"});
  expect_error(good, make_set(alphabet_kind::dna, {{"chr(1)", "ACGT"}}), {"chr(1)", "reference name"});
  expect_error(good, make_set(alphabet_kind::dna, {{"*x", "ACGT"}}), {"*x"});
  expect_error(make_set(alphabet_kind::dna, {{std::string(255, 'q'), "ACGT"}}), good, {"QNAME", "254"});
  expect_error(make_set(alphabet_kind::dna, {{"a@b", "ACGT"}}), good, {"a@b"});
  const sequence_set twins = make_set(alphabet_kind::dna, {{"x", "A"}, {"x", "C"}});
  run_context ctx{good, twins, s, "", "", 2, "", ""};
  EXPECT_NO_THROW(render(parse_outfmt("6"), ctx, {}));  // other formats do not care
  EXPECT_NO_THROW(check_inputs(parse_outfmt("json"), ctx.queries, ctx.targets));
}

TEST(sam, bam_is_refused_for_protein) {
  const sequence_set p = make_set(alphabet_kind::protein, {{"p", "MKV"}});
  try {
    check_inputs(parse_outfmt("bam"), p, p);
    ADD_FAILURE() << "no error";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("--outfmt sam"), std::string::npos) << e.what();
  }
}

//! Writes the fixture's targets as FASTA and the SAM, runs `samtools calmd` and returns its
//! output (SAM) and standard error.
process_result samtools_calmd(const dna_fixture& f, const std::string& sam, const temp_dir& dir) {
  std::string fasta;
  for (const sequence_record& t : f.targets.records) {
    fasta += ">" + t.name + "\n";
    for (std::uint8_t r : t.residues) fasta += rank_to_char(alphabet_kind::dna, r);
    fasta += "\n";
  }
  write_file(dir / "ref.fa", fasta);
  write_file(dir / "in.sam", sam);
  return run_shell("samtools calmd " + (dir / "in.sam").string() + " " + (dir / "ref.fa").string(), dir);
}

//! The value of tag (e.g. "MD:Z:") in each alignment line of a SAM text.
std::vector<std::string> tag_values(const std::string& sam, const std::string& tag) {
  std::vector<std::string> values;
  std::istringstream in(sam);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '@') continue;
    const std::size_t at = line.find("\t" + tag);
    if (at == std::string::npos) continue;
    const std::size_t from = at + 1 + tag.size();
    values.push_back(line.substr(from, line.find('\t', from) - from));
  }
  return values;
}

TEST(sam, md_and_nm_equal_samtools_calmd) {
  if (!have_tool("samtools")) GTEST_SKIP() << "samtools not on PATH";
  dna_fixture f;
  std::vector<hit> hits = f.hits;
  // A deletion right before a mismatch (MD "…^X0Y…") and a minus-strand hit.
  const sequence_set rc = make_set(alphabet_kind::dna, {{"q2", "GGGACGTAAACGTCCC"}});
  hits.push_back({1, 0, make_alignment(rc, 0, f.targets, 0, f.scheme, 3, 2, "4M")});
  hits.back().strand = dna_strand::minus;
  hits.push_back({0, 0, make_alignment(f.queries, 0, f.targets, 0, f.scheme, 1, 2, "2M1D6M")});
  const std::string sam = render(parse_outfmt("sam"), f.ctx, hits);
  temp_dir dir;
  const process_result r = samtools_calmd(f, sam, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("different"), std::string::npos) << r.err;  // calmd warns on a wrong MD/NM
  EXPECT_EQ(tag_values(r.out, "MD:Z:"), tag_values(sam, "MD:Z:"));
  EXPECT_EQ(tag_values(r.out, "NM:i:"), tag_values(sam, "NM:i:"));
  EXPECT_EQ(tag_values(sam, "MD:Z:").size(), 5u);
}

TEST(sam, dna_sam_and_bam_pass_samtools) {
  if (!have_tool("samtools")) GTEST_SKIP() << "samtools not on PATH";
  dna_fixture f;
  temp_dir dir;
  write_file(dir / "out.sam", render(parse_outfmt("sam"), f.ctx, f.hits));
  write_file(dir / "out.bam", render(parse_outfmt("bam"), f.ctx, f.hits));
  process_result r = run_shell("samtools quickcheck -v " + (dir / "out.bam").string(), dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = run_shell("samtools view -h --no-PG " + (dir / "out.bam").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, read_file(dir / "out.sam"));  // BAM holds exactly the SAM records
  r = run_shell("samtools view -b -o /dev/null " + (dir / "out.sam").string(), dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(sam, pysam_reads_records_and_tags) {
  const std::string python = python_with("pysam");
  if (python.empty()) GTEST_SKIP() << "no python3 with pysam (Debian: python3-pysam)";
  dna_fixture f;
  temp_dir dir;
  const std::string script = R"py(
import sys, pysam
with pysam.AlignmentFile(sys.argv[1], 'rb') as bam:
    recs = list(bam)
    assert bam.references == ('t1', 't2') and bam.lengths == (14, 12)
    pg = bam.header.to_dict()['PG'][0]
assert [r.query_name for r in recs] == ['q1', 'q1', 'q2']
assert recs[1].is_secondary and recs[1].query_sequence == 'ACGTACGTAC'
assert recs[0].get_tag('AS') == 11 and recs[0].get_tag('NM') == 1 and recs[0].get_tag('MD') == '3T4'
assert recs[0].get_tag('ZE') == '0.11' and recs[0].reference_start == 3
assert pg['ID'] == 'swat-gpu' and 'CL' in pg
print('ok')
)py";
  const process_result r = run_python(python, script, render(parse_outfmt("bam"), f.ctx, f.hits), dir, "out.bam");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(sam, protein_output_passes_samtools) {
  if (!have_tool("samtools")) GTEST_SKIP() << "samtools not on PATH";
  const sequence_set q = make_set(alphabet_kind::protein, {{"pq", "MMPQIKWLEA"}});
  const sequence_set t = make_set(alphabet_kind::protein, {{"pt", "PQVRWEC"}});
  const scoring_scheme s = protein_scheme();
  run_context ctx{q, t, s, "0.1.0", "swat-gpu", 7, "", "", &blosum62_stats()};
  const std::vector<hit> hits{{0, 0, make_alignment(q, 0, t, 0, s, 2, 0, "5M1I2M")}};
  const std::string sam = render(parse_outfmt("sam"), ctx, hits);
  EXPECT_NE(sam.find("pq\t0\tpt\t1\t255\t2S2=2X1=1I1=1X\t*\t0\t0\tMMPQIKWLEA\t*\tAS:i:10\tNM:i:4\tMD:Z:2V0R2C0\tZE:Z:"),
            std::string::npos)
      << sam;
  temp_dir dir;
  write_file(dir / "p.sam", sam);
  for (const char* args : {"view -h ", "view -b -o /dev/null "}) {
    const process_result r = run_shell(std::string("samtools ") + args + (dir / "p.sam").string(), dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
  }
}

}  // namespace
}  // namespace swat::output::test

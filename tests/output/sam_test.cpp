// SAM output: golden text, flags, soft clips, NM, and validation by samtools.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fixtures.hpp"

namespace swat::output::test {
namespace {

const char* const dna_golden =
    "@HD\tVN:1.6\tSO:unsorted\n"
    "@SQ\tSN:t1\tLN:14\n"
    "@SQ\tSN:t2\tLN:12\n"
    "@PG\tID:swat-gpu\tPN:swat-gpu\tVN:0.1.0\tCL:swat-gpu -q q.fa -d db.fa\n"
    "q1\t0\tt1\t4\t255\t1S3=1X4=1S\t*\t0\t0\tACGTACGTAC\t*\tAS:i:11\tNM:i:1\n"
    "q1\t256\tt2\t1\t255\t10=\t*\t0\t0\t*\t*\tAS:i:20\tNM:i:0\n"
    "q2\t0\tt2\t1\t255\t3S4=2I4=3S\t*\t0\t0\tGGGACGTTTACGTCCC\t*\tAS:i:7\tNM:i:2\n";

TEST(sam, golden_with_soft_clips_secondary_flag_and_nm) {
  dna_fixture f;
  EXPECT_EQ(render(parse_outfmt("sam"), f.ctx, f.hits), dna_golden);
}

TEST(sam, deletion_counts_in_nm_and_command_line_stays_on_one_line) {
  const sequence_set q = make_set(alphabet_kind::dna, {{"r", "ACGTACGT"}});
  const sequence_set t = make_set(alphabet_kind::dna, {{"ref", "ACGTTTACGA"}});
  const scoring_scheme s = dna_scheme();
  run_context ctx{q, t, s, "", "a\tb\nc", 18};
  const std::vector<hit> hits{{0, 0, make_alignment(q, 0, t, 0, s, 0, 0, "4M2D4M")}};
  EXPECT_EQ(render(parse_outfmt("sam"), ctx, hits),
            "@HD\tVN:1.6\tSO:unsorted\n"
            "@SQ\tSN:ref\tLN:10\n"
            "@PG\tID:swat-gpu\tPN:swat-gpu\tCL:a b c\n"
            "r\t0\tref\t1\t255\t4=2D3=1X\t*\t0\t0\tACGTACGT\t*\tAS:i:2\tNM:i:3\n");
}

TEST(sam, hit_without_alignment_is_unmapped) {
  dna_fixture f;
  const std::vector<hit> hits{{1, 0, alignment{}}};
  const std::string out = render(parse_outfmt("sam"), f.ctx, hits);
  EXPECT_NE(out.find("q2\t4\t*\t0\t0\t*\t*\t0\t0\tGGGACGTTTACGTCCC\t*\tAS:i:0\n"), std::string::npos)
      << out;
}

bool have_samtools() { return std::system("command -v samtools >/dev/null 2>&1") == 0; }

//! Writes sam to a temporary file and runs `samtools <args> <file>`; returns its exit status
//! and fills err with its standard error.
int run_samtools(const std::string& sam, const std::string& args, std::string& err) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string tag = std::to_string(::getpid());
  const std::string path = (dir / ("swat_output_test_" + tag + ".sam")).string();
  const std::string err_path = path + ".err";
  std::ofstream(path) << sam;
  const std::string cmd = "samtools " + args + " " + path + " >/dev/null 2>" + err_path;
  const int status = std::system(cmd.c_str());
  std::ifstream in(err_path);
  err.assign(std::istreambuf_iterator<char>(in), {});
  std::filesystem::remove(path);
  std::filesystem::remove(err_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(sam, dna_output_passes_samtools) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not on PATH";
  dna_fixture f;
  const std::string sam = render(parse_outfmt("sam"), f.ctx, f.hits);
  std::string err;
  EXPECT_EQ(run_samtools(sam, "view -h", err), 0) << err;
  EXPECT_EQ(err, "");
  // Conversion to BAM checks that CIGAR query length and SEQ length agree.
  EXPECT_EQ(run_samtools(sam, "view -b -o /dev/null", err), 0) << err;
  EXPECT_EQ(err, "");
}

TEST(sam, broken_record_fails_samtools) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not on PATH";
  std::string sam = dna_golden;
  // Drop the trailing soft clip of the first record: CIGAR covers 9 of the 10 SEQ bases.
  sam.replace(sam.find("1S3=1X4=1S"), 10, "1S3=1X4=");
  std::string err;
  EXPECT_NE(run_samtools(sam, "view -b -o /dev/null", err), 0);
}

TEST(sam, protein_output_passes_samtools) {
  if (!have_samtools()) GTEST_SKIP() << "samtools not on PATH";
  const sequence_set q = make_set(alphabet_kind::protein, {{"pq", "MMPQIKWLEA"}});
  const sequence_set t = make_set(alphabet_kind::protein, {{"pt", "PQVRWEC"}});
  const scoring_scheme s = protein_scheme();
  run_context ctx{q, t, s, "0.1.0", "swat-gpu", 7};
  const std::vector<hit> hits{{0, 0, make_alignment(q, 0, t, 0, s, 2, 0, "5M1I2M")}};
  const std::string sam = render(parse_outfmt("sam"), ctx, hits);
  EXPECT_NE(sam.find("pq\t0\tpt\t1\t255\t2S2=2X1=1I1=1X\t*\t0\t0\tMMPQIKWLEA\t*\tAS:i:10\tNM:i:4\n"),
            std::string::npos)
      << sam;
  std::string err;
  EXPECT_EQ(run_samtools(sam, "view -h", err), 0) << err;
  EXPECT_EQ(err, "");
  EXPECT_EQ(run_samtools(sam, "view -b -o /dev/null", err), 0) << err;
  EXPECT_EQ(err, "");
}

}  // namespace
}  // namespace swat::output::test

// End to end, the outputs BLAST/SAM users feed to their tools: BLAST tabular 6/7 read by
// Biopython, SAM/BAM checked by samtools (quickcheck, view, calmd's MD and NM), pair read by
// Biopython's emboss parser, JSON metadata, --evalue, --sam-hit-only, the estimated-E-value
// notice and the classic BLOSUM62 file. Tools that are missing make their checks skip.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_process.hpp"

namespace fs = std::filesystem;
using swat::test::process_result;
using swat::test::read_file;
using swat::test::run_shell;
using swat::test::temp_dir;
using swat::test::write_file;

namespace {

const std::string binary = SWAT_BINARY;
const fs::path source_dir = SWAT_SOURCE_DIR;
const std::string spike_gene = (source_dir / "data/sarscov2_spike_gene.fa").string();
const std::string regions = (source_dir / "data/coronavirus_regions.fa").string();

process_result align(const std::string& args, const temp_dir& dir) {
  return run_shell(binary + " align " + args + " --device cpu", dir);
}

bool have(const std::string& tool) { return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0; }

//! A python3 that imports `module` (PATH first, then Debian's /usr/bin/python3), or "".
std::string python_with(const std::string& module) {
  for (const char* python : {"python3", "/usr/bin/python3"})
    if (std::system((std::string(python) + " -c 'import " + module + "' >/dev/null 2>&1").c_str()) == 0) return python;
  return "";
}

//! Queries: the spike gene and one too short for any hit with E <= 10 (score 10: E = 51).
std::string queries_with_a_miss(const temp_dir& dir) {
  const std::string path = (dir / "q.fa").string();
  write_file(path, read_file(spike_gene) + ">nohit a query without hits\nGATTA\n");
  return path;
}

std::vector<std::string> column(const std::string& tsv, std::size_t index) {
  std::vector<std::string> values;
  std::istringstream in(tsv);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line[0] == '@') continue;
    std::istringstream fields(line);
    std::string f;
    for (std::size_t i = 0; i <= index && std::getline(fields, f, '\t'); ++i) {
    }
    values.push_back(f);
  }
  return values;
}

//! Runs `swat-gpu align <args> -o out` and then a Python check of out (sys.argv[1]); a failed
//! alignment shows as the check's failure.
process_result python_check(const std::string& python, const std::string& args, const std::string& check,
                            const temp_dir& dir) {
  const process_result r = align(args + " -o " + (dir / "out").string(), dir);
  if (r.exit_code != 0) return r;
  write_file(dir / "check.py", "import sys\n" + check);
  return run_shell(python + " " + (dir / "check.py").string() + " " + (dir / "out").string(), dir);
}

//! SAM text without its @PG lines (they hold the command line, which differs between runs).
std::string without_pg(const std::string& sam) {
  std::string out;
  std::istringstream in(sam);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("@PG", 0) != 0) out += line + '\n';
  return out;
}

}  // namespace

TEST(cli_formats, sam_and_bam_pass_samtools_and_md_equals_calmd) {
  if (!have("samtools")) GTEST_SKIP() << "samtools not on PATH";
  temp_dir dir;
  const std::string q = queries_with_a_miss(dir);
  process_result r = align(q + " " + regions + " --outfmt sam -o " + (dir / "out.sam").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = align(q + " " + regions + " --outfmt bam -o " + (dir / "out.bam").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string sam = read_file(dir / "out.sam");
  EXPECT_NE(sam.find("\nnohit\t4\t*\t0\t0\t*\t*\t0\t0\tGATTA\t*\n"), std::string::npos);
  EXPECT_NE(sam.find("@PG\tID:swat-gpu\tPN:swat-gpu\tVN:"), std::string::npos);
  EXPECT_NE(sam.find("\tDS:engine cpu on CPU ("), std::string::npos);
  EXPECT_NE(sam.find("@CO\tE-values (ZE tag): lambda=0.625 K=0.41"), std::string::npos);

  r = run_shell("samtools quickcheck -v " + (dir / "out.bam").string(), dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = run_shell("samtools view -h --no-PG " + (dir / "out.bam").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(without_pg(r.out) == without_pg(sam)) << "BAM and SAM differ";
  // calmd indexes the reference (.fai): give it a copy, not the source tree's file.
  fs::copy_file(regions, dir / "regions.fa");
  r = run_shell("samtools calmd " + (dir / "out.sam").string() + " " + (dir / "regions.fa").string(), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("different"), std::string::npos) << r.err;  // calmd names every MD/NM it corrects
  EXPECT_TRUE(without_pg(r.out) == without_pg(sam)) << "calmd changed the SAM";
}

TEST(cli_formats, sam_hit_only_and_evalue_cutoff) {
  temp_dir dir;
  const std::string q = queries_with_a_miss(dir);
  process_result r = align(q + " " + regions + " --outfmt sam --sam-hit-only", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("nohit"), std::string::npos);
  // On the plus strand the third hit (lambda control, E = 6.17) goes with --evalue 1; all three
  // stay with 10.
  r = align(spike_gene + " " + regions + " --strand plus --outfmt '6 sseqid evalue'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(column(r.out, 0).size(), 3u) << r.out;
  r = align(spike_gene + " " + regions + " --strand plus --outfmt '6 sseqid evalue' --evalue 1", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(column(r.out, 0).size(), 2u) << r.out;
}

TEST(cli_formats, tabular_values_and_biopython) {
  temp_dir dir;
  const std::string q = queries_with_a_miss(dir);
  process_result r = align(q + " " + regions + " --outfmt '6 score evalue bitscore sstrand qcovs'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // blastn -task blastn on the same files: score 6289, 5671 bits, E 0.0 (printed as BLAST does).
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "6289\t0.0\t5671\tplus\t100") << r.out;
  const std::string python = python_with("Bio.SearchIO");
  if (python.empty()) GTEST_SKIP() << "no python3 with Biopython";
  r = python_check(python, q + " " + regions + " --outfmt '7 std score qlen slen nident positive gaps ppos sstrand'",
                   R"py(
from Bio import SearchIO
qs = list(SearchIO.parse(sys.argv[1], 'blast-tab', comments=True))
assert [q.id for q in qs] == ['MN908947.3:21563-25384', 'nohit'], [q.id for q in qs]
assert len(qs[0]) == 3 and len(qs[1]) == 0
best = qs[0][0].hsps[0]
assert best.bitscore_raw == 6289 and best.query_start == 0 and best.query_end == 3822
)py",
                   dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(cli_formats, pair_reads_with_biopython_and_json_has_metadata) {
  temp_dir dir;
  process_result r = align(spike_gene + " " + regions + " --outfmt json", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* needle : {"\"metadata\": {\"program\": \"swat-gpu\"", "\"engine\": \"cpu\"", "\"device\": \"CPU (",
                             "\"database\": {\"file\": ", "\"sequences\": 3, \"residues\": 13000}", "\"source\": \"ncbi_table\"",
                             "\"query_aligned\": \"ATGTTTGTTTTTCTTGTTTTATTGCCACTAG", "\"evalue\": 0, \"log10_evalue\": -1699.47"})
    EXPECT_NE(r.out.find(needle), std::string::npos) << needle;
  const std::string python = python_with("Bio.AlignIO");
  if (python.empty()) GTEST_SKIP() << "no python3 with Biopython";
  r = python_check(python, spike_gene + " " + regions + " --outfmt pair", R"py(
from Bio import AlignIO
alns = list(AlignIO.parse(sys.argv[1], 'emboss'))
assert len(alns) == 3
assert alns[0][0].id == 'MN908947.3:21563-25384' and alns[0].annotations['score'] == 6289
)py",
                   dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(cli_formats, estimated_evalues_are_announced) {
  temp_dir dir;
  process_result r = align(spike_gene + " " + regions + " --gap-open 3 --gap-extend 2 --outfmt json", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("notice: E-values: NCBI BLAST has no table for this scoring scheme; using lambda="),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("\"source\": \"estimated\""), std::string::npos);
  r = align(spike_gene + " " + regions + " --gap-open 3 --gap-extend 2 --quiet", dir);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(cli_formats, classic_blosum62_file_loads_with_blosum62_statistics) {
  temp_dir dir;
  const std::string q = (source_dir / "data/spike_sarscov2_QHU36824.fa").string();
  const std::string db = (source_dir / "data/spike_proteins.fa").string();
  const std::string classic = (source_dir / "data/matrices/BLOSUM62_classic").string();
  const process_result builtin = align(q + " " + db + " --outfmt '6 score evalue bitscore'", dir);
  const process_result file = align(q + " " + db + " --matrix-file " + classic + " --outfmt '6 score evalue bitscore'", dir);
  ASSERT_EQ(builtin.exit_code, 0) << builtin.err;
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_EQ(file.out, builtin.out);  // no X, B or Z in these spikes; same E-value parameters
  EXPECT_TRUE(file.err.empty()) << file.err;  // no "estimated" notice
}

// BLAST tabular columns against BLAST+ itself on the bundled data: the best alignment of every
// subject as blastn (-task blastn) and blastp (-comp_based_stats 0) report it and as swat-gpu
// does, column by column (qseqid sseqid pident length mismatch gapopen qstart qend sstart send
// evalue bitscore, plus score and sstrand). BLAST's gapped extension finds the optimal
// alignment on these pairs; where it picks another co-optimal path (same score and ends, the gaps
// placed elsewhere) pident, mismatch and gapopen are compared only when the gap openings agree.
// Skips without BLAST+ (Debian: ncbi-blast+).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_process.hpp"

using swat::test::run_shell;
using swat::test::temp_dir;

namespace {

const std::string binary = SWAT_BINARY;
const std::string data = std::string(SWAT_SOURCE_DIR) + "/data/";
const char* columns = "qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore score sstrand";

bool have(const char* tool) { return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0; }

//! The first row per subject (both tools list a subject's best alignment first).
std::map<std::string, std::vector<std::string>> best_per_subject(const std::string& out) {
  std::map<std::string, std::vector<std::string>> best;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cols;
    std::istringstream l(line);
    for (std::string c; std::getline(l, c, '\t');) cols.push_back(c);
    if (cols.size() == 14) best.emplace(cols[1], cols);
  }
  return best;
}

void compare(const std::string& blast_out, const std::string& ours_out, std::size_t subjects) {
  const auto blast = best_per_subject(blast_out), ours = best_per_subject(ours_out);
  ASSERT_EQ(blast.size(), subjects) << blast_out;
  ASSERT_EQ(ours.size(), subjects) << ours_out;
  for (const auto& [subject, b] : blast) {
    SCOPED_TRACE(subject);
    ASSERT_TRUE(ours.count(subject));
    const std::vector<std::string>& o = ours.at(subject);
    for (int c : {0, 1, 3, 6, 7, 8, 9, 11, 12, 13}) EXPECT_EQ(o[std::size_t(c)], b[std::size_t(c)]) << "column " << c;
    // E-value: BLAST prints 0.0 below 1e-180 and three significant digits otherwise.
    if (b[10] == "0.0") {
      EXPECT_LT(std::strtod(o[10].c_str(), nullptr), 1e-180);  // below the double range: 0
    } else {
      EXPECT_NEAR(std::strtod(o[10].c_str(), nullptr), std::stod(b[10]), 0.01 * std::stod(b[10]));
    }
    if (o[5] == b[5]) {
      EXPECT_EQ(o[2], b[2]) << "pident";
      EXPECT_EQ(o[4], b[4]) << "mismatch";
    }
  }
}

//! BLAST+'s program (with its database type and options) and swat-gpu on the same query and
//! database of data/, compared by compare().
void compare_with_blast(const std::string& program, const std::string& dbtype, const std::string& options,
                        const std::string& query, const std::string& db, std::size_t subjects) {
  temp_dir dir;
  const auto made = run_shell("makeblastdb -in " + data + db + " -dbtype " + dbtype + " -out " + (dir / "db").string(), dir);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto blast = run_shell(program + " " + options + " -query " + data + query + " -db " + (dir / "db").string() +
                                   " -outfmt '6 " + columns + "'",
                               dir);
  const auto ours = run_shell(binary + " align " + data + query + " " + data + db +
                                  " --device cpu --quiet --outfmt '6 " + columns + "'",
                              dir);
  ASSERT_EQ(blast.exit_code, 0) << blast.err;
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  compare(blast.out, ours.out, subjects);
}

}  // namespace

TEST(cli_blast, blastn_best_alignments_column_by_column) {
  if (!have("blastn") || !have("makeblastdb")) GTEST_SKIP() << "no BLAST+ (ncbi-blast+)";
  // RaTG13 and SARS-CoV (plus strand), lambda (minus strand).
  compare_with_blast("blastn", "nucl", "-task blastn -dust no", "sarscov2_spike_gene.fa", "coronavirus_regions.fa", 3);
}

TEST(cli_blast, blastp_best_alignments_column_by_column) {
  if (!have("blastp") || !have("makeblastdb")) GTEST_SKIP() << "no BLAST+ (ncbi-blast+)";
  compare_with_blast("blastp", "prot", "-comp_based_stats 0 -seg no", "spike_sarscov2_QHU36824.fa", "spike_proteins.fa", 2);
}

// E-values and bit scores against BLAST+ itself: every HSP blastn (-task blastn) and blastp
// (-comp_based_stats 0) report on the bundled data, recomputed from its raw score with our
// parameters: BLAST's effective search space for blastn, Spouge's finite-size correction for
// blastp. Skips without BLAST+ (Debian: ncbi-blast+).

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "scoring/karlin.hpp"
#include "scoring/scoring.hpp"
#include "support/run_process.hpp"

namespace swat::scoring {
namespace {

using swat::test::run_shell;
using swat::test::temp_dir;

struct blast_row {
  std::int64_t score;
  std::string evalue;
  double bits;
  std::uint64_t qlen, slen;
};

bool have(const char* tool) { return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0; }

//! Builds a BLAST database of db_file and runs `program query -db … extra`; rows of
//! "score evalue bitscore qlen slen".
std::vector<blast_row> run_blast(const std::string& program, const std::string& dbtype, const std::string& query,
                                 const std::string& db_file, const std::string& extra, const temp_dir& dir) {
  const std::string db = (dir / "db").string();
  auto r = run_shell("makeblastdb -in " + db_file + " -dbtype " + dbtype + " -out " + db, dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run_shell(program + " -query " + query + " -db " + db + " " + extra + " -outfmt '6 score evalue bitscore qlen slen'", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<blast_row> rows;
  std::istringstream in(r.out);
  for (blast_row row; in >> row.score >> row.evalue >> row.bits >> row.qlen >> row.slen;) rows.push_back(row);
  return rows;
}

//! Checks every row: E within BLAST's printed precision (or "0.0" below 1e-180) and the bit
//! score as BLAST prints it (truncated above 99.9, one decimal below).
void expect_same_statistics(const std::vector<blast_row>& rows, const karlin_params& p, std::uint64_t db_residues,
                            std::uint64_t db_sequences) {
  ASSERT_GE(rows.size(), 2u);
  for (const blast_row& row : rows) {
    SCOPED_TRACE("score " + std::to_string(row.score) + " evalue " + row.evalue);
    const double ln_e = p.gumbel ? spouge_ln_evalue(p, row.score, row.qlen, row.slen, db_residues)
                                 : ln_evalue(p, row.score, effective_search_space(p, row.qlen, db_residues, db_sequences));
    if (row.evalue == "0.0") {
      EXPECT_LT(ln_e, std::log(1e-180));
    } else {
      const double blast_e = std::stod(row.evalue);
      EXPECT_NEAR(std::exp(ln_e), blast_e, 0.06 * blast_e);  // BLAST prints 2-3 digits
    }
    const double bits = bit_score(p, row.score);
    EXPECT_NEAR(bits > 99.9 ? std::floor(bits) : std::round(bits * 10) / 10, row.bits, 0.051);
  }
}

TEST(karlin_blast, blastn_evalues_and_bit_scores) {
  if (!have("blastn") || !have("makeblastdb")) GTEST_SKIP() << "no BLAST+ (ncbi-blast+)";
  temp_dir dir;
  const std::string data = std::string(SWAT_SOURCE_DIR) + "/data/";
  const std::vector<blast_row> rows = run_blast("blastn", "nucl", data + "sarscov2_spike_gene.fa",
                                                data + "coronavirus_regions.fa",
                                                "-task blastn -dust no -evalue 1000 -max_hsps 20", dir);
  // coronavirus_regions.fa: 5,000 + 5,000 + 3,000 residues in 3 records.
  expect_same_statistics(rows, *published_karlin_params(make_dna_scheme(2, -3, 5, 2)), 13000, 3);
}

TEST(karlin_blast, blastp_evalues_and_bit_scores) {
  if (!have("blastp") || !have("makeblastdb")) GTEST_SKIP() << "no BLAST+ (ncbi-blast+)";
  temp_dir dir;
  const std::string data = std::string(SWAT_SOURCE_DIR) + "/data/";
  const std::vector<blast_row> rows =
      run_blast("blastp", "prot", data + "spike_sarscov2_QHU36824.fa", data + "spike_proteins.fa",
                "-comp_based_stats 0 -seg no -evalue 1000 -max_hsps 20", dir);
  expect_same_statistics(rows, *published_karlin_params(make_protein_scheme("BLOSUM62", 11, 1)), 2524, 2);
}

}  // namespace
}  // namespace swat::scoring

// `swat-gpu align` under scoring schemes without Karlin–Altschul parameters (--stats): every
// valid scheme aligns; E-values exist only where they can be computed, and each format says so.

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "support/run_process.hpp"
#include "support/sequence_text.hpp"

namespace fs = std::filesystem;
using swat::test::process_result;
using swat::test::run_shell;
using swat::test::temp_dir;
using swat::test::tsv_rows;

namespace {

const std::string binary = SWAT_BINARY;
const fs::path source_dir = SWAT_SOURCE_DIR;

const std::string dna_query = (source_dir / "data/sarscov2_spike_gene.fa").string();
const std::string dna_db = (source_dir / "data/coronavirus_regions.fa").string();
const std::string protein_query = (source_dir / "data/spike_sarscov2_QHU36824.fa").string();
const std::string protein_db = (source_dir / "data/spike_proteins.fa").string();

struct scheme_case {
  bool dna;
  std::string options;
};

//! The schemes users type that have no logarithmic regime (EMBOSS water's DNA matrix, cheap
//! gaps): each was refused before.
const std::vector<scheme_case> undefined_schemes = {
    {true, "--match 5 --mismatch -4 --gap-open 10 --gap-extend 1"},
    {true, "--match 3 --mismatch -2 --gap-open 5 --gap-extend 2"},
    {true, "--match 2 --mismatch -1 --gap-open 2 --gap-extend 1"},
    {true, "--match 1 --mismatch -1 --gap-open 0 --gap-extend 1"},
    {false, "--matrix PAM30 --gap-open 3 --gap-extend 1"},
    {false, "--matrix BLOSUM62 --gap-open 0 --gap-extend 1"},
};

process_result run_case(const scheme_case& c, const std::string& more, const temp_dir& dir) {
  const std::string inputs = c.dna ? dna_query + " " + dna_db : protein_query + " " + protein_db;
  return run_shell(binary + " align " + inputs + " --device cpu " + c.options + " " + more, dir);
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(cli_stats, every_scheme_aligns_and_tabular_says_nan) {
  temp_dir dir;
  for (const scheme_case& c : undefined_schemes) {
    const process_result r = run_case(c, "--outfmt \"6 std score\"", dir);
    ASSERT_EQ(r.exit_code, 0) << c.options << "\n" << r.err;
    // One notice naming the reason; no other line on stderr but the engine's own notices.
    EXPECT_EQ(count_of(r.err, "E-values: none"), 1u) << r.err;
    EXPECT_NE(r.err.find("no Karlin-Altschul parameters"), std::string::npos) << r.err;
    const auto rows = tsv_rows(r.out);
    ASSERT_FALSE(rows.empty()) << c.options;
    for (const auto& row : rows) {
      ASSERT_EQ(row.size(), 13u);
      EXPECT_EQ(row[10], "nan") << c.options;  // evalue
      EXPECT_EQ(row[11], "nan") << c.options;  // bitscore
      EXPECT_GT(std::stoi(row[12]), 0);
    }
  }
}

TEST(cli_stats, nan_reads_as_a_float_in_python) {
  temp_dir dir;
  const std::string hits = (dir / "hits.tsv").string();
  const process_result r = run_case(undefined_schemes[0], "--outfmt \"6 qseqid sseqid evalue bitscore\" -o " + hits, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const process_result py = run_shell(
      "python3 -c \"import math,sys; rows=[l.split('\\t') for l in open('" + hits + "')]; "
      "sys.exit(0 if rows and all(math.isnan(float(x[2])) and math.isnan(float(x[3])) for x in rows) else 1)\"",
      dir);
  EXPECT_EQ(py.exit_code, 0) << py.err;
}

TEST(cli_stats, json_has_null_sam_has_no_ze_pair_says_na) {
  temp_dir dir;
  for (const scheme_case& c : {undefined_schemes[0], undefined_schemes[5]}) {
    process_result r = run_case(c, "--outfmt json", dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("\"evalue\": null, \"bitscore\": null"))) << r.out.substr(0, 2000);
    EXPECT_NE(r.out.find("\"statistics\": {\"method\": \"none\""), std::string::npos);
    EXPECT_NE(r.out.find("\"evalue_parameters\": null"), std::string::npos);
    EXPECT_EQ(r.out.find("\"evalue\": nan"), std::string::npos);

    r = run_case(c, "--outfmt sam", dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("ZE:Z:"), std::string::npos);
    EXPECT_NE(r.out.find("AS:i:"), std::string::npos);
    EXPECT_NE(r.out.find("@CO\tE-values: none"), std::string::npos);

    r = run_case(c, "--outfmt pair", dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("# E-value: n/a\n# Bit_score: n/a\n"), std::string::npos);
  }
  // samtools reads the BAM, without ZE tags.
  if (run_shell("command -v samtools", dir).exit_code != 0) GTEST_SKIP() << "samtools not on PATH";
  const std::string bam = (dir / "hits.bam").string();
  const process_result r = run_case(undefined_schemes[1], "--outfmt bam -o " + bam, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const process_result view = run_shell("samtools view " + bam, dir);
  EXPECT_EQ(view.exit_code, 0) << view.err;
  EXPECT_NE(view.out.find("AS:i:"), std::string::npos);
  EXPECT_EQ(view.out.find("ZE:Z:"), std::string::npos);
}

TEST(cli_stats, an_explicit_evalue_without_statistics_is_a_usage_error) {
  temp_dir dir;
  for (const scheme_case& c : undefined_schemes) {
    const process_result r = run_case(c, "--evalue 1e-5 -o " + (dir / "hits.tsv").string(), dir);
    EXPECT_EQ(r.exit_code, 2) << c.options;
    EXPECT_NE(r.err.find("--evalue cannot be honoured"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "hits.tsv"));
    // Filtering by score stays possible.
    EXPECT_EQ(run_case(c, "--min-score 40", dir).exit_code, 0) << c.options;
  }
}

TEST(cli_stats, stats_none_turns_the_evalues_off_for_any_scheme) {
  temp_dir dir;
  // The default scheme has E-values; --stats none drops them (and the --evalue filter with them).
  process_result r = run_shell(binary + " align " + dna_query + " " + dna_db + " --device cpu --stats none "
                                   "--outfmt \"6 qseqid sseqid evalue\"", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& row : tsv_rows(r.out)) EXPECT_EQ(row[2], "nan");
  EXPECT_NE(r.err.find("--stats none"), std::string::npos);
  // Asked for with too small a database: no fit, a notice, and no E-values.
  r = run_shell(binary + " align " + dna_query + " " + dna_db + " --device cpu --stats empirical "
                    "--outfmt \"6 qseqid sseqid evalue\"", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("empirical E-values need a database of at least 500 sequences (this one has 3)"),
            std::string::npos) << r.err;
  for (const auto& row : tsv_rows(r.out)) EXPECT_EQ(row[2], "nan");
}

TEST(cli_stats, timing_and_json_name_the_method) {
  temp_dir dir;
  process_result r = run_shell(binary + " align " + dna_query + " " + dna_db + " --device cpu --timing --quiet", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("E-values analytic"), std::string::npos) << r.err;
  r = run_case(undefined_schemes[2], "--timing --quiet", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("E-values none"), std::string::npos) << r.err;
  r = run_shell(binary + " align " + dna_query + " " + dna_db + " --device cpu --outfmt json", dir);
  EXPECT_NE(r.out.find("\"statistics\": {\"method\": \"analytic\""), std::string::npos);
}

TEST(cli_stats, a_database_search_fits_evalues_where_the_scheme_has_no_parameters) {
  const fs::path shared = SWAT_SHARED_DATA;
  const fs::path queries = shared / "protein/db_queries.fa", db = shared / "protein/swissprot_subset_mmseqs2.fa";
  if (!fs::exists(queries) || !fs::exists(db)) GTEST_SKIP() << "no " << shared;
  temp_dir dir;
  // Hemoglobin alpha (HAHU) and calmodulin against 3,183 Swiss-Prot sequences under BLOSUM62 0/1
  // (linear regime: no analytic parameters): E-values fitted per query, --evalue honoured.
  const std::string q = (dir / "q.fa").string();
  ASSERT_EQ(run_shell("(awk '/^>/{keep = ($0 ~ /HAHU|CALM_HUMAN/)} keep' " + queries.string() + " > " + q + ")", dir).exit_code, 0);
  const std::string base = binary + " align " + q + " " + db.string() +
                           " --device cpu --matrix BLOSUM62 --gap-open 0 --gap-extend 1 --outfmt \"6 qseqid sseqid evalue\" ";
  process_result r = run_shell(base + "--evalue 1e-3", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("E-values: fitted to this search's scores"), std::string::npos) << r.err;
  bool found_hbb = false;
  for (const auto& row : tsv_rows(r.out)) {
    const double e = std::stod(row[2]);
    EXPECT_LE(e, 1e-3) << row[0] << " " << row[1];
    if (row[0] == "HAHU" && row[1] == "sp|P02135|HBB_LITCT") found_hbb = true;
  }
  EXPECT_TRUE(found_hbb) << r.out;
  // --stats none: the same search without E-values (every hit above --min-score).
  r = run_shell(base + "--stats none --max-hits 3", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& row : tsv_rows(r.out)) EXPECT_EQ(row[2], "nan");
}

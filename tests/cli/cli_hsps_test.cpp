// --max-hsps end to end: copies of a gene planted on both strands of a genome are all reported,
// best first, with BLAST's minus-strand coordinates; the limit and the thresholds cut the list;
// every output format carries several alignments of one target (SAM: one primary, the rest
// secondary, checked by samtools); bad values are refused.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_process.hpp"
#include "support/sequence_text.hpp"

using swat::test::random_dna;
using swat::test::read_file;
using swat::test::reverse_complement;
using swat::test::run_shell;
using swat::test::temp_dir;
using swat::test::write_file;
using swat::test::tsv_rows;

namespace {

const std::string binary = SWAT_BINARY;

std::string substitute(std::mt19937& rng, std::string s, int every) {
  for (std::size_t k = std::size_t(rng() % unsigned(every)); k < s.size(); k += std::size_t(every))
    s[k] = s[k] == 'A' ? 'C' : 'A';
  return s;
}

//! A 600-base gene and a 30 kb genome holding four copies (plus at 3,001 and 21,001 with 1 in
//! 40 bases changed, minus at 9,001 and 27,001 with 1 in 30 and 1 in 50 changed).
struct planted {
  temp_dir dir;
  std::string gene, genome;
  planted() {
    std::mt19937 rng(31);
    gene = random_dna(rng, 600);
    genome = random_dna(rng, 30000);
    const std::pair<std::size_t, std::string> copies[] = {{3000, substitute(rng, gene, 40)},
                                                          {9000, reverse_complement(substitute(rng, gene, 30))},
                                                          {21000, substitute(rng, gene, 40)},
                                                          {27000, reverse_complement(substitute(rng, gene, 50))}};
    for (const auto& [at, text] : copies) genome.replace(at, text.size(), text);
    write_file(dir / "gene.fa", ">gene\n" + gene + "\n");
    write_file(dir / "genome.fa", ">genome\n" + genome + "\n>decoy\n" + random_dna(rng, 5000) + "\n");
  }
  swat::test::process_result run(const std::string& options) const {
    return run_shell("cd " + dir.path().string() + " && " + binary + " align gene.fa genome.fa --device cpu --quiet " +
                         options,
                     dir);
  }
};

}  // namespace

TEST(cli_hsps, planted_copies_on_both_strands_are_all_reported_best_first) {
  const planted p;
  const auto all = p.run("--max-hsps 0 --min-score 300 --outfmt '6 sseqid qstart qend sstart send score sstrand'");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto r = tsv_rows(all.out);
  ASSERT_EQ(r.size(), 4u) << all.out;
  std::vector<std::string> where;
  for (const auto& row : r) {
    EXPECT_EQ(row[0], "genome");
    EXPECT_EQ(row[1], "1");
    EXPECT_EQ(row[2], "600");
    where.push_back(row[3] + "-" + row[4] + " " + row[6]);
  }
  // Best first: 1 in 50 changed (minus), then the two 1 in 40 (plus; the smaller end first on
  // equal scores), then 1 in 30 (minus). Minus hits run from sstart > send, as in BLAST.
  EXPECT_EQ(where, (std::vector<std::string>{"27600-27001 minus", "3001-3600 plus", "21001-21600 plus",
                                             "9600-9001 minus"}))
      << all.out;
  for (std::size_t k = 1; k < r.size(); ++k) EXPECT_LE(std::stoi(r[k][5]), std::stoi(r[k - 1][5]));

  const auto two = p.run("--max-hsps 2 --min-score 300 --outfmt '6 sstart score'");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  ASSERT_EQ(tsv_rows(two.out).size(), 2u) << two.out;
  EXPECT_EQ(tsv_rows(two.out)[0][0], "27600");
  EXPECT_EQ(tsv_rows(two.out)[1][0], "3001");
  const auto one = p.run("--min-score 300 --outfmt '6 sstart score'");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(tsv_rows(one.out).size(), 1u) << one.out;
  EXPECT_EQ(tsv_rows(one.out)[0], tsv_rows(two.out)[0]);
  // One strand only: its two copies.
  const auto plus = p.run("--max-hsps 0 --min-score 300 --strand plus --outfmt '6 sstart'");
  ASSERT_EQ(plus.exit_code, 0) << plus.err;
  EXPECT_EQ(tsv_rows(plus.out), (std::vector<std::vector<std::string>>{{"3001"}, {"21001"}}));
}

TEST(cli_hsps, evalue_cutoff_applies_to_every_alignment) {
  const planted p;
  // With BLAST's default cutoff (10) short chance alignments follow the four copies; a strict
  // cutoff keeps the copies only, and every row's E-value respects the cutoff.
  const auto loose = p.run("--max-hsps 0 --outfmt '6 sseqid evalue score'");
  const auto strict = p.run("--max-hsps 0 --evalue 1e-50 --outfmt '6 sseqid evalue score'");
  ASSERT_EQ(loose.exit_code, 0) << loose.err;
  ASSERT_EQ(strict.exit_code, 0) << strict.err;
  EXPECT_GT(tsv_rows(loose.out).size(), 4u) << loose.out;
  EXPECT_EQ(tsv_rows(strict.out).size(), 4u) << strict.out;
  for (const auto& row : tsv_rows(loose.out)) EXPECT_LE(std::stod(row[1]), 10.0) << row[0];
  // Targets are ranked by their best alignment and keep their alignments together.
  const auto r = tsv_rows(loose.out);
  std::size_t first_decoy = r.size();
  for (std::size_t k = 0; k < r.size(); ++k)
    if (r[k][0] == "decoy") first_decoy = std::min(first_decoy, k);
  for (std::size_t k = first_decoy; k < r.size(); ++k) EXPECT_EQ(r[k][0], "decoy");
}

TEST(cli_hsps, every_format_carries_several_alignments_of_a_target) {
  const planted p;
  const std::string base = "--max-hsps 0 --evalue 1e-50 ";
  const auto sam = p.run(base + "--outfmt sam -o hits.sam");
  ASSERT_EQ(sam.exit_code, 0) << sam.err;
  const auto recs = tsv_rows(read_file(p.dir / "hits.sam"));
  ASSERT_EQ(recs.size(), 4u);
  EXPECT_EQ(recs[0][1], "16");   // primary, minus strand
  EXPECT_EQ(recs[1][1], "256");  // secondary, plus
  EXPECT_EQ(recs[2][1], "256");
  EXPECT_EQ(recs[3][1], "272");  // secondary, minus
  if (std::system("command -v samtools >/dev/null 2>&1") == 0) {
    const auto check = run_shell("cd " + p.dir.path().string() + " && samtools quickcheck hits.sam && samtools view -c hits.sam", p.dir);
    EXPECT_EQ(check.exit_code, 0) << check.err;
    EXPECT_EQ(check.out, "4\n");
  }
  const auto json = p.run(base + "--outfmt json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  std::size_t hits = 0;
  for (std::size_t at = json.out.find("\"target_aligned\""); at != std::string::npos;
       at = json.out.find("\"target_aligned\"", at + 1))
    ++hits;
  EXPECT_EQ(hits, 4u);
  const auto pair = p.run(base + "--outfmt pair");
  ASSERT_EQ(pair.exit_code, 0) << pair.err;
  std::size_t blocks = 0;
  for (std::size_t at = pair.out.find("# Score:"); at != std::string::npos; at = pair.out.find("# Score:", at + 1))
    ++blocks;
  EXPECT_EQ(blocks, 4u);
  const auto seven = p.run(base + "--outfmt 7");
  ASSERT_EQ(seven.exit_code, 0) << seven.err;
  EXPECT_NE(seven.out.find("# 4 hits found"), std::string::npos) << seven.out;
}

TEST(cli_hsps, bad_values_are_refused) {
  const planted p;
  for (const std::string bad : {"-1", "x", "1.5", ""}) {
    const auto r = p.run("--max-hsps '" + bad + "' -o out.tsv");
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--max-hsps"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(p.dir / "out.tsv"));
  }
}

TEST(cli_hsps, spiroplasma_prophage_copies_of_skv1) {
  // The genome holds many copies of the Spiroplasma virus SkV1 (a prophage): blastn finds the
  // best on the minus strand (target 493,642 → 485,766) and at least 12 longer than 3 kb.
  const std::filesystem::path data = SWAT_SHARED_DATA;
  const auto virus = data / "dna/spiroplasma_virus_SkV1_NC_009987.1.fa";
  const auto genome = data / "dna/spiroplasma_kunkelii_CP010899.1.fa";
  if (!std::filesystem::exists(virus) || !std::filesystem::exists(genome)) GTEST_SKIP() << "no shared data";
  temp_dir dir;
  const auto r = run_shell(binary + " align " + virus.string() + " " + genome.string() +
                               " --device cpu --quiet --max-hsps 0 --min-score 3000 --outfmt '6 qstart qend sstart send length sstrand'",
                           dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = tsv_rows(r.out);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1", "7870", "493642", "485766", "7912", "minus"}));
  std::size_t longer = 0;
  for (const auto& row : rows) longer += std::stol(row[4]) > 3000;
  EXPECT_GE(longer, 12u) << r.out;
}

// --strand: a DNA query is searched on both strands by default (the reverse complement of the
// query against the database as it is); a target's hit is its better strand; protein refuses
// the option. Scores are checked here (coordinates of minus hits are the writers' business).

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <random>
#include <sstream>

#include "support/run_process.hpp"
#include "support/sequence_text.hpp"

namespace fs = std::filesystem;
using swat::test::random_dna;
using swat::test::reverse_complement;
using swat::test::run_shell;
using swat::test::write_reverse_complements;
using swat::test::temp_dir;
using swat::test::write_file;

namespace {

const std::string binary = SWAT_BINARY;

// Scores of the blast6 "score" column, one per line.
std::vector<int> scores(const std::string& out) {
  std::vector<int> v;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) v.push_back(std::stoi(line.substr(line.rfind('\t') + 1)));
  return v;
}

}  // namespace

TEST(cli_strand, minus_strand_copy_is_found_and_both_takes_the_better_strand) {
  temp_dir dir;
  std::mt19937 rng(5);
  const std::string q = random_dna(rng, 600);
  // The target holds a weak forward copy of the first 100 bases and the reverse complement of
  // the whole query (a strong minus-strand hit).
  const std::string t = random_dna(rng, 300) + q.substr(0, 100) + random_dna(rng, 300) + reverse_complement(q) + random_dna(rng, 200);
  write_file(dir / "q.fa", ">q\n" + q + "\n");
  write_file(dir / "t.fa", ">t\n" + t + "\n");
  const std::string common = "align q.fa t.fa --device cpu --quiet --outfmt 'blast6 score'";
  auto both = run_shell("cd " + dir.path().string() + " && " + binary + " " + common, dir);
  auto plus = run_shell("cd " + dir.path().string() + " && " + binary + " " + common + " --strand plus", dir);
  auto minus = run_shell("cd " + dir.path().string() + " && " + binary + " " + common + " --strand minus", dir);
  ASSERT_EQ(both.exit_code, 0) << both.err;
  ASSERT_EQ(plus.exit_code, 0) << plus.err;
  ASSERT_EQ(minus.exit_code, 0) << minus.err;
  ASSERT_EQ(scores(both.out).size(), 1u);
  EXPECT_EQ(scores(minus.out).front(), 2 * 600);   // the whole reverse complement
  EXPECT_LT(scores(plus.out).front(), 2 * 600);    // only the forward copy on the plus strand
  EXPECT_GE(scores(plus.out).front(), 2 * 100);
  EXPECT_EQ(scores(both.out).front(), 2 * 600);    // both: the better strand

  // The query's reverse complement as the query: the strands swap, the best score stays.
  write_file(dir / "rq.fa", ">rq\n" + reverse_complement(q) + "\n");
  auto swapped = run_shell("cd " + dir.path().string() + " && " + binary + " align rq.fa t.fa --device cpu --quiet --outfmt 'blast6 score' --strand plus", dir);
  ASSERT_EQ(swapped.exit_code, 0) << swapped.err;
  EXPECT_EQ(scores(swapped.out).front(), 2 * 600);
}

// A single pair whose sides are both long (≥ 1024) is scanned first on the CPU (both strands) and
// only its reported strand aligned, in the prefixes before its best cell (cpu_engine::
// scans_single_pair_first): two equal exact copies of the query on the plus strand (the tie rule
// takes the first), a weaker mutated copy on the minus strand; then mutated plus copies and an
// exact minus-strand copy (the minus strand wins). The reported alignments are the known ones.
TEST(cli_strand, a_long_single_pair_scanned_first_reports_the_known_alignments) {
  temp_dir dir;
  std::mt19937 rng(9);
  const std::string q = random_dna(rng, 2000);
  std::string weak = reverse_complement(q).substr(0, 1500);
  for (std::size_t k = 7; k < weak.size(); k += 50) weak[k] = weak[k] == 'A' ? 'C' : 'A';
  const std::string t = random_dna(rng, 3000) + q + random_dna(rng, 1000) + q + random_dna(rng, 500) + weak +
                        random_dna(rng, 700);
  write_file(dir / "q.fa", ">q\n" + q + "\n");
  write_file(dir / "t.fa", ">t\n" + t + "\n");
  const std::string cmd = "cd " + dir.path().string() + " && " + binary +
                          " align q.fa t.fa --device cpu --quiet --outfmt '6 qstart qend sstart send score sstrand slen cigar'";
  const auto r = run_shell(cmd, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1\t2000\t3001\t5000\t4000\tplus\t" + std::to_string(t.size()) + "\t2000=\n");
  // The plus strand's copies mutated, the reverse complement of the whole query further on: the
  // minus strand wins.
  std::string mutated = q;
  for (std::size_t k = 3; k < mutated.size(); k += 40) mutated[k] = mutated[k] == 'A' ? 'C' : 'A';
  const std::string t2 = random_dna(rng, 3000) + mutated + random_dna(rng, 800) + reverse_complement(q) +
                         random_dna(rng, 100);
  write_file(dir / "t.fa", ">t\n" + t2 + "\n");
  const auto r2 = run_shell(cmd + " --outfmt '6 qstart qend score sstrand cigar'", dir);
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_EQ(r2.out, "1\t2000\t4000\tminus\t2000=\n");
}

TEST(cli_strand, protein_and_bad_values_are_refused) {
  temp_dir dir;
  write_file(dir / "p.fa", ">p\nMKVLAAGIVWW\n");
  auto r = run_shell(binary + " align " + (dir / "p.fa").string() + " " + (dir / "p.fa").string() + " --strand both", dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--strand"), std::string::npos) << r.err;
  write_file(dir / "d.fa", ">d\nACGTACGTAC\n");
  r = run_shell(binary + " align " + (dir / "d.fa").string() + " " + (dir / "d.fa").string() + " --strand up", dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--strand"), std::string::npos) << r.err;
}

namespace {

//! Rows of "qstart qend sstart send score sstrand slen" per subject (first row per subject).
std::vector<std::vector<long>> coordinates(const std::string& out) {
  std::vector<std::vector<long>> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream l(line);
    std::string strand;
    std::vector<long> v(6);
    l >> v[0] >> v[1] >> v[2] >> v[3] >> v[4] >> strand >> v[5];
    v.push_back(strand == "minus");
    rows.push_back(v);
  }
  return rows;
}

}  // namespace

TEST(cli_strand, reverse_complemented_targets_give_mirrored_coordinates_on_real_pairs) {
  // A query against the reverse complement of its targets: same score, the query's coordinates
  // unchanged, the target's mirrored (sstart' = slen - sstart + 1) on the other strand.
  temp_dir dir;
  std::vector<std::pair<fs::path, fs::path>> pairs = {
      {fs::path(SWAT_SOURCE_DIR) / "data/sarscov2_spike_gene.fa", fs::path(SWAT_SOURCE_DIR) / "data/coronavirus_regions.fa"}};
  const fs::path shared = SWAT_SHARED_DATA;
  if (fs::exists(shared / "dna/mt_orang.fa")) pairs.emplace_back(shared / "dna/mt_orang.fa", shared / "dna/mt_human.fa");
  for (const auto& [query, db] : pairs) {
    SCOPED_TRACE(db.string());
    write_reverse_complements(db, dir / "rc.fa", "rc_");
    const std::string fmt = " --device cpu --quiet --outfmt '6 qstart qend sstart send score sstrand slen'";
    const auto fwd = run_shell(binary + " align " + query.string() + " " + db.string() + fmt, dir);
    const auto rev = run_shell(binary + " align " + query.string() + " " + (dir / "rc.fa").string() + fmt, dir);
    ASSERT_EQ(fwd.exit_code, 0) << fwd.err;
    ASSERT_EQ(rev.exit_code, 0) << rev.err;
    const auto a = coordinates(fwd.out), b = coordinates(rev.out);
    ASSERT_EQ(a.size(), b.size()) << fwd.out << rev.out;
    ASSERT_FALSE(a.empty());
    for (std::size_t k = 0; k < a.size(); ++k) {
      EXPECT_EQ(b[k][4], a[k][4]) << "score";
      EXPECT_EQ(b[k][0], a[k][0]) << "qstart";
      EXPECT_EQ(b[k][1], a[k][1]) << "qend";
      EXPECT_EQ(b[k][2], a[k][5] - a[k][2] + 1) << "sstart";
      EXPECT_EQ(b[k][3], a[k][5] - a[k][3] + 1) << "send";
      EXPECT_NE(b[k][6], a[k][6]) << "strand";
    }
  }
}

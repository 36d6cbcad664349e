// read_fasta on the real sequences in SWAT_SHARED_DATA (see its PROVENANCE.md); skipped when
// the directory is missing.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <numeric>
#include <string>

#include "io/fasta.hpp"
#include "io_test_util.hpp"

namespace swat::io::test {
namespace {

std::string shared(std::string_view relative) {
  return (std::filesystem::path(SWAT_SHARED_DATA) / relative).string();
}

class shared_data : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::is_directory(SWAT_SHARED_DATA))
      GTEST_SKIP() << "shared data not found at " << SWAT_SHARED_DATA;
  }
  static sequence_set read(std::string_view relative,
                           alphabet_request request = alphabet_request::auto_detect) {
    std::vector<std::string> warnings;
    sequence_set set = read_collecting(shared(relative), warnings, request);
    EXPECT_TRUE(warnings.empty()) << warnings.front();
    return set;
  }
};

struct single_record {
  std::string_view file;
  alphabet_kind alphabet;
  std::size_t length;
};

TEST_F(shared_data, single_record_lengths_and_detected_alphabet) {
  const single_record files[] = {
      {"dna/sarscov2_MN908947.3.fa", alphabet_kind::dna, 29'903},
      {"dna/mt_human.fa", alphabet_kind::dna, 16'569},
      {"dna/mt_orang.fa", alphabet_kind::dna, 16'499},
      {"dna/ratg13_MN996532.2.fa", alphabet_kind::dna, 29'855},
      {"dna/sarscov_frankfurt1_AY291315.1.fa", alphabet_kind::dna, 29'727},
      {"dna/lambda_NC_001416.1.fa", alphabet_kind::dna, 48'502},
      {"dna/stx2_phage_II_AP005154.1.fa", alphabet_kind::dna, 62'706},
      {"dna/spiroplasma_virus_SkV1_NC_009987.1.fa", alphabet_kind::dna, 7'870},
      {"protein/titin_human_Q8WZ42.fa", alphabet_kind::protein, 34'350},
      {"protein/spike_sarscov2_QHU36824.fa", alphabet_kind::protein, 1'273},
      {"protein/spike_ratg13_QHR63300.fa", alphabet_kind::protein, 1'269},
      {"protein/spike_sarscov_AAP33697.1.fa", alphabet_kind::protein, 1'255},
  };
  for (const auto& f : files) {
    const sequence_set set = read(f.file);
    EXPECT_EQ(set.alphabet, f.alphabet) << f.file;
    ASSERT_EQ(set.records.size(), 1u) << f.file;
    EXPECT_EQ(set.records[0].residues.size(), f.length) << f.file;
  }
}

TEST_F(shared_data, sarscov2_record) {
  const sequence_set set = read("dna/sarscov2_MN908947.3.fa");
  EXPECT_EQ(set.records[0].name, "MN908947.3");
  EXPECT_EQ(letters(set, 0).substr(0, 20), "ATTAAAGGTTTATACCTTCC");
}

TEST_F(shared_data, mt_human_lowercase_base) {
  // The rCRS placeholder at position 3107 is written as a lower-case 'a'.
  const sequence_set set = read("dna/mt_human.fa");
  EXPECT_EQ(set.records[0].residues.at(3106), 0);
}

TEST_F(shared_data, swissprot_subset) {
  const sequence_set set = read("protein/swissprot_subset_mmseqs2.fa");
  EXPECT_EQ(set.alphabet, alphabet_kind::protein);
  ASSERT_EQ(set.records.size(), 3'183u);
  const std::size_t total = std::accumulate(
      set.records.begin(), set.records.end(), std::size_t{0},
      [](std::size_t sum, const sequence_record& r) { return sum + r.residues.size(); });
  EXPECT_EQ(total, 1'230'410u);
  EXPECT_EQ(set.records[0].name, "sp|Q8AWH3|SX17A_XENTR");
  // The header ends in a blank, which the description does not keep.
  EXPECT_EQ(set.records[0].description,
            "Transcription factor Sox-17-alpha OS=Xenopus tropicalis GN=sox17a PE=2 SV=1 Split=0");
}

TEST_F(shared_data, db_queries) {
  const sequence_set set = read("protein/db_queries.fa");
  EXPECT_EQ(set.alphabet, alphabet_kind::protein);
  const std::size_t lengths[] = {218, 141, 149, 187, 1'123, 1'273, 34'350};
  ASSERT_EQ(set.records.size(), std::size(lengths));
  for (std::size_t r = 0; r < set.records.size(); ++r)
    EXPECT_EQ(set.records[r].residues.size(), lengths[r]) << set.records[r].name;
}

TEST_F(shared_data, gzip_copy_reads_the_same) {
  temp_dir dir;
  const std::string plain = shared("dna/sarscov2_MN908947.3.fa");
  const std::string gz = write_gz(dir.file("sarscov2.fa.gz"), slurp(plain));
  expect_same_records(read_fasta(plain, {}, nullptr), read_fasta(gz, {}, nullptr));
}

TEST_F(shared_data, large_files_load_fast) {
  struct big {
    std::string_view file;
    std::size_t records;
    std::size_t first_length;
  };
  for (const big& b : {big{"dna/spiroplasma_kunkelii_CP010899.1.fa", 1, 1'463'926},
                       big{"dna/spiroplasma_kunkelii_CP010899.1_mutated_seed42.fa", 1, 1'463'913},
                       big{"protein/swissprot_subset_mmseqs2.fa", 3'183, 0}}) {
    const auto start = std::chrono::steady_clock::now();
    const sequence_set set = read(b.file);
    const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(set.records.size(), b.records) << b.file;
    if (b.first_length) {
      EXPECT_EQ(set.records.at(0).residues.size(), b.first_length) << b.file;
    }
    std::cout << "  " << b.file << ": " << seconds.count() * 1e3 << " ms\n";
#ifdef NDEBUG
    EXPECT_LT(seconds.count(), 0.5) << b.file;  // well under a second in Release
#endif
  }
}

}  // namespace
}  // namespace swat::io::test

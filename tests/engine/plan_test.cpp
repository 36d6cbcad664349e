// The shape planner's device choice (engine/plan.hpp): the CPU engine where it is predicted
// faster than the GPU's start and scan, the GPU otherwise; how many GPUs; sizes estimated from
// the files.

#include "engine/plan.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace swat {
namespace {

TEST(plan, small_searches_go_to_the_cpu_engine_large_ones_to_the_gpu) {
  const cost_model model;
  // The bundled example: one gene against three regions (~1e8 cells) on 16 threads.
  device_plan p = plan_device({3822, 13000, 1, 3, 2}, 16, model);
  EXPECT_TRUE(p.use_cpu) << p.describe();
  EXPECT_LT(p.cpu_s, 0.01);
  EXPECT_NEAR(p.gpu_s, model.gpu_start_s, 0.01);
  // Seven protein queries against Swiss-Prot ×50 (2.3e12 cells): the GPU by far.
  p = plan_device({38000, 61'500'000, 7, 159'150, 1}, 16, model);
  EXPECT_FALSE(p.use_cpu) << p.describe();
  EXPECT_GT(p.cpu_s, 20 * p.gpu_s);
  // The break-even point moves with the threads: 1e10 cells are the CPU's on 64 threads, the
  // GPU's on 2.
  EXPECT_TRUE(plan_device({100'000, 100'000, 100, 100, 1}, 64, model).use_cpu);
  EXPECT_FALSE(plan_device({100'000, 100'000, 100, 100, 1}, 2, model).use_cpu);
  // A few long pairs run at the pair engine's rate, many at the scan's.
  const double pair_s = plan_device({2'000'000, 2'000'000, 1, 1, 1}, 1, model).gpu_s;
  const double scan_s = plan_device({2'000'000, 2'000'000, 100, 100, 1}, 1, model).gpu_s;
  EXPECT_GT(pair_s, scan_s);
  EXPECT_NE(plan_device({1, 1, 1, 1, 1}, 0, model).describe().find("1 threads"), std::string::npos);
}

TEST(plan, the_gpu_count_follows_the_scan_length_and_the_gpus_start) {
  const cost_model model;
  // Seven protein queries against Swiss-Prot ×1 (4.6e10 cells): one GPU of four.
  EXPECT_EQ(plan_gpu_count({38000, 1'230'000, 7, 3183, 1, true}, 4, model), 1);
  // ×500 (2.3e13 cells, ~6 s on one GPU): every GPU of two and of four.
  const search_size x500{38000, 615'000'000, 7, 1'591'500, 1, true};
  EXPECT_EQ(plan_gpu_count(x500, 2, model), 2);
  EXPECT_EQ(plan_gpu_count(x500, 4, model), 4);
  EXPECT_EQ(plan_gpu_count(x500, 1, model), 1);
  // The same cells as one long pair: filled in bands over as many GPUs as its strips fill
  // (4,687 strips of 1,024 rows: three of four GPUs); unknown record counts: a scan.
  EXPECT_EQ(plan_gpu_count({4'800'000, 4'800'000, 1, 1, 1}, 4, model), 3);
  EXPECT_GT(plan_gpu_count({4'800'000, 4'800'000, 0, 0, 1}, 4, model), 1);
  // The 2.93 Mb pair (2,860 strips): two GPUs, also of four; the 1.46 Mb pair's 1,430 strips
  // barely fill one GPU: one; both strands of a pair: the same count.
  EXPECT_EQ(plan_gpu_count({2'930'000, 2'930'000, 1, 1, 1}, 4, model), 2);
  EXPECT_EQ(plan_gpu_count({2'930'000, 2'930'000, 1, 1, 2}, 2, model), 2);
  EXPECT_EQ(plan_gpu_count({1'460'000, 1'460'000, 1, 1, 2}, 4, model), 1);
  // A gene against a genome, either way round (tall, narrow: windows): one GPU.
  EXPECT_EQ(plan_gpu_count({9'000, 100'000'000, 1, 1, 2}, 4, model), 1);
  EXPECT_EQ(plan_gpu_count({200'000'000, 9'000, 1, 1, 2}, 4, model), 1);
  // The count grows with the scan: never fewer GPUs for a longer one.
  int last = 1;
  for (double scale = 0.01; scale <= 100; scale *= 1.5) {
    const search_size s{38000, std::uint64_t(61'500'000 * scale), 7, std::uint64_t(159'150 * scale), 1, true};
    const int n = plan_gpu_count(s, 8, model);
    EXPECT_GE(n, last) << scale;
    last = n;
  }
  EXPECT_GE(last, 6);  // the fewest within the margin of the fastest count
  // GPUs that start late gain nothing on a scan shorter than their start.
  cost_model slow = model;
  slow.gpu_context_s = 10;
  EXPECT_EQ(plan_gpu_count(x500, 4, slow), 1);
  // A DNA scan is slower per cell than a protein one: more GPUs pay off sooner.
  const search_size dna{2'000'000, 600'000'000, 400, 200'000, 1, false};
  search_size same_protein = dna;
  same_protein.protein = true;
  EXPECT_GE(plan_gpu_count(dna, 8, model), plan_gpu_count(same_protein, 8, model));
  // The device plan carries the count and says it.
  device_plan p = plan_device({38000, 1'230'000, 7, 3183, 1, true}, 2, model, 4);
  ASSERT_FALSE(p.use_cpu) << p.describe();
  EXPECT_EQ(p.gpus, 1);
  EXPECT_EQ(p.describe().rfind("one GPU", 0), 0u) << p.describe();
  p = plan_device(x500, 16, model, 4);
  EXPECT_EQ(p.gpus, 4);
  EXPECT_EQ(p.describe().rfind("4 GPUs", 0), 0u) << p.describe();
  p = plan_device(x500, 16, model);  // one GPU available
  EXPECT_EQ(p.describe().rfind("the GPU", 0), 0u) << p.describe();
  // The CPU engine's searches use no GPU at all.
  p = plan_device({3822, 13000, 1, 3, 2}, 16, model, 4);
  EXPECT_TRUE(p.use_cpu);
  EXPECT_EQ(p.gpus, 0);
}

TEST(plan, files_are_sampled_for_records_and_alphabet) {
  const auto dir = std::filesystem::temp_directory_path() / ("swat-sample-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream dna(dir / "dna.fa");
    for (int k = 0; k < 2000; ++k) dna << ">read" << k << " some description\n" << std::string(60, "ACGT"[k % 4]) << "\nACGTN\n";
    std::ofstream protein(dir / "protein.fa");
    for (int k = 0; k < 10; ++k) protein << ">p" << k << "\nMKVLAAGIVGLLLAQQEWRSTPEDLK\n";
    std::ofstream fastq(dir / "reads.fq");
    for (int k = 0; k < 3000; ++k) fastq << "@r" << k << "\n" << std::string(50, 'A') << "\n+\n@" << std::string(49, 'I') << "\n";
    std::ofstream genome(dir / "genome.fa");
    genome << ">chr\n";
    for (int k = 0; k < 5000; ++k) genome << std::string(70, 'G') << "\n";
    std::ofstream(dir / "x.fa.gz") << std::string(1000, 'z');
  }
  const file_sample dna = sample_sequences((dir / "dna.fa").string());
  EXPECT_NEAR(double(dna.records), 2000.0, 100.0);  // scaled from the first 64 KiB
  EXPECT_FALSE(dna.protein);
  EXPECT_NEAR(double(dna.residues), 2000.0 * 65, 2000.0 * 65 * 0.03);  // headers left out
  const file_sample protein = sample_sequences((dir / "protein.fa").string());
  EXPECT_EQ(protein.records, 10u);
  EXPECT_TRUE(protein.protein);
  EXPECT_EQ(protein.residues, 10u * 26);
  const file_sample fastq = sample_sequences((dir / "reads.fq").string());
  EXPECT_NEAR(double(fastq.records), 3000.0, 150.0);
  EXPECT_NEAR(double(fastq.residues), 3000.0 * 50, 3000.0 * 50 * 0.05);  // qualities left out
  EXPECT_FALSE(fastq.protein);
  const file_sample genome = sample_sequences((dir / "genome.fa").string());
  EXPECT_LE(genome.records, 6u);  // one record of 355 kB: its first 64 KiB hold one header
  EXPECT_GE(genome.records, 1u);
  EXPECT_EQ(sample_sequences((dir / "x.fa.gz").string()).records, 0u);
  {
    std::ofstream(dir / "iupac.fa") << ">d\nACGTRYKMSWBDHVNACGTRYKMSWBDHVN\n>p\nMEFILPQEFILPQACGT\n";
    std::ofstream(dir / "iupac_dna.fa") << ">d\nACGTRYKMSWBDHVNNNNACGTACGTACGTACGT\n";
  }
  EXPECT_FALSE(sample_sequences((dir / "iupac_dna.fa").string()).protein);  // IUPAC codes are DNA
  EXPECT_TRUE(sample_sequences((dir / "iupac.fa").string()).protein);       // E F I L P Q are not
  EXPECT_EQ(sample_sequences("-").records, 0u);
  // The 1.46 Mb genome of the long pair: one record (a long pair, one GPU), not 22.
  const std::string kunkelii = std::string(SWAT_SHARED_DATA) + "/dna/spiroplasma_kunkelii_CP010899.1.fa";
  if (std::filesystem::exists(kunkelii)) {
    EXPECT_EQ(sample_sequences(kunkelii).records, 1u);
    const search_size pair{1'460'000, 1'460'000, sample_sequences(kunkelii).records, sample_sequences(kunkelii).records, 1};
    EXPECT_EQ(plan_gpu_count(pair, 2), 1);
  }
  EXPECT_EQ(sample_sequences((dir / "missing.fa").string()).records, 0u);
  {  // a first record longer than the sample: the file's records counted ('>' at a line's start only)
    std::ofstream out(dir / "genomes.fa");
    out << ">g1\n";
    for (int k = 0; k < 4000; ++k) out << std::string(60, "ACGT"[k % 4]) << "\n";
    out << ">g2 a > inside\nACGT>\n>g3\n";
    for (int k = 0; k < 40000; ++k) out << std::string(59, 'A') << (k % 3 == 0 ? ">" : "C") << "\n";
    out << ">g4\nACGT";  // no line end at the end
  }
  EXPECT_EQ(sample_sequences((dir / "genomes.fa").string()).records, 4u);
  std::filesystem::remove_all(dir);
}

TEST(plan, residues_are_estimated_from_the_file_size) {
  const auto dir = std::filesystem::temp_directory_path() / ("swat-plan-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "a.fa") << ">x\n" << std::string(10000, 'A') << "\n";
    std::ofstream(dir / "a.fa.gz") << std::string(1000, 'z');
  }
  EXPECT_NEAR(double(estimated_residues((dir / "a.fa").string())), 10000.0, 300.0);
  EXPECT_NEAR(double(estimated_residues((dir / "a.fa.gz").string())), 4000.0, 200.0);  // 4× compression assumed
  EXPECT_EQ(estimated_residues("-"), 0u);
  EXPECT_EQ(estimated_residues((dir / "missing.fa").string()), 0u);
  EXPECT_EQ(estimated_residues(dir.string()), 0u);  // a directory
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace swat

// End to end on the GPU: `--device gpu` with every kernel (and a spread of sync modes) prints
// byte for byte what `--device cpu` prints. Skips when the build or the machine has no GPU.

#include <gtest/gtest.h>

#include <filesystem>

#include "support/run_process.hpp"

namespace fs = std::filesystem;
using swat::test::run_shell;
using swat::test::temp_dir;

namespace {

const std::string binary = SWAT_BINARY;
const fs::path source_dir = SWAT_SOURCE_DIR;
const fs::path shared_data = SWAT_SHARED_DATA;

// Skips the calling test unless `--device gpu` works here.
bool gpu_usable(const temp_dir& dir) {
  const std::string q = (source_dir / "data/spike_sarscov2_QHU36824.fa").string();
  const auto r = run_shell(binary + " align " + q + " " + q + " --device gpu --quiet", dir);
  return r.exit_code == 0;
}

void expect_same_as_cpu(const std::string& inputs, const std::string& gpu_args, const temp_dir& dir) {
  for (const char* fmt : {"blast6 score cigar", "sam", "json"}) {
    const std::string common = "align " + inputs + " --quiet --outfmt '" + fmt + "'";
    const auto cpu = run_shell(binary + " " + common + " --device cpu", dir);
    const auto gpu = run_shell(binary + " " + common + " --device gpu " + gpu_args, dir);
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    ASSERT_EQ(gpu.exit_code, 0) << gpu_args << ": " << gpu.err;
    EXPECT_FALSE(cpu.out.empty());
    // SAM's @PG line carries the command line; compare the records.
    auto strip_pg = [](const std::string& s) {
      std::string out;
      std::size_t pos = 0;
      while (pos < s.size()) {
        const std::size_t end = s.find('\n', pos);
        const std::string line = s.substr(pos, end == std::string::npos ? std::string::npos : end - pos + 1);
        if (line.rfind("@PG", 0) != 0) out += line;
        if (end == std::string::npos) break;
        pos = end + 1;
      }
      return out;
    };
    EXPECT_EQ(strip_pg(cpu.out), strip_pg(gpu.out)) << gpu_args << " (" << fmt << ")";
  }
}

}  // namespace

TEST(cli_gpu, every_kernel_matches_the_cpu_on_bundled_data) {
  temp_dir dir;
  if (!gpu_usable(dir)) GTEST_SKIP() << "no usable GPU engine here";
  const std::string dna = (source_dir / "data/sarscov2_spike_gene.fa").string() + " " +
                          (source_dir / "data/coronavirus_regions.fa").string();
  const std::string protein = (source_dir / "data/spike_sarscov2_QHU36824.fa").string() + " " +
                              (source_dir / "data/spike_proteins.fa").string();
  for (const std::string& args :
       {std::string(""), std::string("--kernel fast"), std::string("--kernel diagonal --sync cg"),
        std::string("--kernel coalesced --sync lastin"), std::string("--kernel coalesced --sync graph"),
        std::string("--kernel tiled --sync cpu"), std::string("--kernel tiled --sync simple --tile 16")}) {
    expect_same_as_cpu(dna, args, dir);
    expect_same_as_cpu(protein, args, dir);
  }
}

TEST(cli_gpu, sarscov2_ratg13_default_engine_matches_the_cpu) {
  temp_dir dir;
  if (!gpu_usable(dir)) GTEST_SKIP() << "no usable GPU engine here";
  const fs::path q = shared_data / "dna/sarscov2_MN908947.3.fa";
  const fs::path t = shared_data / "dna/ratg13_MN996532.2.fa";
  if (!fs::exists(q) || !fs::exists(t)) GTEST_SKIP() << "no " << shared_data;
  expect_same_as_cpu(q.string() + " " + t.string(), "", dir);
  expect_same_as_cpu(q.string() + " " + t.string(), "--kernel coalesced", dir);
}

TEST(cli_gpu, fast_kernel_refuses_a_sync_mode) {
  temp_dir dir;
  if (!gpu_usable(dir)) GTEST_SKIP() << "no usable GPU engine here";
  const std::string q = (source_dir / "data/spike_sarscov2_QHU36824.fa").string();
  const auto r = run_shell(binary + " align " + q + " " + q + " --device gpu --kernel fast --sync cg", dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--sync"), std::string::npos) << r.err;
}

// The shape planner's device choice (engine/plan.hpp): the CPU engine where it is predicted
// faster than the GPU's start and scan, the GPU otherwise; sizes estimated from the files.

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

TEST(plan, short_scans_keep_to_one_gpu) {
  const cost_model model;
  // Seven protein queries against Swiss-Prot ×50 (2.3e12 cells, ~0.9 s predicted): one GPU.
  device_plan p = plan_device({38000, 61'500'000, 7, 159'150, 1}, 16, model);
  EXPECT_TRUE(p.one_gpu) << p.describe();
  EXPECT_EQ(p.describe().rfind("one GPU", 0), 0u) << p.describe();
  // The same sizes from the files alone (no record counts before the read): one GPU too.
  EXPECT_TRUE(plan_device({38000, 61'500'000, 0, 0, 1}, 16, model).one_gpu);
  // ×500 (2.3e13 cells): every GPU.
  p = plan_device({38000, 615'000'000, 7, 1'591'500, 1}, 16, model);
  EXPECT_FALSE(p.one_gpu) << p.describe();
  EXPECT_EQ(p.describe().rfind("the GPU", 0), 0u) << p.describe();
  // The CPU engine's searches use no GPU at all.
  p = plan_device({3822, 13000, 1, 3, 2}, 16, model);
  EXPECT_TRUE(p.use_cpu);
  EXPECT_FALSE(p.one_gpu);
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

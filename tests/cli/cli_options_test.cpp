// Engine options validated whatever the device (issue 15): an unknown --kernel, a --sync the
// kernel does not take or a --tile out of range is one error line and exit 2 on the CPU too;
// GPU options that do not apply to --device cpu are a notice; parse errors name the option;
// --version lists the engines of the build.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "support/run_process.hpp"

namespace fs = std::filesystem;
using swat::test::run_shell;
using swat::test::temp_dir;
using swat::test::write_file;

namespace {

const std::string binary = SWAT_BINARY;

std::size_t lines(const std::string& s) { return std::size_t(std::count(s.begin(), s.end(), '\n')); }

class cli_options : public ::testing::Test {
 protected:
  void SetUp() override { write_file(dir / "t.fa", ">t1\nACGTACGTTTGACAGT\n"); }
  std::string align(const std::string& extra) const {
    const std::string t = (dir / "t.fa").string();
    return binary + " align " + t + " " + t + " " + extra;
  }
  void expect_usage_error(const std::string& extra, const std::vector<std::string>& parts) const {
    const auto r = run_shell(align(extra), dir);
    EXPECT_EQ(r.exit_code, 2) << extra << "\n" << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("swat-gpu: error: ", 0), 0u) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    for (const auto& p : parts) EXPECT_NE(r.err.find(p), std::string::npos) << "'" << p << "' not in: " << r.err;
  }
  temp_dir dir;
};

TEST_F(cli_options, gpu_options_are_checked_on_the_cpu_too) {
  for (const char* device : {"--device cpu", "--device auto", "--device gpu"}) {
    const std::string d = device;
    expect_usage_error(d + " --kernel foo", {"--kernel", "'foo'"});
#if SWAT_WITH_CUDA
    expect_usage_error(d + " --kernel fast --sync cg", {"--sync"});
    expect_usage_error(d + " --kernel tiled --tile 1000", {"--tile"});
#else  // a CPU-only build has no GPU engine to name
    expect_usage_error(d + " --kernel fast --sync cg", {"--kernel", "no GPU engine"});
    expect_usage_error(d + " --sync cg", {"--sync"});
#endif
    expect_usage_error(d + " --sync none", {"none"});
    expect_usage_error(d + " --tile x", {"--tile", "'x'"});
  }
  expect_usage_error("--device gpu:x", {"--device", "gpu:x"});
}

TEST_F(cli_options, gpu_options_that_do_not_apply_are_a_notice) {
#if !SWAT_WITH_CUDA
  GTEST_SKIP() << "a CPU-only build has no GPU engine to name";
#endif
  const auto plain = run_shell(align("--device cpu"), dir);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(plain.err.empty()) << plain.err;
  const auto r = run_shell(align("--device cpu --kernel coalesced --sync lastin"), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, plain.out);
  EXPECT_NE(r.err.find("notice: --kernel, --sync and --tile choose a GPU engine; --device cpu ignores them"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(run_shell(align("--device cpu --kernel coalesced --quiet"), dir).err.empty());
}

TEST_F(cli_options, parse_errors_name_the_option) {
  expect_usage_error("--device cpu --threads lots", {"--threads", "'lots'"});
  expect_usage_error("--device cpu --cpu-mem lots", {"--cpu-mem", "'lots'"});
  expect_usage_error("--device cpu --max-hits=-3", {"--max-hits"});
  expect_usage_error("--device cpu --min-score 1.5", {"--min-score", "'1.5'"});
  expect_usage_error("--device cpu --match two", {"--match", "'two'"});
  expect_usage_error("--device cpu --frobnicate", {"frobnicate"});
  expect_usage_error("--device cpu --threads", {"threads"});
  const auto r = run_shell(binary + " bench cpu --lengths 10,x", dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--lengths"), std::string::npos) << r.err;
}

TEST_F(cli_options, short_options_take_attached_values_as_getopt_does) {
  // -oFILE with a path (cxxopts without std::regex reads only letters and digits attached),
  // -t1; a value after a lone -o that starts with a dash stays the value.
  const auto plain = run_shell(align("--device cpu --quiet"), dir);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::string out = (dir / "sub.hits.tsv").string();
  const auto r = run_shell(align("--device cpu --quiet -t1 -o" + out), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(swat::test::read_file(out), plain.out);
  const auto dash = run_shell(align("--device cpu --quiet -o -"), dir);
  ASSERT_EQ(dash.exit_code, 0) << dash.err;
  EXPECT_EQ(dash.out, plain.out);
  const auto joined = run_shell(align("--device cpu --quiet -o-"), dir);
  ASSERT_EQ(joined.exit_code, 0) << joined.err;
  EXPECT_EQ(joined.out, plain.out);
}

TEST_F(cli_options, version_lists_the_engines) {
  const auto r = run_shell(binary + " --version", dir);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("swat-gpu ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("  cpu "), std::string::npos) << r.out;
#if SWAT_WITH_CUDA
  for (const char* e : {"  fast ", "  diagonal (simple) ", "  coalesced ", "  tiled "})
    EXPECT_NE(r.out.find(e), std::string::npos) << e << " not in: " << r.out;
#endif
}

}  // namespace

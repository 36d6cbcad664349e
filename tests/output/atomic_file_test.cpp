// atomic_file: commit, abort, replacement of an existing file, and error paths.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>

#include "common/error.hpp"
#include "output/atomic_file.hpp"

namespace swat::output::test {
namespace {

namespace fs = std::filesystem;

class atomic_file_test : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("swat_atomic_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(dir_);
  }
  static std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  //! Number of entries in the test directory.
  std::size_t entries() const {
    return std::size_t(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}));
  }
  fs::path dir_;
};

TEST_F(atomic_file_test, commit_publishes_the_content) {
  const std::string path = (dir_ / "out.tsv").string();
  {
    atomic_file f(path);
    EXPECT_EQ(f.temp_path().rfind(path + ".tmp." + std::to_string(::getpid()) + ".", 0), 0u)
        << f.temp_path();
    EXPECT_TRUE(fs::exists(f.temp_path()));
    f.stream() << "hello\n";
    EXPECT_FALSE(fs::exists(path));  // nothing visible before commit
    f.commit();
    EXPECT_TRUE(f.committed());
    EXPECT_FALSE(fs::exists(f.temp_path()));
  }
  EXPECT_EQ(slurp(path), "hello\n");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(atomic_file_test, commit_replaces_an_existing_file) {
  const std::string path = (dir_ / "out.tsv").string();
  std::ofstream(path) << "old content that is longer\n";
  atomic_file f(path);
  f.stream() << "new\n";
  EXPECT_EQ(slurp(path), "old content that is longer\n");
  f.commit();
  EXPECT_EQ(slurp(path), "new\n");
}

TEST_F(atomic_file_test, abort_leaves_no_trace_and_keeps_the_old_file) {
  const std::string path = (dir_ / "out.tsv").string();
  std::ofstream(path) << "old\n";
  std::string temp;
  {
    atomic_file f(path);
    temp = f.temp_path();
    f.stream() << "partial";
  }
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_EQ(slurp(path), "old\n");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(atomic_file_test, relative_path_in_current_directory) {
  const fs::path old = fs::current_path();
  fs::current_path(dir_);
  {
    atomic_file f("plain.txt");
    f.stream() << "x";
    f.commit();
  }
  fs::current_path(old);
  EXPECT_EQ(slurp(dir_ / "plain.txt"), "x");
}

//! Expects a runtime_failure whose message names path.
template <typename F>
void expect_failure_naming(const std::string& path, F&& action) {
  try {
    action();
    ADD_FAILURE() << "no error for " << path;
  } catch (const runtime_failure& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST_F(atomic_file_test, missing_directory_fails_with_the_path) {
  const std::string path = (dir_ / "no" / "such" / "out.tsv").string();
  expect_failure_naming(path, [&] { atomic_file f(path); });
}

TEST_F(atomic_file_test, directory_as_target_fails_with_the_path) {
  const std::string path = (dir_ / "sub").string();
  fs::create_directory(path);
  expect_failure_naming(path, [&] { atomic_file f(path); });
  EXPECT_EQ(entries(), 1u);
}

TEST_F(atomic_file_test, unwritable_directory_fails_with_the_path) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  const fs::path ro = dir_ / "ro";
  fs::create_directory(ro);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  const std::string path = (ro / "out.tsv").string();
  expect_failure_naming(path, [&] { atomic_file f(path); });
  fs::permissions(ro, fs::perms::owner_all);
}

TEST_F(atomic_file_test, stream_error_fails_commit_and_removes_the_temp_file) {
  const std::string path = (dir_ / "out.tsv").string();
  std::string temp;
  {
    atomic_file f(path);
    temp = f.temp_path();
    f.stream() << "data";
    f.stream().setstate(std::ios::badbit);  // what a full disk leaves behind
    expect_failure_naming(path, [&] { f.commit(); });
    EXPECT_FALSE(f.committed());
  }
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(atomic_file_test, disk_full_fails_commit) {
  // A file size limit makes write() fail with EFBIG past 4 KiB, as a full disk fails with
  // ENOSPC: the stream goes bad and commit() must refuse to publish the truncated file.
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string path = (dir_ / "big.tsv").string();
  std::string temp;
  {
    atomic_file f(path);
    temp = f.temp_path();
    f.stream() << std::string(1 << 16, 'x');
    expect_failure_naming(path, [&] { f.commit(); });
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(temp));
}

TEST_F(atomic_file_test, unwritable_location_fails_even_for_root) {
  if (!fs::exists("/proc/self")) GTEST_SKIP() << "no /proc";
  const std::string path = "/proc/swat_output_test.tsv";
  expect_failure_naming(path, [&] { atomic_file f(path); });
}

TEST_F(atomic_file_test, optional_holder_for_conditional_files) {
  std::optional<atomic_file> f;
  const std::string path = (dir_ / "o.txt").string();
  f.emplace(path);
  f->stream() << "ok";
  f->commit();
  f.reset();
  EXPECT_EQ(slurp(path), "ok");
}

}  // namespace
}  // namespace swat::output::test

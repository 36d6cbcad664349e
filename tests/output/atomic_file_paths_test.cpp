// atomic_file on odd output paths: symbolic links (followed, target replaced with its mode
// kept), read-only files, FIFOs and character devices (written in place), inherited
// descriptors (/dev/fd/N), outputs that are inputs (refused), and the signal-safe cleanup.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "common/error.hpp"
#include "output/atomic_file.hpp"
#include "support/run_process.hpp"

namespace swat::output::test {
namespace {

namespace fs = std::filesystem;
using swat::test::read_file;
using swat::test::temp_dir;
using swat::test::write_file;

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

//! Names in dir that contain ".tmp." (left-over temporary files).
std::vector<std::string> temp_files(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) names.push_back(e.path().string());
  return names;
}

void write_and_commit(const std::string& path, const std::string& text) {
  atomic_file f(path);
  f.stream() << text;
  f.commit();
}

TEST(atomic_file_paths, symlink_is_followed_and_the_target_keeps_its_mode) {
  temp_dir dir;
  write_file(dir / "real.tsv", "old\n");
  fs::permissions(dir / "real.tsv", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read,
                  fs::perm_options::replace);
  fs::create_symlink("real.tsv", dir / "link.tsv");
  {
    atomic_file f((dir / "link.tsv").string());
    EXPECT_EQ(f.mode(), output_mode::replace);
    EXPECT_EQ(f.target_path(), (dir / "real.tsv").string());
    EXPECT_EQ(mode_of(f.temp_path()), 0640u);
    f.stream() << "new\n";
    f.commit();
  }
  EXPECT_TRUE(fs::is_symlink(dir / "link.tsv"));
  EXPECT_EQ(fs::read_symlink(dir / "link.tsv"), "real.tsv");
  EXPECT_EQ(read_file(dir / "real.tsv"), "new\n");
  EXPECT_EQ(mode_of(dir / "real.tsv"), 0640u);
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

TEST(atomic_file_paths, chain_of_links_and_a_dangling_link) {
  temp_dir dir;
  fs::create_directory(dir / "sub");
  fs::create_symlink("sub/l2", dir / "l1");
  fs::create_symlink((dir / "sub" / "new.tsv").string(), dir / "sub" / "l2");  // dangling
  write_and_commit((dir / "l1").string(), "x\n");
  EXPECT_TRUE(fs::is_symlink(dir / "l1"));
  EXPECT_TRUE(fs::is_symlink(dir / "sub" / "l2"));
  EXPECT_EQ(read_file(dir / "sub" / "new.tsv"), "x\n");
}

TEST(atomic_file_paths, symlink_loop_is_an_error) {
  temp_dir dir;
  fs::create_symlink("b", dir / "a");
  fs::create_symlink("a", dir / "b");
  EXPECT_THROW(atomic_file((dir / "a").string()), runtime_failure);
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

TEST(atomic_file_paths, read_only_file_is_left_alone_or_keeps_its_mode) {
  temp_dir dir;
  const fs::path p = dir / "ro.tsv";
  write_file(p, "precious\n");
  fs::permissions(p, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read, fs::perm_options::replace);
  if (::geteuid() != 0) {
    // What the shell's `>` would refuse is refused: one clear error, the file unchanged.
    try {
      atomic_file f(p.string());
      ADD_FAILURE() << "a read-only file was opened for replacement";
    } catch (const runtime_failure& e) {
      EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_file(p), "precious\n");
  } else {
    // Root may write it (as `>` would); the replacement keeps mode 0444.
    write_and_commit(p.string(), "replaced\n");
    EXPECT_EQ(read_file(p), "replaced\n");
  }
  EXPECT_EQ(mode_of(p), 0444u);
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

TEST(atomic_file_paths, owner_is_kept_where_permitted) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a file to another owner";
  temp_dir dir;
  const fs::path p = dir / "theirs.tsv";
  write_file(p, "old\n");
  ASSERT_EQ(::chown(p.c_str(), 65534, 65534), 0);
  write_and_commit(p.string(), "new\n");
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
  EXPECT_EQ(read_file(p), "new\n");
}

TEST(atomic_file_paths, new_file_gets_the_default_mode) {
  temp_dir dir;
  const mode_t mask = ::umask(022);
  ::umask(mask);
  write_and_commit((dir / "fresh.tsv").string(), "x");
  EXPECT_EQ(mode_of(dir / "fresh.tsv"), 0666u & ~mask);
}

TEST(atomic_file_paths, fifo_is_written_in_place) {
  temp_dir dir;
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read_file(fifo); });
  {
    atomic_file f(fifo.string());
    EXPECT_EQ(f.mode(), output_mode::in_place);
    EXPECT_TRUE(f.temp_path().empty());
    f.stream() << "through the fifo\n";
    f.commit();
  }
  reader.join();
  EXPECT_EQ(got, "through the fifo\n");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

TEST(atomic_file_paths, character_device_is_written_in_place) {
  // A node of our own with /dev/null's numbers: the real /dev/null is never touched.
  temp_dir dir;
  const fs::path dev = dir / "null";
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod not permitted here";
  const int probe = ::open(dev.c_str(), O_WRONLY);
  if (probe < 0) GTEST_SKIP() << "device nodes cannot be opened here (container)";
  ::close(probe);
  write_and_commit(dev.string(), "discarded\n");
  EXPECT_TRUE(fs::is_character_file(dev));
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

TEST(atomic_file_paths, inherited_descriptor_is_written_not_reopened) {
  // An append-mode descriptor named as /dev/fd/N: the content is appended through it.
  temp_dir dir;
  const fs::path p = dir / "log.txt";
  write_file(p, "before\n");
  const int fd = ::open(p.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  for (const auto& name : {"/dev/fd/" + std::to_string(fd), "/proc/self/fd/" + std::to_string(fd)}) {
    atomic_file f(name);
    EXPECT_EQ(f.mode(), output_mode::in_place);
    f.stream() << "line\n";
    f.commit();
  }
  ::close(fd);
  EXPECT_EQ(read_file(p), "before\nline\nline\n");
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

TEST(atomic_file_paths, descriptor_open_for_reading_is_refused) {
  temp_dir dir;
  write_file(dir / "in.txt", "x");
  const int fd = ::open((dir / "in.txt").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  EXPECT_THROW(atomic_file("/dev/fd/" + std::to_string(fd)), runtime_failure);
  ::close(fd);
}

TEST(atomic_file_paths, output_equal_to_an_input_is_refused) {
  temp_dir dir;
  const std::string input = (dir / "q.fa").string();
  write_file(input, ">q\nACGT\n");
  ASSERT_EQ(::link(input.c_str(), (dir / "hard.fa").c_str()), 0);
  fs::create_symlink("q.fa", dir / "sym.fa");
  fs::create_directory(dir / "d");
  const std::string inputs[] = {(dir / "other.fa").string(), input};
  for (const auto& out : {input, (dir / "hard.fa").string(), (dir / "sym.fa").string(),
                                (dir / "d" / ".." / "q.fa").string()}) {
    try {
      atomic_file f(out, inputs);
      ADD_FAILURE() << "accepted " << out;
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(out), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("same file as input"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(read_file(input), ">q\nACGT\n");
  EXPECT_TRUE(temp_files(dir.path()).empty());
  // A different file is fine.
  atomic_file ok((dir / "out.tsv").string(), inputs);
}

TEST(atomic_file_paths, empty_path_is_a_usage_error) { EXPECT_THROW(atomic_file(""), usage_error); }

TEST(atomic_file_paths, signal_safe_cleanup_removes_pending_temp_files) {
  temp_dir dir;
  atomic_file a((dir / "a.tsv").string());
  atomic_file b((dir / "b.tsv").string());
  a.stream() << "x";
  ASSERT_EQ(temp_files(dir.path()).size(), 2u);
  remove_temp_files_signal_safe();
  EXPECT_TRUE(temp_files(dir.path()).empty());
}

TEST(atomic_file_paths, committed_files_are_not_touched_by_the_cleanup) {
  temp_dir dir;
  write_and_commit((dir / "done.tsv").string(), "kept\n");
  atomic_file pending((dir / "pending.tsv").string());
  remove_temp_files_signal_safe();
  EXPECT_EQ(read_file(dir / "done.tsv"), "kept\n");
}

}  // namespace
}  // namespace swat::output::test

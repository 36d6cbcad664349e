#include "output/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>

#include "common/error.hpp"

namespace swat::output {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  std::string msg = path + ": " + what;
  if (err) msg += std::string(": ") + std::strerror(err);
  throw runtime_failure(msg);
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

//! Creates a new, empty file with a unique name "<path>.tmp.<pid>.<random>" and returns it.
std::string create_temp(const std::string& path) {
  std::random_device seed;
  std::mt19937_64 rng((std::uint64_t(seed()) << 32) ^ seed());
  for (int attempt = 0; attempt < 16; ++attempt) {
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, ".tmp.%ld.%08llx", static_cast<long>(::getpid()),
                  static_cast<unsigned long long>(rng() & 0xFFFFFFFFull));
    std::string temp = path + suffix;
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return temp;
    }
    if (errno != EEXIST) fail(path, "cannot create temporary output file " + temp, errno);
  }
  fail(path, "cannot find an unused temporary file name", 0);
}

}  // namespace

atomic_file::atomic_file(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw runtime_failure("output path is empty");
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    fail(path_, "is a directory, cannot write output there", 0);
  temp_path_ = create_temp(path_);
  out_.open(temp_path_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out_) {
    const int err = errno;
    ::unlink(temp_path_.c_str());
    fail(path_, "cannot open temporary output file " + temp_path_, err);
  }
}

atomic_file::~atomic_file() {
  if (committed_) return;
  if (out_.is_open()) out_.close();
  ::unlink(temp_path_.c_str());
}

void atomic_file::commit() {
  if (committed_) throw std::logic_error("atomic_file::commit called twice for " + path_);
  out_.flush();
  if (!out_) fail(path_, "write failed (disk full or I/O error)", errno);
  out_.close();
  if (out_.fail()) fail(path_, "closing the temporary output file failed", errno);

  const int fd = ::open(temp_path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail(path_, "cannot reopen temporary output file " + temp_path_, errno);
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail(path_, "fsync failed", err);
  }
  if (::close(fd) != 0) fail(path_, "close failed", errno);
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0)
    fail(path_, "cannot rename " + temp_path_ + " over it", errno);
  committed_ = true;

  // Make the rename itself durable; failure here leaves a complete file, so it is not fatal.
  const int dir = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace swat::output

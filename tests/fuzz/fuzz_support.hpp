#pragma once
// Shared by the libFuzzer harnesses: fuzz input as a file (a memfd, no disk) and a hard stop
// for a broken invariant (a finding, unlike the input errors the code is expected to throw).

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace swat::fuzz {

//! The bytes as an anonymous in-memory file, named /proc/self/fd/N while it lives.
class memory_file {
 public:
  memory_file(const std::uint8_t* data, std::size_t size) : fd_(::memfd_create("fuzz", MFD_CLOEXEC)) {
    if (fd_ < 0) std::abort();
    for (std::size_t done = 0; done < size;) {
      const ssize_t w = ::write(fd_, data + done, size - done);
      if (w <= 0) std::abort();
      done += std::size_t(w);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~memory_file() { ::close(fd_); }
  memory_file(const memory_file&) = delete;
  memory_file& operator=(const memory_file&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

//! Stops the run when an invariant does not hold (libFuzzer saves the input).
inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

}  // namespace swat::fuzz

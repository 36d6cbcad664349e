#include "io/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <memory>
#include <system_error>
#include <vector>

#include "common/error.hpp"

namespace swat::io::detail {
namespace {

//! Bytes decompressed per gzread call.
constexpr unsigned chunk_bytes = 1u << 20;
//! zlib's input buffer (its default of 8 KiB costs many small reads).
constexpr unsigned gz_buffer_bytes = 1u << 18;

std::string errno_message(int err) { return std::generic_category().message(err); }

struct gz_closer {
  void operator()(gzFile_s* file) const { gzclose(file); }
};

// zlib prefixes its messages with the path it was given, "<fd:N>" after gzdopen: drop it.
std::string zlib_message(gzFile file, int* errnum) {
  std::string msg = gzerror(file, errnum);
  if (msg.starts_with("<fd:")) {
    const auto colon = msg.find(": ");
    if (colon != std::string::npos) msg.erase(0, colon + 2);
  }
  return msg;
}

[[noreturn]] void throw_read_error(const std::string& path, gzFile file, int saved_errno) {
  int errnum = Z_OK;
  std::string msg = zlib_message(file, &errnum);
  if (errnum == Z_ERRNO) msg = errno_message(saved_errno);
  if (!gzdirect(file) && errnum != Z_ERRNO)
    throw input_error(path, "corrupt or truncated gzip data (" + msg + ")");
  throw input_error(path, "cannot read: " + msg);
}

}  // namespace

text_file read_text_file(const std::string& path, const keep_reading_fn& keep_reading) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    throw input_error(
        path, err == ENOENT ? std::string("no such file") : "cannot open: " + errno_message(err));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int err = errno;
    ::close(fd);
    throw input_error(path, "cannot open: " + errno_message(err));
  }
  if (S_ISDIR(info.st_mode)) {
    ::close(fd);
    throw input_error(path, "is a directory, not a FASTA file");
  }
  gzFile raw = gzdopen(fd, "rb");
  if (raw == nullptr) {
    ::close(fd);
    throw input_error(path, "cannot open: out of memory");
  }
  const std::unique_ptr<gzFile_s, gz_closer> file(raw);
  gzbuffer(raw, gz_buffer_bytes);

  text_file out;
  if (S_ISREG(info.st_mode)) out.text.reserve(static_cast<std::size_t>(info.st_size) + 1);
  std::vector<char> chunk(chunk_bytes);
  bool first = true;
  for (;;) {
    errno = 0;
    const int got = gzread(raw, chunk.data(), chunk_bytes);
    if (got < 0) throw_read_error(path, raw, errno);
    if (got == 0) break;
    out.text.append(chunk.data(), static_cast<std::size_t>(got));
    if (first) {
      first = false;
      if (keep_reading && !keep_reading(out.text)) break;
    }
  }
  int errnum = Z_OK;
  zlib_message(raw, &errnum);
  if (errnum != Z_OK) throw_read_error(path, raw, errno);
  out.compressed = gzdirect(raw) == 0;
  return out;
}

}  // namespace swat::io::detail

// Input files chunk by chunk: plain read() or zlib inflate over gzip members, with a specific
// error for data after the last member (trailing garbage) and for truncated or corrupt data.

#include "io/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#include "common/error.hpp"

namespace swat::io::detail {
namespace {

//! Compressed bytes read per read() call.
constexpr std::size_t input_buffer_bytes = std::size_t(1) << 18;

std::string errno_message(int err) { return std::generic_category().message(err); }

}  // namespace

struct input_file::state {
  std::string path;
  int fd = -1;
  bool regular = false;
  bool gzip = false;
  // gzip only:
  z_stream zs{};
  bool zs_ready = false;
  bool in_member = false;        //!< inside a member (its end not reached yet)
  bool finished = false;         //!< no more members
  std::vector<unsigned char> in;  //!< compressed input buffer; zs.next_in points into it
  std::uint64_t file_bytes = 0;   //!< size of a regular file (buffers are no larger)
  bool input_eof = false;
  std::uint64_t consumed = 0;     //!< compressed bytes before in[0]

  [[noreturn]] void fail(const std::string& what) const { throw input_error(path, what); }

  //! read() with EINTR retried; throws on errors.
  std::size_t raw_read(void* out, std::size_t n) {
    for (;;) {
      const ssize_t got = ::read(fd, out, n);
      if (got >= 0) return std::size_t(got);
      if (errno != EINTR) fail("cannot read: " + errno_message(errno));
    }
  }

  //! Moves unread input to the front of the buffer and reads until it holds at least `want`
  //! bytes or the file ends. Returns the bytes available.
  std::size_t refill(std::size_t want) {
    const std::size_t offset = std::size_t(zs.next_in - in.data());
    if (zs.avail_in > 0 && offset > 0) std::memmove(in.data(), zs.next_in, zs.avail_in);
    consumed += offset;
    zs.next_in = in.data();
    while (zs.avail_in < want && !input_eof) {
      const std::size_t got = raw_read(in.data() + zs.avail_in, in.size() - zs.avail_in);
      if (got == 0) input_eof = true;
      zs.avail_in += unsigned(got);
    }
    return zs.avail_in;
  }

  //! At the end of a member: another member follows, all-zero padding ends the data, anything
  //! else is trailing garbage.
  void next_member() {
    if (refill(2) == 0) {
      finished = true;
      return;
    }
    if (zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
      if (inflateReset(&zs) != Z_OK) fail("corrupt or truncated gzip data (cannot restart zlib)");
      in_member = true;
      return;
    }
    const std::uint64_t at = consumed + std::uint64_t(zs.next_in - in.data());
    for (;;) {
      if (std::any_of(zs.next_in, zs.next_in + zs.avail_in, [](unsigned char c) { return c != 0; }))
        fail("trailing garbage after the gzip data (at compressed byte " + std::to_string(at) +
             "): the file is gzip followed by data that is not gzip");
      zs.next_in += zs.avail_in;
      zs.avail_in = 0;
      if (refill(1) == 0) break;
    }
    finished = true;  // zero padding (tape blocks), accepted as gzip itself does
  }

  std::size_t inflate_some(char* out, std::size_t n) {
    zs.next_out = reinterpret_cast<Bytef*>(out);
    zs.avail_out = unsigned(std::min<std::size_t>(n, 1u << 30));
    const unsigned wanted = zs.avail_out;
    while (zs.avail_out == wanted && !finished) {
      if (!in_member) {
        next_member();
        continue;
      }
      if (zs.avail_in == 0 && refill(1) == 0) fail("corrupt or truncated gzip data (unexpected end of file)");
      const int rc = inflate(&zs, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        in_member = false;
      } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && zs.avail_in == 0)) {
        fail(std::string("corrupt or truncated gzip data (") + (zs.msg ? zs.msg : "zlib error " + std::to_string(rc)) +
             ")");
      }
    }
    return wanted - zs.avail_out;
  }

  void start() {
    unsigned char magic[2] = {0, 0};
    std::size_t have = 0;
    while (have < 2) {
      const std::size_t got = raw_read(magic + have, 2 - have);
      if (got == 0) break;
      have += got;
    }
    gzip = have == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    const std::size_t buffer = regular ? std::size_t(std::min<std::uint64_t>(input_buffer_bytes, file_bytes + 16))
                                       : input_buffer_bytes;
    if (in.size() < std::max<std::size_t>(buffer, 2)) in.resize(std::max<std::size_t>(buffer, 2));
    std::memcpy(in.data(), magic, have);
    zs.next_in = in.data();
    zs.avail_in = unsigned(have);
    consumed = 0;
    input_eof = false;
    finished = false;
    in_member = gzip;
    if (!gzip) return;
    if (!zs_ready) {
      if (inflateInit2(&zs, 15 + 16) != Z_OK) fail("cannot read: zlib initialisation failed");
      zs_ready = true;
    } else if (inflateReset(&zs) != Z_OK) {
      fail("cannot read: zlib reset failed");
    }
  }
};

input_file::input_file(const std::string& path) : s_(std::make_unique<state>()) {
  s_->path = path;
  // "-" is standard input (a pipe is kept in memory for the second pass, see read_fasta).
  s_->fd = path == "-" ? ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (s_->fd < 0) {
    const int err = errno;
    throw input_error(path, err == ENOENT ? std::string("no such file") : "cannot open: " + errno_message(err));
  }
  struct stat info {};
  if (::fstat(s_->fd, &info) != 0) s_->fail("cannot open: " + errno_message(errno));
  if (S_ISDIR(info.st_mode)) s_->fail("is a directory, not a FASTA file");
  s_->regular = S_ISREG(info.st_mode);
  s_->file_bytes = s_->regular && info.st_size > 0 ? std::uint64_t(info.st_size) : 0;
  s_->start();
}

input_file::~input_file() {
  if (s_->zs_ready) inflateEnd(&s_->zs);
  if (s_->fd >= 0) ::close(s_->fd);
}

std::size_t input_file::read(char* out, std::size_t n) {
  if (n == 0) return 0;
  if (s_->gzip) return s_->inflate_some(out, n);
  // Plain: first the bytes read while looking for the gzip magic, then the file.
  if (s_->zs.avail_in > 0) {
    const std::size_t k = std::min<std::size_t>(n, s_->zs.avail_in);
    std::memcpy(out, s_->zs.next_in, k);
    s_->zs.next_in += k;
    s_->zs.avail_in -= unsigned(k);
    return k;
  }
  return s_->raw_read(out, n);
}

bool input_file::rewindable() const { return s_->regular; }

void input_file::rewind() {
  if (!s_->regular || ::lseek(s_->fd, 0, SEEK_SET) != 0) s_->fail("cannot read the file a second time");
  s_->start();
}

bool input_file::compressed() const { return s_->gzip; }

std::uint64_t input_file::size_hint() const { return s_->file_bytes; }

}  // namespace swat::io::detail

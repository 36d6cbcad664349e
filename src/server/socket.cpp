// Unix domain sockets and whole frames on them (socket.hpp).

#include "server/socket.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/error.hpp"

namespace swat::server {
namespace {

std::string errno_text() { return std::strerror(errno); }

sockaddr_un address_of(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty()) throw usage_error("--socket: the path is empty");
  if (path.size() >= sizeof addr.sun_path)
    throw usage_error("--socket: " + path + " is longer than a socket path may be (" +
                      std::to_string(sizeof addr.sun_path - 1) + " bytes)");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

unique_fd new_socket() {
  unique_fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) throw runtime_failure("cannot create a socket: " + errno_text());
  return fd;
}

//! 0: connected; else the errno of connect().
int try_connect(int fd, const sockaddr_un& addr) {
  for (;;) {
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) return 0;
    if (errno != EINTR) return errno;
  }
}

void check_directory(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) throw usage_error("--socket: cannot use the directory " + dir.string() + ": " + errno_text());
  if (!S_ISDIR(st.st_mode)) throw usage_error("--socket: " + dir.string() + " is not a directory");
  if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    throw usage_error("--socket: the directory " + dir.string() +
                      " must belong to you and be writable by you only (e.g. $XDG_RUNTIME_DIR or a folder of mode 0700)");
}

void send_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t sent = ::send(fd, data, n, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      throw peer_gone("the other side went away: " + errno_text());
    }
    data += sent;
    n -= std::size_t(sent);
  }
}

//! Reads exactly n bytes; false when the peer closed before the first byte (and at_start).
bool receive_all(int fd, char* data, std::size_t n, bool at_start) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::recv(fd, data + got, n - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw peer_gone("the other side went away: " + errno_text());
    }
    if (r == 0) {
      if (at_start && got == 0) return false;
      throw peer_gone("the other side closed in the middle of a frame");
    }
    got += std::size_t(r);
  }
  return true;
}

}  // namespace

unique_fd& unique_fd::operator=(unique_fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

unique_fd::~unique_fd() {
  if (fd_ >= 0) ::close(fd_);
}

unique_fd listen_on(const std::string& path) {
  const sockaddr_un addr = address_of(path);
  check_directory(path);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) throw usage_error("--socket: " + path + " exists and is not a socket");
    unique_fd probe = new_socket();
    const int err = try_connect(probe.get(), addr);
    if (err == 0) throw usage_error("--socket: a server already answers on " + path + " (stop it first)");
    if (err != ECONNREFUSED && err != ENOENT)
      throw runtime_failure("--socket: cannot tell whether a server answers on " + path + ": " + std::strerror(err));
    ::unlink(path.c_str());  // stale: nobody answers
  }
  unique_fd fd = new_socket();
  const mode_t old_mask = ::umask(0177);  // the socket file is created 0600
  const int bound = ::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  const int bind_errno = errno;
  ::umask(old_mask);
  if (bound != 0) throw runtime_failure("--socket: cannot bind " + path + ": " + std::strerror(bind_errno));
  if (::chmod(path.c_str(), 0600) != 0 || ::listen(fd.get(), 64) != 0) {
    const std::string why = errno_text();
    ::unlink(path.c_str());
    throw runtime_failure("--socket: cannot listen on " + path + ": " + why);
  }
  return fd;
}

unique_fd connect_to(const std::string& path) {
  const sockaddr_un addr = address_of(path);
  unique_fd fd = new_socket();
  if (const int err = try_connect(fd.get(), addr); err != 0)
    throw runtime_failure("no swat-gpu server answers on " + path + " (" + std::strerror(err) +
                          "; start one with: swat-gpu serve DB.fa --socket " + path + ")");
  return fd;
}

bool peer_is_same_user(int fd) {
  ucred cred{};
  socklen_t size = sizeof cred;
  return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) == 0 && cred.uid == ::geteuid();
}

void send_message(int fd, const message& m) {
  const std::string frame = encode(m);
  send_all(fd, frame.data(), frame.size());
}

std::optional<message> receive_message(int fd, std::size_t max_payload) {
  char header[frame_header_bytes];
  if (!receive_all(fd, header, sizeof header, true)) return std::nullopt;
  const frame_header h = decode_header(std::string_view(header, sizeof header));
  if (h.version != protocol_version)
    throw version_error(h.version, "protocol version " + std::to_string(h.version) +
                                       " is not supported: this swat-gpu (" SWAT_VERSION_STRING ") speaks version " +
                                       std::to_string(protocol_version));
  if (h.length > max_payload)
    throw oversized_error("a request of " + std::to_string(h.length) + " bytes is larger than this server takes (" +
                          std::to_string(max_payload) + " bytes; serve --max-request)");
  std::string payload(h.length, '\0');
  receive_all(fd, payload.data(), payload.size(), false);
  return decode_payload(h.type, payload);
}

}  // namespace swat::server

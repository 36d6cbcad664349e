#pragma once
// Unix domain sockets of `swat-gpu serve` and `align --server`: the listening socket (mode 0600,
// in a directory its user owns and only they may write, a stale socket file reused only when
// nobody answers on it), connections, and whole frames sent and received on them (protocol.hpp).

#include <cstddef>
#include <optional>
#include <string>

#include "server/protocol.hpp"

namespace swat::server {

//! A file descriptor closed with the object.
class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) : fd_(fd) {}
  unique_fd(unique_fd&& other) noexcept : fd_(other.release()) {}
  unique_fd& operator=(unique_fd&& other) noexcept;
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd();
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

//! Binds and listens on path: the socket's directory must belong to this user and be writable by
//! nobody else (usage_error otherwise); an existing socket file is replaced only when connecting
//! to it is refused (a live server is never displaced: usage_error); anything else at path is
//! refused. The socket file gets mode 0600.
unique_fd listen_on(const std::string& path);

//! Connects to a server's socket; throws runtime_failure naming path when nobody answers.
unique_fd connect_to(const std::string& path);

//! The peer of a connected socket runs as this process's user.
bool peer_is_same_user(int fd);

//! A peer that sent a frame of another protocol version.
class version_error : public protocol_error {
 public:
  version_error(std::uint16_t version, std::string what) : protocol_error(std::move(what)), version_(version) {}
  std::uint16_t version() const { return version_; }

 private:
  std::uint16_t version_;
};

//! A frame longer than the receiver takes.
class oversized_error : public protocol_error {
 public:
  using protocol_error::protocol_error;
};

//! The peer went away (closed, reset, timed out) in the middle of a frame or while we sent one.
class peer_gone : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! Sends a whole frame (no SIGPIPE); throws peer_gone when the peer has gone.
void send_message(int fd, const message& m);
//! Receives one frame whose payload is at most max_payload bytes. nullopt: the peer closed
//! before a new frame began. Throws protocol_error (bad magic, malformed payload),
//! version_error, oversized_error (nothing of the payload is read), peer_gone.
std::optional<message> receive_message(int fd, std::size_t max_payload);

}  // namespace swat::server

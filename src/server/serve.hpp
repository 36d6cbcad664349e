#pragma once
// `swat-gpu serve`: answers searches of one session (pipeline/search_session.hpp) on a Unix
// domain socket until SIGINT, SIGTERM or SIGHUP. Every connection has its own thread; searches
// queue for the engine. A client that goes away, a malformed or oversized frame, a bad request
// each end that connection only (with an error frame where the client is still there).

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/search_session.hpp"
#include "server/socket.hpp"

namespace swat::server {

//! How `swat-gpu serve` runs.
struct serve_options {
  std::string socket_path;
  //! Largest request payload taken (bytes); a larger one is refused unread.
  std::size_t max_request_bytes = std::size_t(1) << 30;
  //! Connections answered at once; more wait in the socket's backlog.
  unsigned max_clients = 64;
  //! The server's options as given (name without dashes, value): a request's command line is
  //! completed with those it does not give itself (docs/serve.md).
  std::vector<std::pair<std::string, std::string>> options;
  //! Seconds a connection may stay silent in the middle of a request.
  int idle_seconds = 60;
};

//! The listening socket of a server (socket.hpp: listen_on), opened before the database is read:
//! from then on SIGINT, SIGTERM and SIGHUP remove it and end the process by that signal, and
//! clients that connect wait until serve() answers them. The destructor removes the socket file
//! unless serve() took it.
class server_socket {
 public:
  explicit server_socket(const std::string& path);
  ~server_socket();
  server_socket(const server_socket&) = delete;
  server_socket& operator=(const server_socket&) = delete;
  //! The listening descriptor, handed to serve().
  unique_fd take() { return std::move(fd_); }

 private:
  std::string path_;
  unique_fd fd_;
};

//! Answers on socket until one of SIGINT, SIGTERM, SIGHUP arrives; then removes the socket and
//! ends the process by that signal. notice: the server's notices and warnings (refused requests).
[[noreturn]] void serve(pipeline::search_session& session, const serve_options& options, server_socket& socket,
                        const pipeline::notice_fn& notice);

//! Answers one connection (hello, welcome, request, answer) on fd; never throws. Public for tests.
void answer_connection(pipeline::search_session& session, const serve_options& options, int fd,
                       const pipeline::notice_fn& notice);

}  // namespace swat::server

// `swat-gpu serve` (serve.hpp): the accept loop, the signals that end it, and one connection's
// conversation (protocol.hpp, docs/serve.md).

#include "server/serve.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <sstream>
#include <thread>

#include "common/error.hpp"
#include "output/output.hpp"
#include "server/request.hpp"
#include "server/socket.hpp"

namespace swat::server {
namespace {

// The self-pipe the signal handler writes the signal number into once the loop runs, and the
// socket's path for the handler to remove (async-signal-safe: unlink on a static buffer).
int stop_pipe[2] = {-1, -1};
char socket_path_for_signal[sizeof(sockaddr_un::sun_path) + 1];
volatile std::sig_atomic_t serving = 0;

extern "C" void on_stop_signal(int sig) {
  const int saved = errno;
  ::unlink(socket_path_for_signal);
  if (!serving) {  // still reading the database: end now, by the signal
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
  const unsigned char s = static_cast<unsigned char>(sig);
  [[maybe_unused]] const ssize_t n = ::write(stop_pipe[1], &s, 1);
  errno = saved;
}

void install_stop_handlers() {
  if (::pipe2(stop_pipe, O_CLOEXEC) != 0) throw runtime_failure(std::string("cannot create a pipe: ") + std::strerror(errno));
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup & co.
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(sig, &action, nullptr);
  }
}

//! The peer closed its end (it went away while its request waited): nothing to answer.
bool peer_closed(int fd) {
  pollfd p{fd, POLLRDHUP, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

void send_error(int fd, int code, const std::string& what) {
  try {
    send_message(fd, message{message_type::error, {}}.set("code", std::to_string(code)).set("message", what));
  } catch (const peer_gone&) {
  }
}

message welcome_of(const pipeline::search_session& session, const serve_options& options) {
  std::vector<std::string> words;
  for (const auto& [name, value] : options.options) {
    words.push_back(name);
    words.push_back(value);
  }
  std::error_code ec;
  const std::filesystem::path db_abs = std::filesystem::absolute(session.options().db_path, ec);
  message m{message_type::welcome, {}};
  m.set("version", SWAT_VERSION_STRING)
      .set("database", session.options().db_path)
      .set("database_path", ec ? session.options().db_path : db_abs.string())
      .set("alphabet", std::string(io::to_string(session.options().alphabet)))
      .set("database_alphabet", std::string(to_string(session.targets().alphabet)))
      .set("scheme", pipeline::describe_scheme(session.scheme()))
      .set("engine", session.engine_name())
      .set("device", session.engine_device())
      .set("options", join_words(words))
      .set("max_request", std::to_string(options.max_request_bytes));
  return m;
}

void converse(pipeline::search_session& session, const serve_options& options, int fd) {
  std::optional<message> hello = receive_message(fd, 1 << 16);
  if (!hello) return;
  if (hello->type != message_type::hello) throw protocol_error("the first message must be hello");
  send_message(fd, welcome_of(session, options));
  std::optional<message> request = receive_message(fd, options.max_request_bytes);
  if (!request) return;
  if (request->type != message_type::request) throw protocol_error("expected a request");
  search_request parsed = parse_request(*request);
  const pipeline::checked_search checked = session.check(parsed.options, parsed.queries);
  if (const std::string line = pipeline::stats_notice(checked.plan); !line.empty())
    send_message(fd, message{message_type::notice, {}}.set("line", "notice: " + line));
  if (peer_closed(fd)) return;
  std::ostringstream out;
  const pipeline::session_answer answer = session.answer(checked, parsed.queries, out);
  const std::string bytes = std::move(out).str();
  constexpr std::size_t chunk = std::size_t(1) << 22;
  for (std::size_t at = 0; at < bytes.size(); at += chunk)
    send_message(fd, message{message_type::output, {}}.set("bytes", bytes.substr(at, chunk)));
  send_message(fd, message{message_type::done, {}}.set("timing", answer.timing));
}

}  // namespace

void answer_connection(pipeline::search_session& session, const serve_options& options, int fd,
                       const pipeline::notice_fn& notice) {
  const auto refuse = [&](int code, const std::string& what, bool warn) {
    if (warn) notice("warning: refused a request: " + what);
    send_error(fd, code, what);
  };
  try {
    if (!peer_is_same_user(fd)) return refuse(2, "this server answers its own user only", true);
    timeval idle{options.idle_seconds, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof idle);
    converse(session, options, fd);
  } catch (const peer_gone&) {
  } catch (const version_error& e) {
    refuse(2, e.what(), true);
  } catch (const oversized_error& e) {
    refuse(2, e.what(), true);
  } catch (const protocol_error& e) {
    refuse(2, std::string("malformed request: ") + e.what(), true);
  } catch (const usage_error& e) {
    refuse(2, e.what(), false);
  } catch (const input_error& e) {
    refuse(2, e.what(), false);
  } catch (const std::bad_alloc&) {
    refuse(1, "out of host memory", true);
  } catch (const std::exception& e) {
    refuse(1, e.what(), true);
  }
}

server_socket::server_socket(const std::string& path) : path_(path) {
  if (path.size() >= sizeof socket_path_for_signal) throw usage_error("--socket: " + path + " is too long for a socket path");
  fd_ = listen_on(path);
  std::strcpy(socket_path_for_signal, path.c_str());
  try {
    install_stop_handlers();
  } catch (...) {
    ::unlink(path.c_str());
    throw;
  }
}

server_socket::~server_socket() {
  if (fd_.get() >= 0) ::unlink(path_.c_str());
}

void serve(pipeline::search_session& session, const serve_options& options, server_socket& socket,
           const pipeline::notice_fn& notice) {
  const unique_fd listener = socket.take();
  serving = 1;
  std::atomic<unsigned> clients{0};
  for (;;) {
    pollfd fds[2] = {{listener.get(), POLLIN, 0}, {stop_pipe[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      ::unlink(options.socket_path.c_str());
      throw runtime_failure(std::string("serve: poll failed: ") + std::strerror(errno));
    }
    if (fds[1].revents & POLLIN) break;
    if (!(fds[0].revents & POLLIN)) continue;
    if (clients.load() >= options.max_clients) {  // the rest wait in the backlog
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    const int fd = ::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    ++clients;
    try {
      std::thread([&session, &options, &notice, &clients, fd] {
        answer_connection(session, options, fd, notice);
        ::close(fd);
        --clients;
      }).detach();
    } catch (const std::system_error&) {  // no thread to spare: this client is refused
      send_error(fd, 1, "the server has no thread to spare; try again");
      ::close(fd);
      --clients;
    }
  }
  unsigned char sig = SIGTERM;
  if (::read(stop_pipe[0], &sig, 1) != 1) sig = SIGTERM;
  ::unlink(options.socket_path.c_str());
  notice("notice: stopped by " + std::string(sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM") +
         "; removed " + options.socket_path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
  std::_Exit(128 + sig);
}

}  // namespace swat::server

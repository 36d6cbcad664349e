// `swat-gpu align --server` (client.hpp): hello, welcome, request, then notices, output and done.

#include "server/client.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "common/error.hpp"
#include "output/atomic_file.hpp"
#include "server/request.hpp"
#include "server/socket.hpp"

namespace swat::server {
namespace {

using clock_type = std::chrono::steady_clock;

welcome_info welcome_of(const message& m) {
  welcome_info w;
  w.version = m.get("version");
  w.database = m.get("database");
  w.database_path = m.get("database_path");
  w.alphabet = io::parse_alphabet_request(m.get("alphabet"));
  w.database_alphabet = m.get("database_alphabet");
  w.scheme = m.get("scheme");
  w.engine = m.get("engine");
  w.device = m.get("device");
  const std::vector<std::string> words = split_words(m.get("options"));
  if (words.size() % 2 != 0) throw protocol_error("the server's options are not name-value pairs");
  for (std::size_t k = 0; k < words.size(); k += 2) w.options.emplace_back(words[k], words[k + 1]);
  w.max_request_bytes = std::size_t(std::stoull(m.get("max_request")));
  return w;
}

//! The next message from the server; an error message becomes the exception of its code.
message receive_from_server(int fd, const std::string& socket_path) {
  std::optional<message> m;
  try {
    m = receive_message(fd, std::numeric_limits<std::uint32_t>::max());
  } catch (const peer_gone& e) {
    throw runtime_failure("the server on " + socket_path + " went away: " + e.what());
  } catch (const version_error& e) {
    throw runtime_failure("the server on " + socket_path + " speaks protocol version " + std::to_string(e.version()) +
                          "; this swat-gpu (" SWAT_VERSION_STRING ") speaks version " + std::to_string(protocol_version));
  } catch (const protocol_error& e) {
    throw runtime_failure("the server on " + socket_path + " sent a malformed answer: " + e.what());
  }
  if (!m) throw runtime_failure("the server on " + socket_path + " closed the connection without an answer");
  if (m->type == message_type::error) {
    const std::string& what = m->get("message");
    if (m->get("code") == "2") throw usage_error(what);
    throw runtime_failure(what);
  }
  return *m;
}

void send_to_server(int fd, const message& m, const std::string& socket_path) {
  try {
    send_message(fd, m);
  } catch (const peer_gone&) {
    // The server may have refused the request while it was sent (too large): its error says why.
    receive_from_server(fd, socket_path);
    throw runtime_failure("the server on " + socket_path + " went away while the request was sent");
  }
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

}  // namespace

void run_client(const client_options& options, std::ostream& stdout_stream, const pipeline::notice_fn& notice) {
  const auto start = clock_type::now();
  const auto since_start = [&start] { return std::chrono::duration<double>(clock_type::now() - start).count(); };
  const unique_fd fd = connect_to(options.socket_path);
  send_to_server(fd.get(), message{message_type::hello, {}}, options.socket_path);
  const message welcome_message = receive_from_server(fd.get(), options.socket_path);
  if (welcome_message.type != message_type::welcome)
    throw runtime_failure("the server on " + options.socket_path + " did not answer hello with welcome");
  const welcome_info welcome = welcome_of(welcome_message);
  pipeline::align_options request = options.request;
  request.command_line = options.prepare(welcome);
  const double connect_s = since_start();

  // As align: the output is prepared before the query is read (an input is never an output).
  std::optional<output::atomic_file> out_file;
  if (!request.out_path.empty() && request.out_path != "-") {
    const std::string inputs[] = {request.query_path, welcome.database_path, request.scoring.matrix_file};
    out_file.emplace(request.out_path, inputs);
  }
  const io::warning_fn warn = [&](const std::string& w) { notice("warning: " + w); };
  const sequence_set queries =
      io::read_fasta(request.query_path, options.alphabet.value_or(welcome.alphabet), warn, request.engine.options.cpu_threads);
  if (!request.scoring.matrix_file.empty()) {  // the server reads it from its own folder
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(request.scoring.matrix_file, ec);
    if (!ec) request.scoring.matrix_file = absolute.string();
  }
  const double read_s = since_start() - connect_s;
  const message m = make_request(request, queries);
  if (encode(m).size() - frame_header_bytes > welcome.max_request_bytes)
    throw usage_error("the request (" + std::to_string(encode(m).size()) + " bytes) is larger than the server on " +
                      options.socket_path + " takes (" + std::to_string(welcome.max_request_bytes) +
                      " bytes; serve --max-request)");
  send_to_server(fd.get(), m, options.socket_path);
  const auto sent = clock_type::now();

  std::ostream& out = out_file ? out_file->stream() : stdout_stream;
  std::string server_timing;
  for (;;) {
    const message answer = receive_from_server(fd.get(), options.socket_path);
    if (answer.type == message_type::notice) {
      notice(answer.get("line"));
    } else if (answer.type == message_type::output) {
      const std::string& bytes = answer.get("bytes");
      out.write(bytes.data(), std::streamsize(bytes.size()));
    } else if (answer.type == message_type::done) {
      server_timing = answer.get("timing");
      break;
    } else {
      throw runtime_failure("the server on " + options.socket_path + " sent an unexpected message");
    }
  }
  const double answered_s = std::chrono::duration<double>(clock_type::now() - sent).count();
  const auto written = clock_type::now();
  if (!out_file) {
    stdout_stream.flush();
    if (!stdout_stream) throw runtime_failure("error writing to standard output");
  } else {
    out_file->commit();
  }
  if (request.timing) {
    request.timing("timing: " + server_timing);
    request.timing("timing: client: connect " + seconds(connect_s) + " | read " + seconds(read_s) + " | request " +
                   seconds(answered_s) + " | write " +
                   seconds(std::chrono::duration<double>(clock_type::now() - written).count()) + " | total " +
                   seconds(since_start()) + " | server " + welcome.engine + " engine on " + welcome.device);
  }
}

}  // namespace swat::server

#pragma once
// `swat-gpu align QUERY --server PATH`: reads the queries, sends them to a warm server
// (serve.hpp) and writes its answer as `swat-gpu align QUERY DB` would (stdout, or -o written
// atomically). Errors of the server come back with their exit codes (2: usage or input).

#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "io/fasta.hpp"
#include "pipeline/align_pipeline.hpp"

namespace swat::server {

//! What a server says about itself before a request (the welcome message).
struct welcome_info {
  std::string version;            //!< swat-gpu version of the server
  std::string database;           //!< DB as given to serve
  std::string database_path;      //!< DB as an absolute path
  io::alphabet_request alphabet;  //!< the server's --alphabet
  std::string database_alphabet;  //!< "dna" | "protein"
  std::string scheme;             //!< describe_scheme of its scheme
  std::string engine;             //!< its engine's name
  std::string device;             //!< where it runs
  //! The server's options as given (name without dashes, value).
  std::vector<std::pair<std::string, std::string>> options;
  std::size_t max_request_bytes = 0;  //!< largest request payload it takes
};

//! A request from the command line.
struct client_options {
  std::string socket_path;
  //! The search's options (query_path, out_path, output, report and scoring options, quiet);
  //! command_line is set from prepare's answer.
  pipeline::align_options request;
  //! --alphabet when the client gave it (else the server's is used to read the queries).
  std::optional<io::alphabet_request> alphabet;
  //! Called with the welcome before the query is read: throws usage_error for client options
  //! that contradict the server's and returns the command line the output records.
  std::function<std::string(const welcome_info&)> prepare;
};

//! Runs the request. notice: the server's notices and the reader's warnings (shown unless
//! --quiet); request.timing, when set, receives the server's stages and the client's.
void run_client(const client_options& options, std::ostream& stdout_stream, const pipeline::notice_fn& notice);

}  // namespace swat::server

// `swat-gpu serve DB.fa --socket PATH [options]`: command-line parsing (cxxopts) into a search
// session (pipeline/search_session.hpp) and the serve loop (server/serve.hpp).

#include <cxxopts.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/search_options.hpp"
#include "common/error.hpp"
#include "pipeline/search_session.hpp"
#include "server/serve.hpp"

namespace swat::cli {

const char* const serve_help_text = R"(
A warm server: the database is read, packed and (for a GPU engine) uploaded once, the engine
started once, and every `swat-gpu align QUERY.fa --server PATH [output options]` is answered
from it, byte for byte what `swat-gpu align QUERY.fa DB.fa` with the same options writes. The
scoring and engine options are the server's; a client that gives a different scheme is refused.
The socket is created with mode 0600 in a directory that must be yours and writable by you only
(e.g. $XDG_RUNTIME_DIR); a stale socket file is replaced, a live server never. SIGINT, SIGTERM
and SIGHUP stop the server and remove the socket. The protocol is described in docs/serve.md.
)";

int serve_command(const engine_registry& engines, const std::vector<std::string>& args) {
  const auto start = std::chrono::steady_clock::now();
  cxxopts::Options opts("swat-gpu serve", "Keep a database and an engine ready and answer `align --server` requests");
  opts.positional_help("DB.fa --socket PATH").show_positional_help();
  // clang-format off
  opts.add_options("Input")
    ("db", "database FASTA (.gz ok) or a prepared database's PREFIX (swat-gpu makedb)", cxxopts::value<std::string>());
  add_search_options(opts, engines);
  opts.add_options("Server")
    ("socket", "Unix domain socket to answer on", cxxopts::value<std::string>())
    ("max-request", "largest request taken, MiB", cxxopts::value<std::string>()->default_value("1024"))
    ("quiet", "no notices (the ready line included)")
    ("h,help", "this help");
  // clang-format on
  opts.parse_positional({"db"});
  const auto argv = argv_of("swat-gpu serve", args);
  const auto r = opts.parse(int(argv.size()), argv.data());
  if (r.count("help")) {
    std::cout << opts.help() << serve_help_text;
    return 0;
  }
  reject_unmatched(r.unmatched());
  if (!r.count("db")) throw usage_error("serve needs DB (try: swat-gpu serve --help)");
  if (!r.count("socket")) throw usage_error("serve needs --socket PATH (try: swat-gpu serve --help)");

  pipeline::session_options s;
  s.db_path = r["db"].as<std::string>();
  if (s.db_path == "-") throw usage_error("serve reads DB from a file, not standard input");
  s.alphabet = io::parse_alphabet_request(r["alphabet"].as<std::string>());
  s.scoring = scoring_of(r);
  s.engine = engine_of(r, engines);
  server::serve_options o;
  o.socket_path = r["socket"].as<std::string>();
  o.max_request_bytes = std::size_t(integer_value("--max-request", r["max-request"].as<std::string>(), 1, 1 << 20)) << 20;
  o.options = given_search_options(r);
  const bool quiet = r.count("quiet") > 0;
  const pipeline::notice_fn notice = [quiet](const std::string& line) {
    if (!quiet) std::cerr << "swat-gpu: " << line << "\n";
  };

  server::server_socket socket(o.socket_path);  // refuses a live server before the database is read
  pipeline::search_session session(s, notice);
  std::uint64_t residues = 0;
  for (const auto& t : session.targets().records) residues += t.residues.size();
  char ready[64];
  std::snprintf(ready, sizeof ready, "%.3f s",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  notice("notice: ready after " + std::string(ready) + ": " + s.db_path + " (" +
         std::to_string(session.targets().records.size()) + " sequences, " + std::to_string(residues) + " residues, " +
         std::string(to_string(session.targets().alphabet)) + ", " + pipeline::describe_scheme(session.scheme()) +
         ") on the " + session.engine_name() + " engine, " + session.engine_device() + "; answering on " +
         o.socket_path);
  server::serve(session, o, socket, notice);
}

}  // namespace swat::cli

// swat-gpu: entry point. Dispatches subcommands and turns exceptions into one line on stderr
// and an exit code: 2 for bad usage or input, 1 for runtime failures. SIGINT, SIGTERM and
// SIGHUP remove the temporary output file and then end the process by the same signal (the
// shell sees 130, 143, 129 as for any other tool). A SIGBUS on a prepared database's volume that
// shrank while mapped is a one-line error (exit 2) that removes it too.

#include <cxxopts.hpp>

#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/bench_registry.hpp"
#include "cli/commands.hpp"
#include "common/error.hpp"
#include "common/host_pages.hpp"
#include "engine/registry.hpp"
#include "output/atomic_file.hpp"

namespace {

constexpr const char* top_help =
    "swat-gpu " SWAT_VERSION_STRING " - GPU Smith-Waterman local alignment (Gotoh affine gaps)\n"
    "\n"
    "Usage:\n"
    "  swat-gpu align QUERY.fa DB.fa [options]   align every query against every target\n"
    "                                            (DB: FASTA, or a prepared database's PREFIX)\n"
    "  swat-gpu makedb DB.fa PREFIX [options]    write a prepared database that align and\n"
    "                                            serve map instead of parsing FASTA\n"
    "  swat-gpu serve DB.fa --socket PATH [options]\n"
    "                                            keep DB and the engine ready; answer requests\n"
    "  swat-gpu align QUERY.fa --server PATH [output options]\n"
    "                                            ask a warm server: the same output as align\n"
    "                                            (docs/serve.md)\n"
    "  swat-gpu bench WHAT [options]              benchmarks (swat-gpu bench --help)\n"
    "  swat-gpu --version | --help\n"
    "\n"
    "Run 'swat-gpu align --help' for scoring, output formats and conventions.\n"
    "Exit codes: 0 success, 1 runtime failure, 2 bad usage or input.\n";

// Async-signal-safe: unlink() on names in static buffers, then the default action (SA_RESETHAND)
// ends the process once the re-raised signal is delivered.
extern "C" void remove_temp_and_reraise(int sig) {
  swat::output::stop_new_files_signal_safe();
  swat::output::remove_temp_files_signal_safe();
  std::raise(sig);
}

void install_signal_handlers() {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup & co.
    struct sigaction action {};
    action.sa_handler = remove_temp_and_reraise;
    action.sa_flags = SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    ::sigaction(sig, &action, nullptr);
  }
}

// Async-signal-safe: what a SIGBUS on a shrunk database volume (common/host_pages.hpp) leaves.
void remove_temp_files() noexcept {
  swat::output::stop_new_files_signal_safe();
  swat::output::remove_temp_files_signal_safe();
}

int fail(int code, const std::string& what) {
  std::fprintf(stderr, "swat-gpu: error: %s\n", what.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  install_signal_handlers();
  swat::host_pages::install_bus_error_handler(remove_temp_files);
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string command;
  try {
    if (args.empty()) {
      std::fputs(top_help, stderr);
      return 2;
    }
    command = args.front();
    args.erase(args.begin());
    if (command == "--version" || command == "version") {
      std::fputs(swat::cli::version_text(swat::built_engines()).c_str(), stdout);
      return 0;
    }
    if (command == "--help" || command == "-h" || command == "help") {
      std::fputs(top_help, stdout);
      return 0;
    }
    if (command == "align") {
      const int code = swat::cli::align_command(swat::built_engines(), args);
      if (swat::cli::gpu_engine_left()) {
        // The output is complete (files committed, standard output flushed here): the process
        // ends without tearing the CUDA runtime down (0.05-0.15 s); the driver reclaims the GPU.
        std::cout.flush();
        if (std::fflush(nullptr) != 0 || !std::cout) return fail(1, "error writing to standard output");
        std::_Exit(code);
      }
      return code;
    }
    if (command == "makedb") return swat::cli::makedb_command(args);
    if (command == "serve") return swat::cli::serve_command(swat::built_engines(), args);
    if (command == "bench") return swat::cli::bench_command(swat::cli::built_benches(), args);
    return fail(2, "unknown command '" + command + "' (try: swat-gpu --help)");
  } catch (const swat::usage_error& e) {
    return fail(2, e.what());
  } catch (const swat::input_error& e) {
    return fail(2, e.what());
  } catch (const cxxopts::exceptions::exception& e) {
    // Parse errors name the option, e.g. "Option ‘frob’ does not exist".
    return fail(2, std::string(e.what()) + " (try: swat-gpu " + command + " --help)");
  } catch (const std::bad_alloc&) {
    return fail(1, "out of host memory");
  } catch (const std::exception& e) {
    return fail(1, e.what());
  }
}

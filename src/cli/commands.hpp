#pragma once
// Subcommands of the swat-gpu executable. Each returns the process exit code and throws
// swat::usage_error / input_error (exit 2) or other exceptions (exit 1) for main to report.

#include <string>
#include <vector>

namespace swat {
class engine_registry;
}

namespace swat::cli {

class bench_registry;

//! `swat-gpu align QUERY DB [options]` with the engines of registry.
int align_command(const engine_registry& engines, const std::vector<std::string>& args);
//! `swat-gpu serve DB --socket PATH [options]`: answers `align --server` until a signal ends it.
int serve_command(const engine_registry& engines, const std::vector<std::string>& args);
//! `swat-gpu makedb DB.fa PREFIX [options]`: writes a prepared database (pipeline/database.hpp).
int makedb_command(const std::vector<std::string>& args);
//! True once an align command has left its GPU engine for the process's exit (main then ends
//! the process without tearing the CUDA runtime down, after flushing its output).
bool gpu_engine_left();
//! `swat-gpu --version`: the version and the engines this build has.
std::string version_text(const engine_registry& engines);
//! `swat-gpu bench WHAT [options]`: the benchmark called WHAT in registry.
int bench_command(const bench_registry& registry, const std::vector<std::string>& args);

}  // namespace swat::cli

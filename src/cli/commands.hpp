#pragma once
// Subcommands of the swat-gpu executable. Each returns the process exit code and throws
// swat::usage_error / input_error (exit 2) or other exceptions (exit 1) for main to report.

#include <string>
#include <vector>

namespace swat::cli {

class bench_registry;

//! `swat-gpu align QUERY DB [options]`.
int align_command(const std::vector<std::string>& args);
//! `swat-gpu bench WHAT [options]`: the benchmark called WHAT in registry.
int bench_command(const bench_registry& registry, const std::vector<std::string>& args);

}  // namespace swat::cli

// `swat-gpu bench WHAT [options]`: dispatch through the benchmark registry (bench_registry.hpp);
// every benchmark, its options and its main live under bench/.

#include <iostream>

#include "cli/bench_registry.hpp"
#include "cli/commands.hpp"
#include "common/error.hpp"

namespace swat::cli {
namespace {

std::string bench_help(const bench_registry& registry) {
  std::string help = "Usage: swat-gpu bench WHAT [options]   (swat-gpu bench WHAT --help for its options)\n";
  for (const bench_entry& e : registry.entries()) {
    std::string line = "  " + e.name;
    line.resize(std::max<std::size_t>(line.size() + 1, 12), ' ');
    line += e.summary;
    if (e.needs_gpu) line += "   [GPU]";
    help += line + "\n";
  }
  return help;
}

std::string names(const bench_registry& registry) {
  std::string s;
  for (const bench_entry& e : registry.entries()) s += (s.empty() ? "" : ", ") + e.name;
  return s;
}

}  // namespace

int bench_command(const bench_registry& registry, const std::vector<std::string>& args) {
  if (args.empty() || args.front() == "--help" || args.front() == "-h") {
    std::cout << bench_help(registry);
    return args.empty() ? 2 : 0;
  }
  const bench_entry* entry = registry.find(args.front());
  if (entry == nullptr) {
    bool gpu = false;
    for (const bench_entry& e : registry.entries()) gpu = gpu || e.needs_gpu;
    throw usage_error("unknown benchmark '" + args.front() + "' (valid: " + names(registry) +
                      (gpu ? ")" : "; the GPU benchmarks need a CUDA build)"));
  }
  return entry->main(std::vector<std::string>(args.begin() + 1, args.end()));
}

}  // namespace swat::cli

#pragma once
// Test support for the command-line tests that compare `--device gpu` with `--device cpu`
// (cli_gpu, cli_gpu_shapes): whether the GPU engine works here, and outputs compared without the
// lines that name the command line or the engine.

#include <filesystem>
#include <sstream>
#include <string>

#include "support/run_process.hpp"

namespace swat::test {

//! True when `swat-gpu align --device gpu` works here (build with CUDA and a usable device);
//! the callers skip otherwise.
inline bool gpu_usable(const temp_dir& dir) {
  const std::string q = (std::filesystem::path(SWAT_SOURCE_DIR) / "data/spike_sarscov2_QHU36824.fa").string();
  const auto r = run_shell(std::string(SWAT_BINARY) + " align " + q + " " + q + " --device gpu --quiet", dir);
  return r.exit_code == 0;
}

//! The text without the lines that carry the command line or the engine (SAM @PG, pair's
//! "# Commandline:", JSON's metadata line).
inline std::string without_pg(const std::string& s) {
  std::istringstream in(s);
  std::string out, line;
  while (std::getline(in, line))
    if (line.rfind("@PG", 0) != 0 && line.rfind("# Commandline:", 0) != 0 && line.rfind("  \"metadata\":", 0) != 0)
      out += line + "\n";
  return out;
}

//! "" when the lines of a (the CPU's) and b (the GPU's) are equal, else the first line that
//! differs in each (a whole-output diff of megabytes would drown the log).
inline std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream ia(a), ib(b);
  std::string la, lb;
  for (int n = 1;; ++n) {
    const bool ga = bool(std::getline(ia, la)), gb = bool(std::getline(ib, lb));
    if (!ga && !gb) return "";
    if (!ga || !gb || la != lb)
      return "line " + std::to_string(n) + ":\n  cpu: " + (ga ? la : "<end>") + "\n  gpu: " + (gb ? lb : "<end>");
  }
}

}  // namespace swat::test

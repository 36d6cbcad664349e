// swat_bench_barrier: Xiao & Feng 2010 §5.4 barrier microbenchmark (see barrier_bench.hpp).
// Usage: swat_bench_barrier [--rounds N] [--threads T] [--bpsm 1,4] [--blocks 8,132,...]
//                           [--modes simple,flag,...] [--repeats R] [--csv FILE] [--commit SHA]

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "cuda/sync/barrier/barrier_bench.hpp"

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) parts.push_back(item);
  }
  return parts;
}

int to_int(const std::string& s) {
  try {
    std::size_t used = 0;
    const int v = std::stoi(s, &used);
    if (used == s.size()) return v;
  } catch (const std::exception&) {
  }
  throw swat::usage_error("not an integer: '" + s + "'");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    swat::barrier::barrier_bench_options opt;
    std::string csv_path;
    std::string command = argv[0];
    for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
    opt.command = command;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (i + 1 >= argc) throw swat::usage_error("missing value after " + arg);
      const std::string value = argv[++i];
      if (arg == "--rounds") {
        opt.rounds = to_int(value);
      } else if (arg == "--threads") {
        opt.block_threads = to_int(value);
      } else if (arg == "--repeats") {
        opt.repeats = to_int(value);
      } else if (arg == "--bpsm") {
        opt.blocks_per_sm.clear();
        for (const auto& v : split(value)) opt.blocks_per_sm.push_back(to_int(v));
      } else if (arg == "--blocks") {
        for (const auto& v : split(value)) opt.block_counts.push_back(to_int(v));
      } else if (arg == "--modes") {
        for (const auto& v : split(value)) opt.modes.push_back(swat::parse_sync_mode(v));
      } else if (arg == "--csv") {
        csv_path = value;
      } else if (arg == "--commit") {
        opt.git_commit = value;
      } else {
        throw swat::usage_error("unknown option " + arg);
      }
    }
    std::ofstream csv;
    if (!csv_path.empty()) {
      csv.open(csv_path);
      if (!csv) throw swat::runtime_failure("cannot write " + csv_path);
    }
    swat::barrier::run_barrier_bench(opt, std::cout, csv_path.empty() ? nullptr : &csv);
    return 0;
  } catch (const swat::usage_error& e) {
    std::cerr << "swat_bench_barrier: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "swat_bench_barrier: " << e.what() << "\n";
    return 1;
  }
}

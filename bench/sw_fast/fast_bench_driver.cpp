// Stand-alone driver of swat::fast::bench_main until `swat-gpu bench fast` is wired.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cuda/engines/fast/fast_bench.hpp"

int main(int argc, char** argv) {
  try {
    return swat::fast::bench_main(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fast_bench_driver: %s\n", e.what());
    return 1;
  }
}

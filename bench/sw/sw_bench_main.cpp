// swat-bench-sw [options]: the paper-engine benchmark without the CLI (sw_bench.hpp).

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "cuda/engines/paper/sw_bench.hpp"

int main(int argc, char** argv) {
  try {
    return swat::paper::bench_main(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const swat::usage_error& e) {
    std::cerr << "swat-bench-sw: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "swat-bench-sw: " << e.what() << '\n';
    return 1;
  }
}

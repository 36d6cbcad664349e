// Stand-alone runner of `swat-gpu bench sort` (cuda/studies/sort/sort_bench.hpp).

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "cuda/studies/sort/sort_bench.hpp"

int main(int argc, char** argv) {
  try {
    return swat::sort::bench_main(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const swat::usage_error& e) {
    std::cerr << "swat_sort_bench: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "swat_sort_bench: " << e.what() << "\n";
    return 1;
  }
}

// Stand-alone runner of `swat-gpu bench fft` (cuda/studies/fft/fft_bench.hpp).

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "cuda/studies/fft/fft_bench.hpp"

int main(int argc, char** argv) {
  try {
    return swat::fft::bench_main(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const swat::usage_error& e) {
    std::cerr << "swat_fft_bench: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "swat_fft_bench: " << e.what() << "\n";
    return 1;
  }
}

#include "pipeline/gpu_benchmarks.hpp"

#include "common/error.hpp"
#include "pipeline/gpu_engines.hpp"

namespace swat::pipeline {

int run_gpu_benchmark(const std::string& what, const std::vector<std::string>& args) {
  (void)args;
  if (what != "barrier" && what != "sw" && what != "fft" && what != "sort")
    throw usage_error("unknown benchmark '" + what + "' (valid: cpu, barrier, sw, fft, sort)");
#if !SWAT_WITH_CUDA
  throw usage_error("bench " + what + " needs a GPU build (configured with SWAT_WITH_CUDA=OFF)");
#else
  if (cuda_device_count() == 0) throw usage_error("bench " + what + " needs a CUDA device; none found");
  throw usage_error("bench " + what + " is not part of this version yet");
#endif
}

}  // namespace swat::pipeline

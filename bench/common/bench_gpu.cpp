// The device of the GPU benchmarks (see bench_gpu.hpp).

#include "bench/common/bench_gpu.hpp"

#include <string>

#include "common/error.hpp"

namespace swat::bench {

cuda::device_context require_device(std::string_view what) {
  if (cuda::device_count() == 0) throw usage_error(std::string(what) + " needs a CUDA device; none found");
  return cuda::device_context(0);
}

}  // namespace swat::bench

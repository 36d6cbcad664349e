#include "pipeline/gpu_engines.hpp"

#include "common/error.hpp"

#if SWAT_WITH_CUDA
#include <cuda_runtime_api.h>

#if SWAT_HAVE_SW
#include "cuda/engines/paper/gpu_engine.hpp"
#endif
#if SWAT_HAVE_SW_FAST
#include "cuda/engines/fast/fast_engine.hpp"
#include "cuda/engines/fast/fast_progress.hpp"
#endif
#endif

namespace swat::pipeline {

int cuda_device_count() {
#if SWAT_WITH_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
#else
  return 0;
#endif
}

std::unique_ptr<engine> make_gpu_engine(const gpu_engine_options& options, std::string& why) {
#if SWAT_WITH_CUDA
  if (cuda_device_count() == 0) {
    why = "no CUDA device found";
    return nullptr;
  }
#if SWAT_HAVE_SW_FAST
  // The register-tiled engine is the default (--kernel auto); the paper engines are opt-in, and
  // naming a --sync mode without a kernel picks the paper engines, which use it.
  if (options.kernel == "fast" && options.sync != "auto")
    throw usage_error("--kernel fast synchronises strips with ready flags; --sync applies to "
                      "--kernel diagonal|coalesced|tiled");
  if (options.kernel == "fast" || (options.kernel == "auto" && options.sync == "auto"))
    return fast::make_fast_engine(options, fast::stderr_progress(options.quiet));
#endif
#if SWAT_HAVE_SW
  return paper::make_gpu_engine(options);
#else
  (void)options;
  why = "this build has no GPU alignment engine";
  return nullptr;
#endif
#else
  (void)options;
  why = "this build has no CUDA support (configured with SWAT_WITH_CUDA=OFF)";
  return nullptr;
#endif
}

}  // namespace swat::pipeline

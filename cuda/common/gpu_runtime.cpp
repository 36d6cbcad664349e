// Registration of the CUDA runtime with the engine registry: the probe of visible devices that
// decides, before a GPU engine is built, whether --device auto falls back to the CPU.

#include "cuda/common/device_context.hpp"
#include "engine/registry.hpp"

namespace swat::cuda {

//! Sets registry's device probe to device_count() (listed by cuda/common/CMakeLists.txt).
void register_gpu_runtime(engine_registry& registry) { registry.set_device_count(&device_count); }

}  // namespace swat::cuda

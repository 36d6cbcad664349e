#pragma once
// What the GPU benchmarks share: the device they run on (an error naming the benchmark when
// there is none) and its one-line description for tables and CSV provenance.

#include <string_view>

#include "cuda/common/device_context.hpp"

namespace swat::bench {

//! Device 0 bound for the calling thread; throws usage_error "<what> needs a CUDA device; none
//! found" on a machine without one.
cuda::device_context require_device(std::string_view what);

}  // namespace swat::bench

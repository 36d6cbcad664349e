#pragma once
// CUDA error type and device probe, visible to plain C++ code (no CUDA types in this header).
// The checking macros that need cudaError_t live in cuda_check.cuh; the device an owner is bound
// to, with its properties, in device_context.hpp.

#include <string>

#include "common/error.hpp"

namespace swat {

//! A CUDA runtime call or kernel launch failed; what() names the call site (file:line).
class cuda_error : public runtime_failure {
 public:
  using runtime_failure::runtime_failure;
};

namespace cuda {

//! True when the CUDA runtime sees at least one usable device (tests GTEST_SKIP otherwise).
//! Never throws: a missing driver or library counts as "no device" (device_context.cu).
bool device_available() noexcept;

}  // namespace cuda
}  // namespace swat

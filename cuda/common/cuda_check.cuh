#pragma once
// Checking macros for CUDA runtime calls. Every CUDA call goes through SWAT_CUDA_CHECK, every
// kernel launch is followed by SWAT_CUDA_CHECK_LAUNCH(); both throw swat::cuda_error with
// file:line (library code never exits).

#include <cuda_runtime.h>

#include <string>

#include "cuda/common/cuda_check.hpp"

namespace swat::cuda {

//! Throws swat::cuda_error "file:line: expr: cudaErrorName: description".
[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* expr, const char* file,
                                          int line) {
  throw cuda_error(std::string(file) + ":" + std::to_string(line) + ": " + expr + ": " +
                   cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

}  // namespace swat::cuda

//! Evaluates a cudaError_t expression once and throws swat::cuda_error unless it is cudaSuccess.
#define SWAT_CUDA_CHECK(expr)                                                       \
  do {                                                                              \
    const cudaError_t swat_cuda_status_ = (expr);                                   \
    if (swat_cuda_status_ != cudaSuccess)                                           \
      ::swat::cuda::throw_cuda_error(swat_cuda_status_, #expr, __FILE__, __LINE__); \
  } while (0)

//! Checks the last launch (configuration errors); does not synchronise.
#define SWAT_CUDA_CHECK_LAUNCH() SWAT_CUDA_CHECK(cudaGetLastError())

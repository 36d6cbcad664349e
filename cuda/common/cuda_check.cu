// Device probe helpers (see cuda_check.hpp).

#include "cuda/common/cuda_check.cuh"

namespace swat::cuda {

bool device_available() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no driver" error
    return false;
  }
  return count > 0;
}

int device_sm_count() {
  int device = 0;
  SWAT_CUDA_CHECK(cudaGetDevice(&device));
  int sms = 0;
  SWAT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

std::string device_name() {
  int device = 0;
  SWAT_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  SWAT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

}  // namespace swat::cuda

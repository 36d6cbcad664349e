// Device probe helpers (see cuda_check.hpp).

#include "cuda/common/cuda_check.cuh"

namespace swat::cuda {

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

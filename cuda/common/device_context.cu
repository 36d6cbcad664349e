// Device probe and properties (see device_context.hpp).

#include "cuda/common/device_context.hpp"


#include "cuda/common/cuda_check.cuh"

namespace swat::cuda {

int device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return count;
}

int sm_count_of(int id) noexcept {
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, id) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return sms;
}

bool peer_access(int from, int to) noexcept {
  if (from == to) return true;
  int can = 0;
  if (cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return can != 0;
}

bool device_available() noexcept { return device_count() > 0; }

device_context::device_context(int id) : id_(id) {
  make_current();
  SWAT_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, id));
  SWAT_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz_, cudaDevAttrClockRate, id));
  int optin = 0;
  SWAT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, id));
  shared_per_block_ = static_cast<std::size_t>(optin);
  int cooperative = 0;
  SWAT_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, id));
  cooperative_ = cooperative != 0;
  cudaDeviceProp prop{};
  SWAT_CUDA_CHECK(cudaGetDeviceProperties(&prop, id));
  name_ = prop.name;
}

std::string device_context::describe() const { return name_ + " (" + std::to_string(sm_count_) + " SMs)"; }

void device_context::make_current() const { SWAT_CUDA_CHECK(cudaSetDevice(id_)); }

std::int64_t device_context::free_bytes() const {
  make_current();
  std::size_t free_bytes = 0, total_bytes = 0;
  SWAT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return static_cast<std::int64_t>(free_bytes);
}

}  // namespace swat::cuda

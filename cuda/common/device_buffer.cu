// The grow-only device allocation (see device_buffer.hpp).

#include "cuda/common/device_buffer.hpp"

#include "cuda/common/cuda_check.cuh"

namespace swat::cuda {

device_buffer::~device_buffer() { release(); }

void device_buffer::release() noexcept {
  if (data_ != nullptr) (void)cudaFree(data_);
  data_ = nullptr;
  bytes_ = 0;
}

bool device_buffer::reserve(std::size_t bytes) {
  if (bytes <= bytes_) return false;
  if (data_ != nullptr) SWAT_CUDA_CHECK(cudaFree(data_));
  data_ = nullptr;
  bytes_ = 0;
  SWAT_CUDA_CHECK(cudaMalloc(&data_, bytes));
  bytes_ = bytes;
  return true;
}

}  // namespace swat::cuda

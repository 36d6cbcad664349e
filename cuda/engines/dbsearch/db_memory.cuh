#pragma once
// Page-locked host memory of the database search that only grows (freed before it grows, so the
// peak is the largest request); device memory is cuda::device_buffer (cuda/common).

#include <cstddef>

#include "cuda/common/cuda_check.cuh"

namespace swat::dbsearch {

//! Page-locked host memory that only grows.
class pinned_memory {
 public:
  pinned_memory() = default;
  pinned_memory(const pinned_memory&) = delete;
  pinned_memory& operator=(const pinned_memory&) = delete;
  ~pinned_memory() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  void reserve(std::size_t bytes) {
    if (bytes <= bytes_) return;
    if (ptr_) SWAT_CUDA_CHECK(cudaFreeHost(ptr_));
    ptr_ = nullptr;
    bytes_ = 0;
    SWAT_CUDA_CHECK(cudaHostAlloc(&ptr_, bytes, cudaHostAllocDefault));
    bytes_ = bytes;
  }
  template <typename T>
  T* as(std::size_t offset_bytes = 0) const {
    return reinterpret_cast<T*>(static_cast<char*>(ptr_) + offset_bytes);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace swat::dbsearch

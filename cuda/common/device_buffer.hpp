#pragma once
// The one grow-only device allocation and the layout helper that packs several arrays into it
// (plain C++: device pointers are plain pointers). Allocations happen on the device current for
// the calling thread: the owner's device_context::make_current() comes first.
//
//   buffer_layout layout;                     // offsets aligned to 256 bytes
//   const std::size_t off_query = layout.add(m), off_flags = layout.add(4 * strips);
//   buffer.reserve(layout.bytes());
//   std::uint32_t* d_flags = buffer.as<std::uint32_t>(off_flags);

#include <cstddef>
#include <utility>

namespace swat::cuda {

//! x rounded up to a multiple of to (to > 0).
constexpr std::size_t align_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

//! A device allocation that only grows; freed before it grows, so the peak is the largest
//! request. Movable, not copyable.
class device_buffer {
 public:
  device_buffer() = default;
  ~device_buffer();
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  //! Frees the allocation now (errors ignored: also runs in destructors).
  void release() noexcept;

  //! At least bytes of device memory; returns true when it reallocated (earlier contents and
  //! pointers are gone). Throws swat::cuda_error.
  bool reserve(std::size_t bytes);
  //! Bytes held now.
  std::size_t bytes() const { return bytes_; }
  //! The allocation (null before the first reserve).
  void* data() const { return data_; }
  //! The buffer at offset_bytes as T*.
  template <typename T>
  T* as(std::size_t offset_bytes = 0) const {
    return reinterpret_cast<T*>(static_cast<char*>(data_) + offset_bytes);
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

//! Offsets of consecutive arrays in one buffer, each starting on an alignment boundary.
class buffer_layout {
 public:
  //! alignment: bytes every array starts on (default 256).
  explicit buffer_layout(std::size_t alignment = 256) : alignment_(alignment) {}
  //! Appends an array of bytes bytes; returns its offset.
  std::size_t add(std::size_t bytes) {
    const std::size_t offset = end_;
    end_ = align_up(end_ + bytes, alignment_);
    return offset;
  }
  //! Bytes of the whole layout (what the buffer must hold).
  std::size_t bytes() const { return end_; }

 private:
  std::size_t alignment_;
  std::size_t end_ = 0;
};

}  // namespace swat::cuda

#pragma once
// The GPU that an engine, a study or a kernel launch is bound to: its ordinal and the properties
// the launches need, read once. Plain C++ (no CUDA types). Every CUDA call of an owner runs on
// id(): make_current() before the calls of a host thread, so that an instance can be bound to
// any GPU (multi-GPU: one context per device). Nothing below asks for the "current" device.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace swat::cuda {

//! Number of visible CUDA devices; 0 without a driver or a device (never throws).
int device_count() noexcept;

//! Streaming multiprocessors of device id, read without starting its context; 0 on any error
//! (never throws).
int sm_count_of(int id) noexcept;

//! True when device `from` can read and write device `to`'s memory (peer access; a device and
//! itself: true). False on any error (never throws).
bool peer_access(int from, int to) noexcept;

//! One device and its properties.
class device_context {
 public:
  //! Binds to device id (0 ≤ id < device_count()), makes it current for the calling thread and
  //! reads its properties. Throws swat::cuda_error.
  explicit device_context(int id);

  //! CUDA device ordinal.
  int id() const { return id_; }
  //! Streaming multiprocessors.
  int sm_count() const { return sm_count_; }
  //! Nominal SM clock (kHz): clock64() cycles per millisecond.
  int clock_khz() const { return clock_khz_; }
  //! Shared memory one block may have, static and dynamic together, once a kernel opts in
  //! (bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin).
  std::size_t shared_per_block() const { return shared_per_block_; }
  //! True when the device supports cudaLaunchCooperativeKernel.
  bool cooperative_launch() const { return cooperative_; }
  //! Marketing name, e.g. "NVIDIA H100 80GB HBM3".
  const std::string& name() const { return name_; }
  //! "NAME (N SMs)" for tables and CSV provenance.
  std::string describe() const;

  //! Makes this device current for the calling host thread (cudaSetDevice).
  void make_current() const;
  //! Free device memory now (bytes, cudaMemGetInfo); makes the device current.
  std::int64_t free_bytes() const;

 private:
  int id_ = 0;
  int sm_count_ = 0;
  int clock_khz_ = 0;
  std::size_t shared_per_block_ = 0;
  bool cooperative_ = false;
  std::string name_;
};

}  // namespace swat::cuda

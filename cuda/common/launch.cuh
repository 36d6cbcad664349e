#pragma once
// The one cooperative-launch helper. Every kernel that waits on other blocks (grid barriers,
// grid collectives) starts through launch_cooperative(): it checks device support, caps the
// grid at occupancy × SMs for that kernel, block size and dynamic shared memory, and refuses
// (swat::cuda_error, never a hang) a grid that cannot be co-resident. Co-residency is what makes
// a software grid barrier deadlock-free (Xiao & Feng 2010 §5; Shen 2013). The device is the
// caller's device_context (current for the calling thread): no helper asks for the current one.

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <tuple>
#include <utility>

#include "cuda/common/cuda_check.cuh"
#include "cuda/common/device_context.hpp"

namespace swat::cuda {

//! Raises the kernel's dynamic shared memory limit when dyn_smem_bytes is above it (by default
//! 48 KB less the kernel's static shared memory). Throws swat::cuda_error when the device
//! refuses (more than it gives one block, with the static part); the refusal is cleared.
template <typename... Params>
void set_dynamic_smem(void (*kernel)(Params...), std::size_t dyn_smem_bytes) {
  cudaFuncAttributes attr{};
  SWAT_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  if (dyn_smem_bytes <= std::size_t(attr.maxDynamicSharedSizeBytes)) return;
  const cudaError_t raised =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dyn_smem_bytes));
  if (raised == cudaErrorInvalidValue) {
    (void)cudaGetLastError();  // not sticky: clear it
    throw cuda_error("a kernel asked for " + std::to_string(dyn_smem_bytes) +
                     " B of dynamic shared memory, more than the device gives one block");
  }
  SWAT_CUDA_CHECK(raised);
}

//! Blocks per SM the kernel can keep resident (occupancy API) for this block size and smem: 0
//! when the block cannot launch (too many threads, or static + dynamic shared memory above
//! block_smem_limit, the device's opt-in limit per block: device_context::shared_per_block()).
//! Decided before any CUDA call that the device would refuse, so no API error is left behind
//! (compute-sanitizer reports those).
template <typename... Params>
int max_blocks_per_sm(void (*kernel)(Params...), int block_threads, std::size_t dyn_smem_bytes,
                      std::size_t block_smem_limit) {
  cudaFuncAttributes attr{};
  SWAT_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  if (block_threads < 1 || block_threads > attr.maxThreadsPerBlock) return 0;  // cannot launch
  if (dyn_smem_bytes + attr.sharedSizeBytes > block_smem_limit) return 0;      // more than a block may have
  set_dynamic_smem(kernel, dyn_smem_bytes);
  int per_sm = 0;
  SWAT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads,
                                                                dyn_smem_bytes));
  return per_sm;
}

//! Largest grid (blocks) that is guaranteed co-resident on dev: occupancy per SM × its SMs.
template <typename... Params>
int max_coresident_blocks(const device_context& dev, void (*kernel)(Params...), int block_threads,
                          std::size_t dyn_smem_bytes) {
  return max_blocks_per_sm(kernel, block_threads, dyn_smem_bytes, dev.shared_per_block()) * dev.sm_count();
}

//! Launches kernel<<<grid, block, dyn_smem, stream>>>(args...) cooperatively on dev. Throws
//! swat::cuda_error when the device lacks cooperative launch, when the grid is empty, or when
//! grid blocks exceed max_coresident_blocks() (message names the grid and the cap); checks the
//! launch. Arguments are converted to the kernel's parameter types before the launch.
template <typename... Params, typename... Args>
void launch_cooperative(const device_context& dev, void (*kernel)(Params...), dim3 grid, dim3 block,
                        std::size_t dyn_smem_bytes, cudaStream_t stream, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "launch_cooperative: argument count");
  if (!dev.cooperative_launch())
    throw cuda_error("cooperative launch is not supported on " + dev.name());
  const long long blocks = 1LL * grid.x * grid.y * grid.z;
  const int threads = static_cast<int>(block.x * block.y * block.z);
  const int per_sm = max_blocks_per_sm(kernel, threads, dyn_smem_bytes, dev.shared_per_block());
  const int sms = dev.sm_count();
  const long long cap = 1LL * per_sm * sms;
  if (blocks < 1 || blocks > cap) {
    throw cuda_error(
        "cooperative launch refused: grid of " + std::to_string(blocks) + " blocks x " +
        std::to_string(threads) + " threads (" + std::to_string(dyn_smem_bytes) +
        " B dynamic shared memory) cannot be co-resident; the cap is " + std::to_string(cap) +
        " blocks (" + std::to_string(per_sm) + " per SM x " + std::to_string(sms) + " SMs)");
  }
  std::tuple<Params...> params(std::forward<Args>(args)...);
  std::apply(
      [&](auto&... p) {
        void* ptrs[sizeof...(Params) + 1] = {static_cast<void*>(&p)...};
        SWAT_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), grid,
                                                    block, ptrs, dyn_smem_bytes, stream));
      },
      params);
  SWAT_CUDA_CHECK_LAUNCH();
}

}  // namespace swat::cuda

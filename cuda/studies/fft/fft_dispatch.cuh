#pragma once
// Runtime sync mode -> fft_kernel<M, real_t> instantiation (fft_dispatch.inl, instantiated per
// precision in fft_dispatch_f32.cu / fft_dispatch_f64.cu so they build in parallel).

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/common/device_context.hpp"
#include "cuda/sync/barrier/barrier_handle.hpp"
#include "cuda/studies/fft/fft_kernel.cuh"

namespace swat::fft::detail {

//! Cooperative launch on dev of passes [first, first + count) of a persistent mode (or none) on
//! blocks blocks. Throws usage_error for a launch-based mode, swat::cuda_error otherwise.
template <typename real_t>
void launch_persistent(const cuda::device_context& dev, sync_mode mode, const barrier::barrier_handle& h, const fft_args<real_t>& args,
                       int first, int count, int blocks, std::size_t smem_bytes, cudaStream_t stream);

//! Plain launch of one pass (launch-based modes: the kernel boundary is the barrier).
template <typename real_t>
void launch_pass(const fft_args<real_t>& args, int pass, int blocks, std::size_t smem_bytes,
                 cudaStream_t stream);

//! Co-resident cap (blocks) on dev of the persistent kernel of mode for this shared memory.
template <typename real_t>
int persistent_max_blocks(const cuda::device_context& dev, sync_mode mode, std::size_t smem_bytes);

}  // namespace swat::fft::detail

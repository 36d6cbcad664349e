#pragma once
// Runtime sync mode -> sort_kernel<M, word_t> instantiation (sort_dispatch.inl, instantiated
// per word type in sort_dispatch_u32.cu / sort_dispatch_u64.cu so they build in parallel).

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/common/device_context.hpp"
#include "cuda/sync/barrier/barrier_handle.hpp"
#include "cuda/studies/sort/sort_kernel.cuh"

namespace swat::sort::detail {

//! Cooperative launch on dev of steps [first, first + count) of a persistent mode (or none) on
//! blocks blocks. Throws usage_error for a launch-based mode, swat::cuda_error otherwise.
template <typename word_t>
void launch_persistent(const cuda::device_context& dev, sync_mode mode, const barrier::barrier_handle& h, const sort_args<word_t>& args,
                       int first, int count, int blocks, std::size_t smem_bytes, cudaStream_t stream);

//! Plain launch of one step (launch-based modes: the kernel boundary is the barrier).
template <typename word_t>
void launch_step(const sort_args<word_t>& args, int step, int blocks, std::size_t smem_bytes,
                 cudaStream_t stream);

//! Co-resident cap (blocks) on dev of the persistent kernel of mode for this shared memory.
template <typename word_t>
int persistent_max_blocks(const cuda::device_context& dev, sync_mode mode, std::size_t smem_bytes);

}  // namespace swat::sort::detail

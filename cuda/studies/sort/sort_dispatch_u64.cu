// Persistent and per-step bitonic sort kernels for uint64_t words (sort_dispatch.cuh).

#include "cuda/studies/sort/sort_dispatch.inl"

namespace swat::sort::detail {

template void launch_persistent<uint64_t>(const cuda::device_context&, sync_mode, const barrier::barrier_handle&, const sort_args<uint64_t>&,
                                    int, int, int, std::size_t, cudaStream_t);
template void launch_step<uint64_t>(const sort_args<uint64_t>&, int, int, std::size_t, cudaStream_t);
template int persistent_max_blocks<uint64_t>(const cuda::device_context&, sync_mode, std::size_t);

}  // namespace swat::sort::detail

// Persistent and per-pass FFT kernels for float (fft_dispatch.cuh).

#include "cuda/studies/fft/fft_dispatch.inl"

namespace swat::fft::detail {

template void launch_persistent<float>(const cuda::device_context&, sync_mode, const barrier::barrier_handle&, const fft_args<float>&, int,
                                    int, int, std::size_t, cudaStream_t);
template void launch_pass<float>(const fft_args<float>&, int, int, std::size_t, cudaStream_t);
template int persistent_max_blocks<float>(const cuda::device_context&, sync_mode, std::size_t);

}  // namespace swat::fft::detail

// Persistent and per-pass FFT kernels for double (fft_dispatch.cuh).

#include "cuda/studies/fft/fft_dispatch.inl"

namespace swat::fft::detail {

template void launch_persistent<double>(const cuda::device_context&, sync_mode, const barrier::barrier_handle&, const fft_args<double>&, int,
                                    int, int, std::size_t, cudaStream_t);
template void launch_pass<double>(const fft_args<double>&, int, int, std::size_t, cudaStream_t);
template int persistent_max_blocks<double>(const cuda::device_context&, sync_mode, std::size_t);

}  // namespace swat::fft::detail

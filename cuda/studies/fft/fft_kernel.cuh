#pragma once
// The FFT kernel: a persistent grid that walks passes first..first+count-1, tiles distributed
// block-stride, one grid barrier of mode M between passes. Launch-based modes run the same
// kernel with M = none and count = 1 per launch (the kernel boundary is the barrier).

#include "cuda/sync/barrier/barrier.cuh"
#include "cuda/studies/fft/fft_tile.cuh"

namespace swat::fft::detail {

//! Most global passes of a plan (2^27 points need 4 passes of <= 8 bits).
inline constexpr int max_passes = 8;

//! Kernel argument: every pass of the plan.
template <typename real_t>
struct fft_args {
  pass_args<real_t> pass[max_passes];  //!< passes in order
  int sign;                            //!< -1 forward, +1 inverse
};

template <typename real_t>
struct fft_traits;
template <>
struct fft_traits<float> {
  static constexpr fft_policy policy = fp32_policy;
};
template <>
struct fft_traits<double> {
  static constexpr fft_policy policy = fp64_policy;
};

//! Passes [first, first + count) of args; grid barrier of mode M between them.
template <sync_mode M, typename real_t>
__global__ void __launch_bounds__(fft_traits<real_t>::policy.block_threads)
    fft_kernel(barrier::barrier_handle h, fft_args<real_t> args, int first, int count) {
  constexpr int threads = fft_traits<real_t>::policy.block_threads;
  extern __shared__ __align__(16) unsigned char fft_smem[];
  auto* sm = reinterpret_cast<cplx<real_t>*>(fft_smem);
  barrier::grid_barrier<M> bar(h);
  for (int p = first; p < first + count; ++p) {
    if (p > first) {
      bar.arrive_and_wait();
      if (bar.failed()) return;
    }
    const pass_args<real_t>& a = args.pass[p];
    for (long long t = blockIdx.x; t < a.tiles; t += gridDim.x) fft_pass_tile<threads>(a, t, args.sign, sm);
  }
}

}  // namespace swat::fft::detail

#pragma once
// Block-level reduction of any trivially copyable value (≤ 32 bytes) by warp shuffles and one
// shared-memory pass. Deterministic: the combining order depends only on thread indices.

#include <cstring>
#include <type_traits>

namespace swat::collective::detail {

//! Largest value type the collectives move (bytes).
inline constexpr int max_value_bytes = 32;

//! __shfl_down_sync of an arbitrary trivially copyable value, 4 bytes at a time.
template <typename T>
__device__ __forceinline__ T shfl_down(const T& v, unsigned offset) {
  static_assert(std::is_trivially_copyable_v<T>, "collective values must be trivially copyable");
  constexpr int words = (sizeof(T) + 3) / 4;
  unsigned w[words] = {};
  std::memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < words; ++k) w[k] = __shfl_down_sync(0xffffffffu, w[k], offset);
  T out;
  std::memcpy(&out, w, sizeof(T));
  return out;
}

//! Shared scratch of the block reductions: one array per kernel, whatever the value types.
__device__ __forceinline__ unsigned char* reduce_scratch() {
  __shared__ alignas(16) unsigned char raw[33 * max_value_bytes];
  return raw;
}

//! Reduces v over all threads of the block with op; every thread gets the result. Contains
//! __syncthreads(): all threads of the block must call it. Block size: any, up to 1024.
template <typename T, typename op_t>
__device__ T block_reduce_all(T v, op_t op) {
  static_assert(sizeof(T) <= max_value_bytes, "collective value too large");
  T* partial = reinterpret_cast<T*>(reduce_scratch());
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned lane = t % 32u;
  const unsigned warp = t / 32u;
  const unsigned warps = (threads + 31u) / 32u;
  const unsigned lanes_here = min(32u, threads - warp * 32u);
#pragma unroll
  for (unsigned off = 16; off > 0; off /= 2) {
    const T other = shfl_down(v, off);
    if (lane + off < lanes_here) v = op(v, other);
  }
  __syncthreads();  // previous use of raw[] is over
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    T w = partial[lane < warps ? lane : 0u];
#pragma unroll
    for (unsigned off = 16; off > 0; off /= 2) {
      const T other = shfl_down(w, off);
      if (lane + off < warps) w = op(w, other);
    }
    if (lane == 0) partial[32] = w;
  }
  __syncthreads();
  return partial[32];
}

}  // namespace swat::collective::detail

// swat_pipe_mix: which pipe, and at what rate, runs each instruction that a cell of the database
// scan could be computed with (not a user tool; bench/results/db_scan_bound_h100.md). Each kernel
// runs `chains` independent chains per thread of one or two kinds of instruction; an operand
// of each step is another chain's value from the step before, so that no step is constant,
// idempotent or foldable. Printed per kernel: time and warp instructions issued per clock per
// SM sub-partition (SMSP), from the instruction count the kernel is written to execute; run it
// under `ncu --metrics sm__inst_executed_pipe_alu...,sm__issue_active...` to see the pipe each
// kernel fills. Usage: swat_pipe_mix [iterations]   (CSV on stdout)

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace {

constexpr int chains = 8;

enum kind : int {
  dpx_addmax,    // VIADDMNMX.S16x2: max(a + b, c) on two 16-bit halves
  half_max,      // HMNMX2
  half_add,      // HADD2
  dpx_and_hmax,  // one VIADDMNMX and one HMNMX2 per step
  dpx_and_hadd,  // one VIADDMNMX and one HADD2
  int_mad,       // IMAD
  dpx_and_imad,  // one VIADDMNMX and one IMAD
  half_fma,      // HFMA2
  hadd_hmax,     // HADD2 then HMNMX2 (a half-precision add-max)
  dpx_hadd_hmax, // one VIADDMNMX, one HADD2 and one HMNMX2
  byte_perm,     // PRMT (two int8 scores into one s16x2 word)
  simd_add,      // VIADD.16x2 (__vadd2)
  simd_max3,     // VIMNMX3.S16x2 (__vimax3_s16x2)
  kinds
};

struct kind_info {
  const char* name;
  int ops;  // instructions per chain and step
};
constexpr kind_info info[kinds] = {
    {"viaddmax_s16x2", 1}, {"hmax2", 1},  {"hadd2", 1},       {"viaddmax+hmax2", 2},
    {"viaddmax+hadd2", 2}, {"imad", 1},   {"viaddmax+imad", 2}, {"hfma2", 1},
    {"hadd2+hmax2", 2},    {"viaddmax+hadd2+hmax2", 3}, {"prmt", 1}, {"vadd2", 1}, {"vimax3_s16x2", 1},
};

template <int K>
__global__ void mix_kernel(unsigned* sink, int iterations, unsigned seed) {
  unsigned a[chains], x[chains];
  __half2 h[chains];
  for (int i = 0; i < chains; ++i) {
    a[i] = seed * (threadIdx.x + 17u * i);
    x[i] = seed + threadIdx.x * i;
    h[i] = __halves2half2(__int2half_rn(i - 4), __int2half_rn(int(threadIdx.x & 7) - 3));
  }
  const unsigned b = seed ^ 0xfffdfffeu, c = seed + 7u;
  const __half2 hb = __halves2half2(__int2half_rn(-1), __int2half_rn(-2));
  for (int it = 0; it < iterations; ++it) {
    unsigned pa[chains], px[chains];
    __half2 ph[chains];
#pragma unroll
    for (int i = 0; i < chains; ++i) {
      pa[i] = a[i];
      px[i] = x[i];
      ph[i] = h[i];
    }
#pragma unroll
    for (int i = 0; i < chains; ++i) {
      const int n = (i + 1) % chains;  // the neighbour chain's value of the step before
      if constexpr (K == dpx_addmax || K == dpx_and_hmax || K == dpx_and_hadd || K == dpx_and_imad ||
                    K == dpx_hadd_hmax)
        a[i] = __viaddmax_s16x2(a[i], b, pa[n]);
      if constexpr (K == half_max || K == dpx_and_hmax) h[i] = __hmax2(h[i], ph[n]);
      if constexpr (K == half_add || K == dpx_and_hadd) h[i] = __hadd2(h[i], hb);
      if constexpr (K == int_mad || K == dpx_and_imad) x[i] = x[i] * px[n] + c;
      if constexpr (K == half_fma) h[i] = __hfma2(h[i], hb, ph[n]);
      if constexpr (K == hadd_hmax || K == dpx_hadd_hmax) h[i] = __hmax2(__hadd2(h[i], hb), ph[n]);
      if constexpr (K == byte_perm) a[i] = __byte_perm(a[i], pa[n], 0x9180u + unsigned(i));
      if constexpr (K == simd_add) a[i] = __vadd2(a[i], pa[n]);
      if constexpr (K == simd_max3) a[i] = __vimax3_s16x2(a[i], pa[n], b);
    }
  }
  unsigned s = 0;
  for (int i = 0; i < chains; ++i)
    s += a[i] + x[i] + __half_as_ushort(__low2half(h[i])) + __half_as_ushort(__high2half(h[i]));
  if (s == 0x9e3779b9u) sink[0] = s;  // keeps every chain alive
}

using kernel_fn = void (*)(unsigned*, int, unsigned);
template <int... K>
constexpr auto table(std::integer_sequence<int, K...>) {
  return std::array<kernel_fn, sizeof...(K)>{mix_kernel<K>...};
}

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "swat_pipe_mix: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20000;
  if (iterations < 1) {
    std::fprintf(stderr, "usage: swat_pipe_mix [iterations ≥ 1]\n");
    return 2;
  }
  int sms = 0, clock_khz = 0;
  unsigned* sink = nullptr;
  if (!check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "device") ||
      !check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0), "clock") ||
      !check(cudaMalloc(&sink, sizeof(unsigned)), "cudaMalloc"))
    return 1;
  const auto kernels = table(std::make_integer_sequence<int, kinds>{});
  const int threads = 256, blocks = sms * 8;
  cudaEvent_t e0, e1;
  if (!check(cudaEventCreate(&e0), "event") || !check(cudaEventCreate(&e1), "event")) return 1;
  std::printf("kernel,ms,warp_instr_per_clock_per_smsp,sms,clock_mhz,iterations\n");
  for (int k = 0; k < kinds; ++k) {
    kernels[k]<<<blocks, threads>>>(sink, 64, 1u);  // warm-up (module load, clocks)
    cudaEventRecord(e0);
    kernels[k]<<<blocks, threads>>>(sink, iterations, 1u);
    cudaEventRecord(e1);
    if (!check(cudaEventSynchronize(e1), info[k].name)) return 1;
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    const double warp_instr = double(blocks) * threads / 32 * iterations * chains * info[k].ops;
    const double clocks = double(ms) * 1e-3 * double(clock_khz) * 1e3;
    std::printf("%s,%.3f,%.3f,%d,%d,%d\n", info[k].name, ms, warp_instr / (4.0 * sms) / clocks, sms,
                clock_khz / 1000, iterations);
  }
  return check(cudaGetLastError(), "launch") ? 0 : 1;
}

// swat_barrier_explore: design-space sweep behind the lastin policy (not a user tool).
// Times the §5.4 mean kernel with policy variants of our barriers next to cg, at 1 and 4
// blocks per SM. Usage: swat_barrier_explore [rounds]

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/barrier/barrier_bench_kernel.cuh"
#include "cuda/sync/barrier/barrier_workspace.cuh"
#include "cuda/common/cuda_check.cuh"
#include "cuda/common/launch.cuh"

namespace swat::barrier {
namespace {

template <typename barrier_t>
__global__ void explore_kernel(barrier_handle h, float* a, float* b, int rounds) {
  barrier_t bar(h);
  for (int r = 0; r < rounds && !bar.failed(); ++r) {
    bench::mean_round(a, b, r);
    bar.arrive_and_wait();
  }
}

struct setup {
  const cuda::device_context* dev;
  int blocks;
  int threads;
  std::size_t smem;
  int rounds;
  float* a;
  float* b;
  barrier_workspace* ws;
};

template <typename barrier_t>
double time_variant(sync_mode mode, const setup& s) {
  cudaEvent_t e0, e1;
  SWAT_CUDA_CHECK(cudaEventCreate(&e0));
  SWAT_CUDA_CHECK(cudaEventCreate(&e1));
  double best = 1e30;
  for (int rep = 0; rep < 4; ++rep) {
    const barrier_handle h = s.ws->prepare(mode, s.blocks);
    SWAT_CUDA_CHECK(cudaEventRecord(e0));
    cuda::launch_cooperative(*s.dev, explore_kernel<barrier_t>, dim3(s.blocks), dim3(s.threads), s.smem,
                             nullptr, h, s.a, s.b, s.rounds);
    SWAT_CUDA_CHECK(cudaEventRecord(e1));
    SWAT_CUDA_CHECK(cudaEventSynchronize(e1));
    s.ws->check();
    float ms = 0;
    SWAT_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (rep > 0 && ms < best) best = ms;  // first run is the warm-up
  }
  SWAT_CUDA_CHECK(cudaEventDestroy(e0));
  SWAT_CUDA_CHECK(cudaEventDestroy(e1));
  return best;
}

void run(int rounds) {
  const cuda::device_context device(0);
  const int dev = device.id();
  int per_sm = 0, reserved = 0;
  SWAT_CUDA_CHECK(
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  SWAT_CUDA_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
  const int sms = device.sm_count();
  float *a = nullptr, *b = nullptr;
  SWAT_CUDA_CHECK(cudaMalloc(&a, 4096 * 1024 * sizeof(float)));
  SWAT_CUDA_CHECK(cudaMalloc(&b, 4096 * 1024 * sizeof(float)));
  SWAT_CUDA_CHECK(cudaMemset(a, 0, 4096 * 1024 * sizeof(float)));
  SWAT_CUDA_CHECK(cudaMemset(b, 0, 4096 * 1024 * sizeof(float)));
  barrier_workspace ws(device, 4 * sms);
  std::printf("%-5s %-6s %-7s %-16s %10s\n", "bpsm", "blocks", "threads", "variant", "us/barrier");
  struct point {
    int bpsm, blocks, threads;
  };
  for (point p : {point{1, 8, 256}, point{1, sms, 256}, point{4, sms, 256}, point{4, 2 * sms, 256},
                  point{4, 4 * sms, 256}, point{1, sms, 1024}}) {
    const std::size_t smem =
        static_cast<std::size_t>((per_sm / p.bpsm - reserved - 1024) / 1024 * 1024);
    const setup s{&device, p.blocks, p.threads, std::min<std::size_t>(smem, 227 * 1024), rounds, a, b, &ws};
    const double none = time_variant<grid_barrier<sync_mode::none>>(sync_mode::none, s);
    auto show = [&](const char* name, double ms) {
      std::printf("%-5d %-6d %-7d %-16s %10.3f\n", p.bpsm, p.blocks, p.threads, name,
                  (ms - none) * 1e3 / rounds);
    };
    show("cg", time_variant<grid_barrier<sync_mode::cg>>(sync_mode::cg, s));
    show("simple", time_variant<grid_barrier<sync_mode::simple>>(sync_mode::simple, s));
    show("flag", time_variant<grid_barrier<sync_mode::flag>>(sync_mode::flag, s));
    show("stripe", time_variant<grid_barrier<sync_mode::stripe>>(sync_mode::stripe, s));
    show("lastin<1,0>", time_variant<lastin_barrier<1, 0>>(sync_mode::lastin, s));
    show("lastin<2,0>", time_variant<lastin_barrier<2, 0>>(sync_mode::lastin, s));
    show("lastin<4,0>", time_variant<lastin_barrier<4, 0>>(sync_mode::lastin, s));
    show("lastin<1,64>", time_variant<lastin_barrier<1, 64>>(sync_mode::lastin, s));
    show("lastin<2,64>", time_variant<lastin_barrier<2, 64>>(sync_mode::lastin, s));
    show("lastin<4,128>", time_variant<lastin_barrier<4, 128>>(sync_mode::lastin, s));
    show("lastin<8,256>", time_variant<lastin_barrier<8, 256>>(sync_mode::lastin, s));
    show("cg(again)", time_variant<grid_barrier<sync_mode::cg>>(sync_mode::cg, s));
    std::fflush(stdout);
  }
  SWAT_CUDA_CHECK(cudaFree(a));
  SWAT_CUDA_CHECK(cudaFree(b));
}

}  // namespace
}  // namespace swat::barrier

int main(int argc, char** argv) {
  try {
    swat::barrier::run(argc > 1 ? std::atoi(argv[1]) : 10000);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "swat_barrier_explore: %s\n", e.what());
    return 1;
  }
}

// Device half of `swat-gpu bench fft`: buffers, CUDA-event timing, cuFFT (fft_bench_run.hpp).
//
// cuFFT is opened with dlopen the first time `bench fft` times it, not linked: its library
// (~290 MB) took ~4 ms to map and relocate at every start of swat-gpu, whatever the command.

#include <cufft.h>
#include <dlfcn.h>

#include <random>
#include <string>
#include <vector>

#include "cuda/common/cuda_check.cuh"
#include "bench/common/event_timer.cuh"
#include "bench/fft/fft_bench_run.hpp"

namespace swat::bench {

using namespace fft;

namespace {

void cufft_ok(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS) throw cuda_error(std::string("cuFFT ") + what + " failed: " + std::to_string(static_cast<int>(r)));
}

//! The four cuFFT functions the bench calls, from the library of the toolkit it was built with.
struct cufft_api {
  decltype(&cufftPlan1d) plan_1d = nullptr;
  decltype(&cufftExecC2C) exec_c2c = nullptr;
  decltype(&cufftExecZ2Z) exec_z2z = nullptr;
  decltype(&cufftDestroy) destroy = nullptr;
};

const cufft_api& cufft() {
  static const cufft_api api = [] {
    const std::string name = "libcufft.so." + std::to_string(CUFFT_VER_MAJOR);
    void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);  // kept open for the process
    if (library == nullptr) throw cuda_error("bench fft: cannot open cuFFT (" + std::string(dlerror()) + ")");
    const auto symbol = [&](const char* what) {
      void* f = dlsym(library, what);
      if (f == nullptr) throw cuda_error("bench fft: " + name + " has no " + what);
      return f;
    };
    cufft_api a;
    a.plan_1d = reinterpret_cast<decltype(a.plan_1d)>(symbol("cufftPlan1d"));
    a.exec_c2c = reinterpret_cast<decltype(a.exec_c2c)>(symbol("cufftExecC2C"));
    a.exec_z2z = reinterpret_cast<decltype(a.exec_z2z)>(symbol("cufftExecZ2Z"));
    a.destroy = reinterpret_cast<decltype(a.destroy)>(symbol("cufftDestroy"));
    return a;
  }();
  return api;
}

//! Mean ms per call of work over repeats calls after warmup calls (events around the loop).
template <typename work_t>
double timed_mean(int repeats, int warmup, work_t work) {
  for (int i = 0; i < warmup; ++i) work();
  const float ms = elapsed_ms(nullptr, [&] {
    for (int i = 0; i < repeats; ++i) work();
  });
  return ms / repeats;
}

}  // namespace

struct fft_runner::impl {
  explicit impl(const cuda::device_context& dev) : engine(dev) {}
  void* d_in = nullptr;
  void* d_out = nullptr;
  std::size_t bytes = 0;
  fft_engine engine;
};

fft_runner::fft_runner(const cuda::device_context& dev, std::size_t max_bytes) : impl_(std::make_unique<impl>(dev)) {
  dev.make_current();
  impl_->bytes = max_bytes;
  SWAT_CUDA_CHECK(cudaMalloc(&impl_->d_in, max_bytes));
  SWAT_CUDA_CHECK(cudaMalloc(&impl_->d_out, max_bytes));
}

fft_runner::~fft_runner() {
  (void)cudaFree(impl_->d_in);
  (void)cudaFree(impl_->d_out);
}

void fft_runner::fill(const fft_plan& plan) {
  const std::size_t reals = static_cast<std::size_t>(plan.batch << plan.log2_n) * 2;
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(-1, 1);
  if (plan.prec == precision::fp32) {
    std::vector<float> h(reals);
    for (auto& v : h) v = static_cast<float>(u(rng));
    SWAT_CUDA_CHECK(cudaMemcpy(impl_->d_in, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  } else {
    std::vector<double> h(reals);
    for (auto& v : h) v = u(rng);
    SWAT_CUDA_CHECK(cudaMemcpy(impl_->d_in, h.data(), h.size() * 8, cudaMemcpyHostToDevice));
  }
}

double fft_runner::time_ours(const fft_plan& plan, const fft_options& options, int repeats, int warmup) {
  fft_options o = options;
  o.check = false;
  const double ms = timed_mean(repeats, warmup, [&] { impl_->engine.execute(plan, impl_->d_in, impl_->d_out, o); });
  impl_->engine.check();
  return ms;
}

double fft_runner::time_cufft(const fft_plan& plan, int repeats, int warmup) {
  const cufft_api& api = cufft();
  cufftHandle h;
  const bool f32 = plan.prec == precision::fp32;
  cufft_ok(api.plan_1d(&h, static_cast<int>(plan.n()), f32 ? CUFFT_C2C : CUFFT_Z2Z, static_cast<int>(plan.batch)),
           "plan");
  struct destroy_plan {  // also when a timed call throws (review of session 23)
    const cufft_api& api;
    cufftHandle h;
    ~destroy_plan() { (void)api.destroy(h); }
  } owner{api, h};
  const int dir = plan.dir == direction::forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  const double ms = timed_mean(repeats, warmup, [&] {
    if (f32) {
      cufft_ok(api.exec_c2c(h, static_cast<cufftComplex*>(impl_->d_in), static_cast<cufftComplex*>(impl_->d_out), dir),
               "exec");
    } else {
      cufft_ok(api.exec_z2z(h, static_cast<cufftDoubleComplex*>(impl_->d_in),
                            static_cast<cufftDoubleComplex*>(impl_->d_out), dir),
               "exec");
    }
  });
  return ms;
}

int fft_runner::max_blocks(const fft_plan& plan, sync_mode mode) { return impl_->engine.max_blocks(plan, mode); }

}  // namespace swat::bench

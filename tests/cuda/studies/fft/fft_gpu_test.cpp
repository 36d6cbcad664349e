// FFT on the device vs cuFFT and a naive DFT, every sync mode, fp32 and fp64 (GTEST_SKIP
// without a device). Inputs are drawn fresh per run; outputs are poisoned (NaN) before a run.

#include <cuda_runtime.h>
#include <cufft.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <memory>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/common/cuda_check.hpp"
#include "support/gpu_test.hpp"
#include "cuda/studies/fft/fft.hpp"

namespace swat::fft {
namespace {

using cd = std::complex<double>;

void ok(cudaError_t e) {
  if (e != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e));
}
void ok(cufftResult r) {
  if (r != CUFFT_SUCCESS) throw std::runtime_error("cufft error " + std::to_string(static_cast<int>(r)));
}

//! Device buffer of bytes, freed on scope exit.
struct dev_buf {
  void* p = nullptr;
  explicit dev_buf(std::size_t bytes) { ok(cudaMalloc(&p, bytes)); }
  ~dev_buf() { (void)cudaFree(p); }
};

std::mt19937_64& rng() {
  static std::mt19937_64 r(std::random_device{}());
  return r;
}

std::vector<cd> random_points(std::size_t n) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<cd> x(n);
  for (auto& v : x) v = {u(rng()), u(rng())};
  return x;
}

double rel_l2(const std::vector<cd>& a, const std::vector<cd>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += std::norm(a[i] - b[i]);
    den += std::norm(b[i]);
  }
  return std::isfinite(num) ? std::sqrt(num / (den > 0 ? den : 1)) : INFINITY;
}

double tolerance(precision p) { return p == precision::fp32 ? 1e-5 : 1e-12; }

//! Uploads x in the plan's precision, poisons out, returns the bytes.
std::size_t upload(const std::vector<cd>& x, precision p, void* d) {
  if (p == precision::fp32) {
    std::vector<std::complex<float>> f(x.begin(), x.end());
    ok(cudaMemcpy(d, f.data(), f.size() * sizeof(f[0]), cudaMemcpyHostToDevice));
    return f.size() * sizeof(f[0]);
  }
  ok(cudaMemcpy(d, x.data(), x.size() * sizeof(cd), cudaMemcpyHostToDevice));
  return x.size() * sizeof(cd);
}

std::vector<cd> download(const void* d, std::size_t n, precision p) {
  std::vector<cd> y(n);
  if (p == precision::fp32) {
    std::vector<std::complex<float>> f(n);
    ok(cudaMemcpy(f.data(), d, n * sizeof(f[0]), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < n; ++i) y[i] = f[i];
  } else {
    ok(cudaMemcpy(y.data(), d, n * sizeof(cd), cudaMemcpyDeviceToHost));
  }
  return y;
}

//! cuFFT of the device buffer d_in (batch transforms of 2^k points, unnormalised).
std::vector<cd> cufft_reference(const void* d_in, int k, int batch, precision p, direction dir) {
  const std::size_t n = static_cast<std::size_t>(batch) << k;
  dev_buf out(n * (p == precision::fp32 ? 8 : 16));
  cufftHandle h;
  ok(cufftPlan1d(&h, 1 << k, p == precision::fp32 ? CUFFT_C2C : CUFFT_Z2Z, batch));
  const int d = dir == direction::forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  if (p == precision::fp32) {
    ok(cufftExecC2C(h, static_cast<cufftComplex*>(const_cast<void*>(d_in)), static_cast<cufftComplex*>(out.p), d));
  } else {
    ok(cufftExecZ2Z(h, static_cast<cufftDoubleComplex*>(const_cast<void*>(d_in)),
                    static_cast<cufftDoubleComplex*>(out.p), d));
  }
  ok(cudaDeviceSynchronize());
  ok(cufftDestroy(h));
  return download(out.p, n, p);
}

class FftGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
    engine_ = std::make_unique<fft_engine>(swat::test::test_device());
  }
  //! Runs plan on fresh input with mode; returns (input, output).
  std::pair<std::vector<cd>, std::vector<cd>> run(const fft_plan& plan, sync_mode mode, void* d_in,
                                                  void* d_out) {
    const std::size_t n = static_cast<std::size_t>(plan.batch << plan.log2_n);
    std::vector<cd> x = random_points(n);
    const std::size_t bytes = upload(x, plan.prec, d_in);
    ok(cudaMemset(d_out, 0xff, bytes));
    engine_->execute(plan, d_in, d_out, {.mode = mode});
    ok(cudaDeviceSynchronize());
    return {x, download(d_out, n, plan.prec)};
  }
  std::unique_ptr<fft_engine> engine_;  //!< on device 0, built once a device is known
};

const char* name(precision p) { return p == precision::fp32 ? "fp32" : "fp64"; }

TEST_F(FftGpu, MatchesCufftEveryMode) {
  struct shape {
    int k;
    int batch;
  };
  const shape shapes[] = {{1, 3}, {4, 100}, {9, 7}, {12, 2}, {13, 1}, {17, 2}, {20, 1}};
  for (precision p : {precision::fp32, precision::fp64}) {
    for (const shape s : shapes) {
      for (direction dir : {direction::forward, direction::inverse}) {
        const fft_plan plan = make_fft_plan(s.k, s.batch, p, dir, false);
        const std::size_t bytes = (static_cast<std::size_t>(s.batch) << s.k) * (p == precision::fp32 ? 8 : 16);
        dev_buf in(bytes), out(bytes);
        for (sync_mode m : all_gpu_sync_modes()) {
          const auto [x, y] = run(plan, m, in.p, out.p);
          const std::vector<cd> ref = cufft_reference(in.p, s.k, s.batch, p, dir);
          EXPECT_LT(rel_l2(y, ref), tolerance(p))
              << name(p) << " 2^" << s.k << " x" << s.batch << " " << to_string(m)
              << (dir == direction::forward ? " forward" : " inverse");
        }
      }
    }
  }
}

TEST_F(FftGpu, MatchesNaiveDft) {
  for (precision p : {precision::fp32, precision::fp64}) {
    for (int k : {1, 2, 3, 5, 8, 10}) {
      const fft_plan plan = make_fft_plan(k, 1, p, direction::forward);
      dev_buf in(16u << k), out(16u << k);
      const auto [x, y] = run(plan, sync_mode::flag, in.p, out.p);
      EXPECT_LT(rel_l2(y, naive_dft(x, direction::forward)), tolerance(p)) << name(p) << " 2^" << k;
    }
  }
}

TEST_F(FftGpu, InverseOfForwardIsIdentity) {
  for (precision p : {precision::fp32, precision::fp64}) {
    for (int k : {3, 12, 16, 22}) {
      for (sync_mode m : {sync_mode::cpu, sync_mode::graph, sync_mode::cg, sync_mode::flag, sync_mode::lockfree}) {
        const fft_plan fwd = make_fft_plan(k, 1, p, direction::forward);
        const fft_plan inv = make_fft_plan(k, 1, p, direction::inverse);
        dev_buf a(16u << k), b(16u << k);
        const auto [x, y] = run(fwd, m, a.p, b.p);
        ok(cudaMemset(a.p, 0xff, 16u << k));
        engine_->execute(inv, b.p, a.p, {.mode = m});
        ok(cudaDeviceSynchronize());
        EXPECT_LT(rel_l2(download(a.p, x.size(), p), x), tolerance(p)) << name(p) << " 2^" << k << " " << to_string(m);
      }
    }
  }
}

TEST_F(FftGpu, InPlaceAndLargest) {
  for (int k : {13, 20, 24}) {  // 2, 3 and 3 passes
    const fft_plan plan = make_fft_plan(k, 1, precision::fp32, direction::forward, false);
    dev_buf a(8u << k);
    std::vector<cd> x = random_points(std::size_t{1} << k);
    upload(x, precision::fp32, a.p);
    const std::vector<cd> ref = cufft_reference(a.p, k, 1, precision::fp32, direction::forward);
    engine_->execute(plan, a.p, a.p, {.mode = sync_mode::stripe});
    ok(cudaDeviceSynchronize());
    EXPECT_LT(rel_l2(download(a.p, x.size(), precision::fp32), ref), 1e-5) << "2^" << k;
  }
}

}  // namespace
}  // namespace swat::fft

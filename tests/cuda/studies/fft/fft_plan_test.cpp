// Host-side FFT planning and the CPU executor that mirrors the device tiling (runs in CI).

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "cuda/studies/fft/fft.hpp"

namespace swat::fft {
namespace {

using cd = std::complex<double>;

double rel_l2(const std::vector<cd>& a, const std::vector<cd>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += std::norm(a[i] - b[i]);
    den += std::norm(b[i]);
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

std::vector<cd> random_points(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<cd> x(n);
  for (auto& v : x) v = {u(rng), u(rng)};
  return x;
}

//! Recursive radix-2 DFT (independent of the Stockham formulation), O(n log n).
std::vector<cd> recursive_dft(const std::vector<cd>& x, direction dir) {
  const std::size_t n = x.size();
  if (n == 1) return x;
  std::vector<cd> even(n / 2), odd(n / 2);
  for (std::size_t i = 0; i < n / 2; ++i) {
    even[i] = x[2 * i];
    odd[i] = x[2 * i + 1];
  }
  const std::vector<cd> e = recursive_dft(even, dir), o = recursive_dft(odd, dir);
  const double sign = dir == direction::forward ? -1 : 1;
  std::vector<cd> y(n);
  for (std::size_t k = 0; k < n / 2; ++k) {
    const cd w = std::polar(1.0, sign * 2 * M_PI * static_cast<double>(k) / static_cast<double>(n)) * o[k];
    y[k] = e[k] + w;
    y[k + n / 2] = e[k] - w;
  }
  return y;
}

TEST(FftPlan, SplitsSizesIntoPasses) {
  for (precision prec : {precision::fp32, precision::fp64}) {
    for (int k = 1; k <= 27; ++k) {
      const fft_plan p = make_fft_plan(k, 3, prec, direction::forward);
      int bits = 0;
      int ns = 0;
      for (const auto& pass : p.passes) {
        EXPECT_EQ(pass.ns_log2, ns);
        EXPECT_LE(pass.radix_log2 + pass.column_log2 + pass.batch_log2, p.tile_log2);
        int inner = 0;
        for (int q : pass.inner_radix_log2) inner += q;
        EXPECT_EQ(inner, pass.radix_log2);
        bits += pass.radix_log2;
        ns += pass.radix_log2;
      }
      EXPECT_EQ(bits, k);
      EXPECT_EQ(p.passes.size() == 1, k <= p.tile_log2) << k;
      EXPECT_LE(tile_smem_bytes(p), 40u * 1024u);
    }
  }
  EXPECT_EQ(make_fft_plan(24, 1, precision::fp32, direction::forward).barriers(), 2);
  EXPECT_EQ(make_fft_plan(12, 1, precision::fp32, direction::forward).barriers(), 0);
  EXPECT_EQ(make_fft_plan(12, 1, precision::fp64, direction::forward).barriers(), 1);
}

TEST(FftPlan, PacksSmallTransformsIntoTiles) {
  const fft_plan p = make_fft_plan(3, 1000, precision::fp32, direction::forward);
  ASSERT_EQ(p.passes.size(), 1u);
  EXPECT_EQ(p.passes[0].batch_log2, 9);
  EXPECT_EQ(p.passes[0].tiles, 2);
  const fft_plan one = make_fft_plan(3, 1, precision::fp32, direction::forward);
  EXPECT_EQ(one.passes[0].batch_log2, 0);
  EXPECT_EQ(one.passes[0].tiles, 1);
}

TEST(FftPlan, DefaultGridSpreadsTilesEvenly) {
  const fft_plan p = make_fft_plan(20, 1, precision::fp32, direction::forward);
  ASSERT_EQ(p.max_tiles(), 1024);
  EXPECT_EQ(default_blocks(p, 396), 342);   // 3 waves of 342 instead of 396 + 396 + 232
  EXPECT_EQ(default_blocks(p, 2000), 1024);  // one tile per block
  EXPECT_EQ(default_blocks(p, 1024), 1024);
  EXPECT_THROW(default_blocks(p, 0), usage_error);
}

TEST(FftPlan, RejectsBadSizes) {
  EXPECT_THROW(make_fft_plan(0, 1, precision::fp32, direction::forward), usage_error);
  EXPECT_THROW(make_fft_plan(28, 1, precision::fp32, direction::forward), usage_error);
  EXPECT_THROW(make_fft_plan(4, 0, precision::fp32, direction::forward), usage_error);
}

// The CPU executor walks the device tiles, loads, sub-stages and stores; it must equal a DFT.
TEST(FftPlan, TilingMatchesNaiveDft) {
  std::mt19937_64 rng(std::random_device{}());
  for (precision prec : {precision::fp32, precision::fp64}) {
    for (int k : {1, 2, 3, 4, 5, 7, 9, 11, 12, 13, 14}) {
      for (long long batch : {1LL, k < 9 ? 3LL : 1LL}) {
        for (direction dir : {direction::forward, direction::inverse}) {
          const fft_plan plan = make_fft_plan(k, batch, prec, dir, false);
          std::vector<cd> x = random_points(batch << k, rng);
          std::vector<cd> y = x;
          reference_execute(plan, y);
          for (long long b = 0; b < batch; ++b) {
            std::vector<cd> xb(x.begin() + (b << k), x.begin() + ((b + 1) << k));
            std::vector<cd> yb(y.begin() + (b << k), y.begin() + ((b + 1) << k));
            const std::vector<cd> want = k <= 7 ? naive_dft(xb, dir) : recursive_dft(xb, dir);
            EXPECT_LT(rel_l2(yb, want), 1e-12) << "k=" << k << " batch=" << b;
          }
        }
      }
    }
  }
}

TEST(FftPlan, LargeTilingRoundTrips) {
  std::mt19937_64 rng(std::random_device{}());
  for (int k : {16}) {
    const std::vector<cd> x = random_points(1u << k, rng);
    std::vector<cd> y = x;
    reference_execute(make_fft_plan(k, 1, precision::fp32, direction::forward), y);
    reference_execute(make_fft_plan(k, 1, precision::fp32, direction::inverse), y);
    EXPECT_LT(rel_l2(y, x), 1e-12) << k;
  }
}

}  // namespace
}  // namespace swat::fft

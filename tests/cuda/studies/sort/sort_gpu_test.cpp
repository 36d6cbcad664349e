// Bitonic sort on the device vs std::sort, every sync mode, key type and order (GTEST_SKIP
// without a device). Inputs are drawn fresh per run; outputs are poisoned before a run.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <bit>
#include <stdexcept>
#include <string>
#include <memory>
#include <vector>

#include "cuda/common/cuda_check.hpp"
#include "support/gpu_test.hpp"
#include "sort_test_util.hpp"

namespace swat::sort {
namespace {

void ok(cudaError_t e) {
  if (e != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e));
}

//! Device array of n u32 words (at least one), freed on scope exit.
struct dev_words {
  std::uint32_t* p = nullptr;
  explicit dev_words(std::size_t n) { ok(cudaMalloc(&p, std::max<std::size_t>(n, 1) * 4)); }
  ~dev_words() { (void)cudaFree(p); }
};

class SortGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
    s_ = std::make_unique<sorter>(swat::test::test_device());
  }
  //! Uploads keys, sorts them as kind with options, returns the result.
  std::vector<std::uint32_t> run_keys(const std::vector<std::uint32_t>& keys, int kind, const sort_options& o) {
    const std::size_t n = keys.size();
    dev_words d(n + 1);
    ok(cudaMemset(d.p, 0xa5, (n + 1) * 4));
    ok(cudaMemcpy(d.p, keys.data(), n * 4, cudaMemcpyHostToDevice));
    if (kind == 0) s_->sort_keys(d.p, n, o);
    if (kind == 1) s_->sort_keys(reinterpret_cast<std::int32_t*>(d.p), n, o);
    if (kind == 2) s_->sort_keys(reinterpret_cast<float*>(d.p), n, o);
    ok(cudaDeviceSynchronize());
    std::vector<std::uint32_t> out(n + 1);
    ok(cudaMemcpy(out.data(), d.p, (n + 1) * 4, cudaMemcpyDeviceToHost));
    EXPECT_EQ(out[n], 0xa5a5a5a5u) << "wrote past n";
    out.resize(n);
    return out;
  }
  std::unique_ptr<sorter> s_;  //!< on device 0, built once a device is known
};

const char* kind_name(int kind) { return kind == 0 ? "u32" : kind == 1 ? "i32" : "f32"; }

TEST_F(SortGpu, KeysEveryModeSizeAndDistribution) {
  const std::size_t sizes[] = {0, 1, 2, 3, 1023, 1024, 1025, 8193, 50000, (1u << 20) + 7};
  for (int kind : {0, 1, 2}) {
    for (sort_order order : {sort_order::ascending, sort_order::descending}) {
      for (std::size_t n : sizes) {
        for (test::dist d : test::all_dists) {
          if (d == test::dist::float_specials && kind != 2) continue;
          const std::vector<std::uint32_t> keys = test::make_keys(n, d, kind);
          const auto want = test::expected_keys(keys, kind, order);
          for (sync_mode m : all_gpu_sync_modes()) {
            // The largest size: every mode on random data, the other distributions with flag.
            if (n > 100000 && d != test::dist::random && m != sync_mode::flag) continue;
            const auto got = run_keys(keys, kind, {.mode = m, .order = order});
            EXPECT_EQ(got, want) << kind_name(kind) << " n=" << n << " " << test::dist_name(d) << " "
                                 << to_string(m) << (order == sort_order::ascending ? " asc" : " desc");
          }
        }
      }
    }
  }
}

TEST_F(SortGpu, PairsAllSurvive) {
  for (std::size_t n : {0u, 1u, 2u, 3u, 1023u, 1024u, 1025u, 5000u, (1u << 20) + 7}) {
    for (sort_order order : {sort_order::ascending, sort_order::descending}) {
      for (sync_mode m : all_gpu_sync_modes()) {
        if (n > 100000 && m != sync_mode::flag && m != sync_mode::cpu && m != sync_mode::cg) continue;
        const std::vector<std::uint32_t> k = test::make_keys(n, test::dist::few_distinct, 0);
        const std::vector<std::uint32_t> v = test::make_keys(n, test::dist::random, 0);
        const auto want = test::expected_pairs(k, v, order);
        dev_words dk(n), dv(n);
        ok(cudaMemcpy(dk.p, k.data(), n * 4, cudaMemcpyHostToDevice));
        ok(cudaMemcpy(dv.p, v.data(), n * 4, cudaMemcpyHostToDevice));
        s_->sort_pairs(dk.p, dv.p, n, {.mode = m, .order = order});
        ok(cudaDeviceSynchronize());
        std::vector<std::uint32_t> gk(n), gv(n);
        ok(cudaMemcpy(gk.data(), dk.p, n * 4, cudaMemcpyDeviceToHost));
        ok(cudaMemcpy(gv.data(), dv.p, n * 4, cudaMemcpyDeviceToHost));
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) bad += std::make_pair(gk[i], gv[i]) != want[i];
        EXPECT_EQ(bad, 0u) << "n=" << n << " " << to_string(m);
      }
    }
  }
}

TEST_F(SortGpu, FloatsWithNanFollowTotalOrder) {
  std::vector<std::uint32_t> k = test::make_keys(3000, test::dist::float_specials, 2);
  for (std::size_t i = 0; i < k.size(); i += 7) k[i] = (i % 2) ? 0x7fc00000u : 0xffc00001u;
  for (sort_order order : {sort_order::ascending, sort_order::descending})
    EXPECT_EQ(run_keys(k, 2, {.mode = sync_mode::stripe, .order = order}), test::expected_keys(k, 2, order));
}

}  // namespace
}  // namespace swat::sort

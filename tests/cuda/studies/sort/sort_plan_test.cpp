// Host-side bitonic planning: padding, step schedule (equals Batcher's network in order),
// key encoding, and the CPU executor of the device schedule vs std::sort (runs in CI).

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <tuple>

#include "common/error.hpp"
#include "cuda/studies/sort/sort_index.hpp"
#include "sort_test_util.hpp"

namespace swat::sort {
namespace {

TEST(SortPlan, PadsToPowerOfTwo) {
  EXPECT_EQ(make_sort_plan(0, false).steps, 0);
  EXPECT_EQ(make_sort_plan(1, false).steps, 0);
  EXPECT_EQ(make_sort_plan(1, false).barriers(), 0);
  const sort_plan two = make_sort_plan(2, false);
  EXPECT_EQ(two.padded_log2, 1);
  EXPECT_EQ(two.steps, 1);
  EXPECT_EQ(two.tiles, 1);
  EXPECT_EQ(make_sort_plan(3, false).padded_log2, 2);
  EXPECT_EQ(make_sort_plan(1024, false).padded_log2, 10);
  EXPECT_EQ(make_sort_plan(1025, false).padded_log2, 11);
  const sort_plan big = make_sort_plan((1u << 20) + 7, false);
  EXPECT_EQ(big.padded_log2, 21);
  EXPECT_EQ(big.tile_log2, 13);
  EXPECT_EQ(big.tiles, 1 << 8);
  // k = 2^14 .. 2^21: 1..8 global strides in steps of <= 3 (1,1,1,2,2,2,3,3) and one local
  // merge each, plus the local sort.
  EXPECT_EQ(big.global_steps, 15);
  EXPECT_EQ(big.steps, 1 + 15 + 8);
  EXPECT_EQ(make_sort_plan((1u << 20) + 7, true).tile_log2, 12);
  EXPECT_LE(big.smem_bytes(), 48u * 1024u);
  EXPECT_THROW(make_sort_plan((std::size_t{1} << 31) + 1, false), usage_error);
  EXPECT_EQ(default_blocks(big, 264), 256);
  EXPECT_EQ(default_blocks(big, 1000), 256);  // no more blocks than tiles
  EXPECT_EQ(default_blocks(make_sort_plan(3, false), 264), 1);
  EXPECT_THROW(default_blocks(big, 0), usage_error);
}

// The schedule, flattened into (k, j) strides, must be Batcher's network in order.
TEST(SortPlan, ScheduleIsTheBitonicNetwork) {
  for (int t_log : {1, 3, 13}) {
    for (int p_log = 1; p_log <= 18; ++p_log) {
      std::vector<std::pair<int, int>> want, got;
      for (int k = 1; k <= p_log; ++k)
        for (int j = k - 1; j >= 0; --j) want.emplace_back(k, j);
      const int steps = detail::step_count(p_log, t_log);
      for (int s = 0; s < steps; ++s) {
        const detail::sort_step st = detail::step_at(s, p_log, t_log);
        if (st.kind == detail::step_global) {
          EXPECT_GE(st.j_log - st.levels + 1, t_log);
          EXPECT_GE(st.levels, 1);
          EXPECT_LE(st.levels, detail::global_levels);
          for (int j = st.j_log; j > st.j_log - st.levels; --j) got.emplace_back(st.k_log, j);
        } else if (st.kind == detail::step_local_sort) {
          EXPECT_EQ(s, 0);
          for (int k = 1; k <= st.k_log; ++k)
            for (int j = k - 1; j >= 0; --j) got.emplace_back(k, j);
        } else {
          for (int j = st.j_log; j >= 0; --j) got.emplace_back(st.k_log, j);
        }
      }
      EXPECT_EQ(got, want) << "p=" << p_log << " t=" << t_log;
    }
  }
}

TEST(SortPlan, EncodingIsOrderPreserving) {
  const float values[] = {-INFINITY, -3.5f, -1e-30f, -0.0f, 0.0f, 1e-30f, 2.0f, INFINITY};
  for (bool desc : {false, true}) {
    for (std::size_t i = 0; i + 1 < std::size(values); ++i) {
      const auto a = detail::encode_key(std::bit_cast<std::uint32_t>(values[i]), detail::key_f32, desc);
      const auto b = detail::encode_key(std::bit_cast<std::uint32_t>(values[i + 1]), detail::key_f32, desc);
      EXPECT_EQ(a < b, !desc) << values[i];
    }
    const std::int32_t ints[] = {INT32_MIN, -5, -1, 0, 1, INT32_MAX};
    for (std::size_t i = 0; i + 1 < std::size(ints); ++i)
      EXPECT_EQ(detail::encode_key(std::bit_cast<std::uint32_t>(ints[i]), detail::key_i32, desc) <
                    detail::encode_key(std::bit_cast<std::uint32_t>(ints[i + 1]), detail::key_i32, desc),
                !desc);
    for (std::uint32_t bits : {0u, 1u, 0x7fc00000u, 0xffc00000u, 0x80000000u, 0xffffffffu})
      for (int kind : {0, 1, 2})
        EXPECT_EQ(detail::decode_key(detail::encode_key(bits, kind, desc), kind, desc), bits);
  }
  // NaN: positive NaN after +inf, negative NaN before -inf.
  EXPECT_GT(detail::encode_key(0x7fc00000u, detail::key_f32, false),
            detail::encode_key(0x7f800000u, detail::key_f32, false));
  EXPECT_LT(detail::encode_key(0xffc00000u, detail::key_f32, false),
            detail::encode_key(0xff800000u, detail::key_f32, false));
}

TEST(SortPlan, CpuScheduleSortsLikeStdSort) {
  for (std::size_t n : {0u, 1u, 2u, 3u, 1023u, 1024u, 1025u, 20000u, (1u << 15) + 7}) {
    for (int kind : {0, 1, 2}) {
      for (test::dist d : test::all_dists) {
        for (sort_order o : {sort_order::ascending, sort_order::descending}) {
          std::vector<std::uint32_t> k = test::make_keys(n, d, kind);
          const auto want = test::expected_keys(k, kind, o);
          reference_sort(make_sort_plan(n, false), k, nullptr, kind, o);
          EXPECT_EQ(k, want) << n << " " << kind << " " << test::dist_name(d);
        }
      }
    }
    for (sort_order o : {sort_order::ascending, sort_order::descending}) {
      std::vector<std::uint32_t> k = test::make_keys(n, test::dist::few_distinct, 0);
      std::vector<std::uint32_t> v = test::make_keys(n, test::dist::random, 0);
      const auto want = test::expected_pairs(k, v, o);
      reference_sort(make_sort_plan(n, true), k, &v, 0, o);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(std::make_pair(k[i], v[i]), want[i]) << n << " @" << i;
    }
  }
}

}  // namespace
}  // namespace swat::sort

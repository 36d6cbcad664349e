// Code layouts (host only): every cell gets its own position inside the buffer, diagonals start
// even (diagonal) or on 128-byte boundaries (coalesced), tiles sit in aligned chunks.

#include "cuda/engines/paper/code_layout.hpp"

#include <gtest/gtest.h>

#include <set>

#include "common/error.hpp"

namespace swat::paper {
namespace {

void expect_injective(const code_layout& l) {
  std::set<std::int64_t> seen;
  for (std::int64_t i = 1; i <= l.rows(); ++i)
    for (std::int64_t j = 1; j <= l.cols(); ++j) {
      const std::int64_t p = l.position(i, j);
      ASSERT_GE(p, 0);
      ASSERT_LT(p, l.total_cells());
      ASSERT_TRUE(seen.insert(p).second) << i << "," << j;
    }
  EXPECT_EQ(l.total_cells() % 2, 0);
}

TEST(CodeLayout, EveryCellHasItsOwnPosition) {
  for (auto [m, n] : {std::pair{1, 1}, {1, 7}, {7, 1}, {3, 40}, {33, 31}, {64, 64}, {129, 5}})
    for (kernel_kind k : {kernel_kind::diagonal, kernel_kind::coalesced, kernel_kind::tiled})
      for (int tile : {0, 1, 7, 16}) expect_injective(code_layout(k, m, n, tile));
}

TEST(CodeLayout, DiagonalStartsAreAligned) {
  const code_layout simple(kernel_kind::diagonal, 100, 70);
  const code_layout coalesced(kernel_kind::coalesced, 100, 70);
  for (std::int64_t d = 2; d <= 170; ++d) {
    EXPECT_EQ(simple.diagonal_starts()[d] % 2, 0);
    EXPECT_EQ(coalesced.diagonal_starts()[d] % 256, 0);
  }
  EXPECT_LT(simple.padding_overhead(), 0.02);
  EXPECT_GT(coalesced.padding_overhead(), simple.padding_overhead());
}

TEST(CodeLayout, NamesAndTileLimits) {
  EXPECT_EQ(parse_kernel_kind("auto"), kernel_kind::coalesced);
  EXPECT_EQ(parse_kernel_kind("simple"), kernel_kind::diagonal);
  EXPECT_THROW(parse_kernel_kind("bogus"), usage_error);
  EXPECT_THROW(code_layout(kernel_kind::tiled, 10, 10, max_tile + 1), usage_error);
  EXPECT_EQ(code_layout(kernel_kind::tiled, 10, 10).tile(), default_tile);
}

}  // namespace
}  // namespace swat::paper

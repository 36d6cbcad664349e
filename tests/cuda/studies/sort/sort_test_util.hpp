#pragma once
// Inputs and expected outputs for the sort tests (host and GPU): the distributions of the
// issue and std::sort references in the documented order (f32: IEEE 754 totalOrder).

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cuda/studies/sort/sort.hpp"

namespace swat::sort::test {

//! Input distributions.
enum class dist { random, sorted, reverse, all_equal, few_distinct, float_specials };
inline const dist all_dists[] = {dist::random, dist::sorted, dist::reverse, dist::all_equal,
                                 dist::few_distinct, dist::float_specials};
inline std::string dist_name(dist d) {
  const char* names[] = {"random", "sorted", "reverse", "all-equal", "few-distinct", "float-specials"};
  return names[static_cast<int>(d)];
}

inline std::mt19937_64& rng() {
  static std::mt19937_64 r(std::random_device{}());
  return r;
}

//! Key bits for kind (0 u32, 1 i32, 2 f32): fresh random draw of the distribution.
inline std::vector<std::uint32_t> make_keys(std::size_t n, dist d, int kind) {
  std::vector<std::uint32_t> k(n);
  std::uniform_int_distribution<std::uint32_t> any;
  std::uniform_real_distribution<float> real(-1e6f, 1e6f);
  const auto draw = [&]() -> std::uint32_t {
    return kind == 2 ? std::bit_cast<std::uint32_t>(real(rng())) : any(rng());
  };
  for (auto& v : k) v = draw();
  const std::uint32_t few[] = {draw(), draw(), draw(), 0u, 0x80000000u};
  switch (d) {
    case dist::random: break;
    case dist::sorted:
    case dist::reverse: {
      // sorted by value (totalOrder for floats), then optionally reversed
      auto key = [kind](std::uint32_t b) {
        if (kind == 1) return b ^ 0x80000000u;
        if (kind == 2) return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
        return b;
      };
      std::sort(k.begin(), k.end(), [&](auto a, auto b) { return key(a) < key(b); });
      if (d == dist::reverse) std::reverse(k.begin(), k.end());
      break;
    }
    case dist::all_equal: std::fill(k.begin(), k.end(), few[0]); break;
    case dist::few_distinct:
      for (auto& v : k) v = few[rng()() % 5];
      break;
    case dist::float_specials: {
      const std::uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                        0x00000001u, 0x80000001u, 0x7f7fffffu, 0xff7fffffu,
                                        0xffffffffu, 0x7fffffffu};
      for (auto& v : k)
        if (rng()() % 2) v = specials[rng()() % 10];
      break;
    }
  }
  return k;
}

//! Expected sort of the key bits: by encoded key (the documented total order).
inline std::vector<std::uint32_t> expected_keys(std::vector<std::uint32_t> k, int kind, sort_order o) {
  auto key = [kind](std::uint32_t b) {
    if (kind == 1) return b ^ 0x80000000u;
    if (kind == 2) return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    return b;
  };
  if (o == sort_order::ascending) {
    std::sort(k.begin(), k.end(), [&](auto a, auto b) { return key(a) < key(b); });
  } else {
    std::sort(k.begin(), k.end(), [&](auto a, auto b) { return key(a) > key(b); });
  }
  return k;
}

//! Expected sort of pairs by (key, value).
inline std::vector<std::pair<std::uint32_t, std::uint32_t>> expected_pairs(
    const std::vector<std::uint32_t>& k, const std::vector<std::uint32_t>& v, sort_order o) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> p(k.size());
  for (std::size_t i = 0; i < k.size(); ++i) p[i] = {k[i], v[i]};
  if (o == sort_order::ascending) {
    std::sort(p.begin(), p.end());
  } else {
    std::sort(p.begin(), p.end(), std::greater<>());
  }
  return p;
}

}  // namespace swat::sort::test

// The order of a batch's strips (fast_fill.hpp, plan_batch_order): plain host code.

#include <algorithm>
#include <stdexcept>

#include "cuda/engines/fast/fast_fill.hpp"

namespace swat::fast {

batch_order plan_batch_order(std::span<const std::int64_t> strips) {
  batch_order out;
  out.order.resize(strips.size());
  for (std::size_t k = 0; k < strips.size(); ++k) {
    if (strips[k] < 1) throw std::invalid_argument("sw_fast: a pair of a batch has no strip");
    out.order[k] = k;
  }
  std::stable_sort(out.order.begin(), out.order.end(), [&](std::size_t a, std::size_t b) { return strips[a] > strips[b]; });
  const std::int64_t levels = strips.empty() ? 0 : strips[out.order.front()];
  // Level s: strip s of the problems with more than s strips (a prefix: they are sorted).
  out.level_first.assign(1, 0);
  std::int64_t total = 0;
  std::size_t active = strips.size();
  for (std::int64_t s = 0; s < levels; ++s) {
    while (active > 0 && strips[out.order[active - 1]] <= s) --active;
    total += std::int64_t(active);
    if (total >= (1ll << 31) - 1) throw std::invalid_argument("sw_fast: a batch of fills has too many strips");
    out.level_first.push_back(std::int32_t(total));
  }
  return out;
}

}  // namespace swat::fast

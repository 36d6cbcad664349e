// Host half of the bitonic sort: planning and the CPU executor of the device schedule
// (sort.hpp, sort_index.hpp). Built in every configuration (library swat_sort_host).

#include <string>
#include <utility>

#include "common/error.hpp"
#include "cuda/studies/sort/sort.hpp"
#include "cuda/studies/sort/sort_index.hpp"

namespace swat::sort {

sort_plan make_sort_plan(std::size_t n, bool pairs) {
  if (n > (std::size_t{1} << 31)) throw usage_error("sort: at most 2^31 items, got " + std::to_string(n));
  const detail::sort_policy pol = pairs ? detail::u64_policy : detail::u32_policy;
  sort_plan plan;
  plan.n = n;
  plan.pairs = pairs;
  plan.block_threads = pol.block_threads;
  if (n <= 1) return plan;
  int p = 0;
  while ((std::size_t{1} << p) < n) ++p;
  plan.padded_log2 = p;
  plan.tile_log2 = detail::tile_log(p, pol.tile_log2);
  plan.steps = detail::step_count(p, pol.tile_log2);
  for (int s = 0; s < plan.steps; ++s)
    plan.global_steps += detail::step_at(s, p, pol.tile_log2).kind == detail::step_global ? 1 : 0;
  plan.tiles = 1LL << (p - plan.tile_log2);
  return plan;
}

int default_blocks(const sort_plan& plan, int cap) {
  if (cap < 1) throw usage_error("sort: the persistent kernel cannot be resident (cap 0)");
  long long blocks = 1;
  while (blocks * 2 <= cap && blocks * 2 <= plan.tiles) blocks *= 2;
  return static_cast<int>(blocks);
}

void reference_sort(const sort_plan& plan, std::vector<std::uint32_t>& keys,
                    std::vector<std::uint32_t>* values, int kind, sort_order order) {
  if (plan.steps == 0) return;
  const bool desc = order == sort_order::descending;
  const long long words = 1LL << plan.padded_log2;
  std::vector<std::uint64_t> w(static_cast<std::size_t>(words), ~std::uint64_t{0});
  for (std::size_t i = 0; i < plan.n; ++i) {
    const std::uint64_t k = detail::encode_key(keys[i], kind, desc);
    w[i] = plan.pairs ? (k << 32) | (desc ? ~(*values)[i] : (*values)[i]) : k;
  }
  if (!plan.pairs)
    for (std::size_t i = plan.n; i < w.size(); ++i) w[i] = 0xffffffffu;
  const int t_log = plan.pairs ? detail::u64_policy.tile_log2 : detail::u32_policy.tile_log2;
  const auto exchange = [&](long long i, int j_log, int k_log) {
    const long long partner = i + (1LL << j_log);
    const bool up = detail::ascending_at(i, k_log);
    if ((w[i] > w[partner]) == up) std::swap(w[i], w[partner]);
  };
  for (int s = 0; s < plan.steps; ++s) {
    const detail::sort_step st = detail::step_at(s, plan.padded_log2, t_log);
    if (st.kind == detail::step_global) {
      for (int j_log = st.j_log; j_log > st.j_log - st.levels; --j_log)
        for (long long c = 0; c < words / 2; ++c) exchange(detail::comparator_low(c, j_log), j_log, st.k_log);
      continue;
    }
    const int k_first = st.kind == detail::step_local_sort ? 1 : st.k_log;
    for (int k_log = k_first; k_log <= st.k_log; ++k_log)
      for (int j_log = (st.kind == detail::step_local_sort ? k_log - 1 : st.j_log); j_log >= 0; --j_log)
        for (long long c = 0; c < words / 2; ++c) exchange(detail::comparator_low(c, j_log), j_log, k_log);
  }
  for (std::size_t i = 0; i < plan.n; ++i) {
    keys[i] = detail::decode_key(static_cast<std::uint32_t>(plan.pairs ? w[i] >> 32 : w[i]), kind, desc);
    if (plan.pairs) (*values)[i] = static_cast<std::uint32_t>(desc ? ~w[i] : w[i]);
  }
}

}  // namespace swat::sort

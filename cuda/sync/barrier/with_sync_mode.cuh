#pragma once
// The one place where a runtime sync mode becomes a template argument (as in CUB's dispatch
// layer). Every persistent kernel is a template over its mode M; its dispatch file writes
//
//   with_sync_mode(mode, [&](auto m) { launch_cooperative(dev, kernel<decltype(m)::value>, …); });
//
// and for_each_persistent_mode() visits every instantiation (e.g. for the smallest co-resident
// grid that fits all of them). Launch-based modes (cpu, cpu-explicit, graph) have no persistent
// kernel: they run through run_synchronised() (step_driver.cuh).

#include <string>
#include <type_traits>

#include "common/error.hpp"
#include "engine/sync_mode.hpp"

namespace swat::barrier {

//! The mode M as a type: what with_sync_mode hands its callable.
template <sync_mode M>
using mode_constant = std::integral_constant<sync_mode, M>;

//! Calls f(mode_constant<M>{}) for the persistent mode (none included) and returns its result;
//! throws usage_error for a launch-based mode.
template <typename f_t>
decltype(auto) with_sync_mode(sync_mode mode, f_t&& f) {
  switch (mode) {
    case sync_mode::simple: return f(mode_constant<sync_mode::simple>{});
    case sync_mode::tree: return f(mode_constant<sync_mode::tree>{});
    case sync_mode::tree3: return f(mode_constant<sync_mode::tree3>{});
    case sync_mode::lockfree: return f(mode_constant<sync_mode::lockfree>{});
    case sync_mode::cg: return f(mode_constant<sync_mode::cg>{});
    case sync_mode::flag: return f(mode_constant<sync_mode::flag>{});
    case sync_mode::stripe: return f(mode_constant<sync_mode::stripe>{});
    case sync_mode::lastin: return f(mode_constant<sync_mode::lastin>{});
    case sync_mode::none: return f(mode_constant<sync_mode::none>{});
    default:
      throw usage_error("sync mode '" + std::string(to_string(mode)) +
                        "' is launch-based: it has no persistent kernel");
  }
}

//! Calls f(mode_constant<M>{}) for every persistent mode, none last.
template <typename f_t>
void for_each_persistent_mode(f_t&& f) {
  f(mode_constant<sync_mode::simple>{});
  f(mode_constant<sync_mode::tree>{});
  f(mode_constant<sync_mode::tree3>{});
  f(mode_constant<sync_mode::lockfree>{});
  f(mode_constant<sync_mode::cg>{});
  f(mode_constant<sync_mode::flag>{});
  f(mode_constant<sync_mode::stripe>{});
  f(mode_constant<sync_mode::lastin>{});
  f(mode_constant<sync_mode::none>{});
}

}  // namespace swat::barrier

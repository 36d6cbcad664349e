// The benchmark registry (see bench_registry.hpp).

#include "cli/bench_registry.hpp"

#include <stdexcept>

namespace swat::cli {

void bench_registry::add(bench_entry entry) {
  if (!entry.main) throw std::logic_error("benchmark '" + entry.name + "' registered without a main");
  if (find(entry.name) != nullptr) throw std::logic_error("benchmark '" + entry.name + "' registered twice");
  entries_.push_back(std::move(entry));
}

const bench_entry* bench_registry::find(std::string_view name) const {
  for (const bench_entry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace swat::cli

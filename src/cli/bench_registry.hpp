#pragma once
// The benchmark registry behind `swat-gpu bench NAME`: every benchmark library under bench/
// registers its entry from its own code (a `register_benches(bench_registry&)` function), and
// CMake generates the list this build has (src/engine/registry.cmake). The CLI dispatches
// through it and never includes bench/.

#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace swat::cli {

//! One benchmark.
struct bench_entry {
  std::string name;        //!< `swat-gpu bench NAME`
  std::string summary;     //!< one line of `swat-gpu bench --help`
  bool needs_gpu = false;  //!< marked [GPU] in the help
  //! Parses args (the words after NAME; --help lists them), runs and returns the exit code.
  //! Throws usage_error (exit 2) or runtime_failure (exit 1).
  std::function<int(const std::vector<std::string>& args)> main;
};

//! The benchmarks of a build.
class bench_registry {
 public:
  //! Adds an entry; throws std::logic_error when its name is taken.
  void add(bench_entry entry);
  //! The entry called name, or null.
  const bench_entry* find(std::string_view name) const;
  //! Every entry, in registration order.
  const std::deque<bench_entry>& entries() const { return entries_; }

 private:
  std::deque<bench_entry> entries_;
};

//! Every benchmark of this build: the registrations CMake listed (swat_register_benches()).
const bench_registry& built_benches();

}  // namespace swat::cli

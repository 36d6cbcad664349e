// Sync mode names (see sync_mode.hpp).

#include "engine/sync_mode.hpp"

#include <array>

#include "common/error.hpp"

namespace swat {
namespace {

struct mode_name {
  sync_mode mode;
  std::string_view name;
};

constexpr std::array<mode_name, 12> mode_names{{
    {sync_mode::cpu, "cpu"},
    {sync_mode::cpu_explicit, "cpu-explicit"},
    {sync_mode::graph, "graph"},
    {sync_mode::simple, "simple"},
    {sync_mode::tree, "tree"},
    {sync_mode::tree3, "tree3"},
    {sync_mode::lockfree, "lockfree"},
    {sync_mode::cg, "cg"},
    {sync_mode::flag, "flag"},
    {sync_mode::stripe, "stripe"},
    {sync_mode::lastin, "lastin"},
    {sync_mode::none, "none"},
}};

constexpr std::array<sync_mode, 11> gpu_modes{
    sync_mode::cpu,  sync_mode::cpu_explicit, sync_mode::graph,    sync_mode::simple,
    sync_mode::tree, sync_mode::tree3,        sync_mode::lockfree, sync_mode::cg,
    sync_mode::flag, sync_mode::stripe,       sync_mode::lastin};

constexpr std::array<sync_mode, 8> persistent_modes{
    sync_mode::simple, sync_mode::tree, sync_mode::tree3,  sync_mode::lockfree,
    sync_mode::cg,     sync_mode::flag, sync_mode::stripe, sync_mode::lastin};

}  // namespace

sync_mode parse_sync_mode(std::string_view name, bool allow_none) {
  if (name == "tree2") return sync_mode::tree;
  if (name == "cpu_explicit") return sync_mode::cpu_explicit;
  for (const auto& entry : mode_names) {
    if (entry.name == name && (entry.mode != sync_mode::none || allow_none)) return entry.mode;
  }
  throw usage_error("unknown sync mode '" + std::string(name) + "'; valid: " + sync_mode_names());
}

std::string_view to_string(sync_mode mode) {
  for (const auto& entry : mode_names) {
    if (entry.mode == mode) return entry.name;
  }
  throw usage_error("invalid sync_mode value " + std::to_string(static_cast<int>(mode)));
}

std::string sync_mode_names() {
  std::string names;
  for (sync_mode mode : gpu_modes) {
    if (!names.empty()) names += ", ";
    names += to_string(mode);
  }
  return names + " (tree2 = tree)";
}

bool is_persistent(sync_mode mode) {
  switch (mode) {
    case sync_mode::cpu:
    case sync_mode::cpu_explicit:
    case sync_mode::graph:
      return false;
    case sync_mode::simple:
    case sync_mode::tree:
    case sync_mode::tree3:
    case sync_mode::lockfree:
    case sync_mode::cg:
    case sync_mode::flag:
    case sync_mode::stripe:
    case sync_mode::lastin:
    case sync_mode::none:
      return true;
  }
  throw usage_error("invalid sync_mode value " + std::to_string(static_cast<int>(mode)));
}

std::span<const sync_mode> all_gpu_sync_modes() { return gpu_modes; }

std::span<const sync_mode> persistent_sync_modes() { return persistent_modes; }

}  // namespace swat

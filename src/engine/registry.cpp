// The engine registry, option resolution and engine construction (see registry.hpp).

#include "engine/registry.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/error.hpp"
#include "engine/fallback.hpp"

namespace swat {

void engine_registry::add(engine_entry entry) {
  if (!entry.make) throw std::logic_error("engine '" + entry.name + "' registered without a factory");
  std::vector<std::string> names = entry.aliases;
  names.push_back(entry.name);
  for (const std::string& n : names)
    if (find(n) != nullptr) throw std::logic_error("engine name '" + n + "' registered twice");
  entries_.push_back(std::move(entry));
}

void engine_registry::set_device_count(std::function<int()> device_count) {
  device_count_ = std::move(device_count);
}

const engine_entry* engine_registry::find(std::string_view name) const {
  for (const engine_entry& e : entries_) {
    if (e.name == name) return &e;
    if (std::find(e.aliases.begin(), e.aliases.end(), name) != e.aliases.end()) return &e;
  }
  return nullptr;
}

const engine_entry* engine_registry::cpu_engine() const {
  for (const engine_entry& e : entries_)
    if (e.target == engine_target::cpu) return &e;
  return nullptr;
}

std::string engine_registry::gpu_names(std::string_view sep) const {
  std::string names;
  for (const engine_entry& e : entries_) {
    if (e.target != engine_target::gpu) continue;
    if (!names.empty()) names += sep;
    names += e.name;
  }
  return names;
}

int engine_registry::device_count() const { return device_count_ ? device_count_() : 0; }

namespace {

//! Names of the GPU entries that take --sync, joined by '|'.
std::string sync_takers(const engine_registry& registry) {
  std::string names;
  for (const engine_entry& e : registry.entries())
    if (e.target == engine_target::gpu && e.takes_sync) names += (names.empty() ? "" : "|") + e.name;
  return names;
}

//! --kernel auto: the GPU entry of the highest auto_rank that takes the options (null: none).
const engine_entry* auto_engine(const engine_registry& registry, const engine_options& options) {
  const engine_entry* best = nullptr;
  for (const engine_entry& e : registry.entries()) {
    if (e.target != engine_target::gpu || e.auto_rank <= 0) continue;
    if (options.sync && !e.takes_sync) continue;
    if (best == nullptr || e.auto_rank > best->auto_rank) best = &e;
  }
  return best;
}

//! Why no GPU engine can be built now (empty: one can).
std::string gpu_unusable(const engine_plan& plan) {
  const engine_registry& registry = *plan.registry;
  if (!registry.has_gpu_runtime()) return "this build has no CUDA support (configured with SWAT_WITH_CUDA=OFF)";
  if (plan.gpu == nullptr) return "this build has no GPU alignment engine";
  const int devices = registry.device_count();
  if (devices == 0) return "no CUDA device found";
  if (plan.device.gpu_id >= devices)
    return "CUDA device " + std::to_string(plan.device.gpu_id) + " not found (" + std::to_string(devices) +
           " visible)";
  return {};
}

}  // namespace

engine_plan plan_engine(const engine_registry& registry, device_choice device, std::string_view kernel,
                        engine_options options) {
  engine_plan plan;
  plan.registry = &registry;
  plan.device = device;
  plan.cpu = registry.cpu_engine();
  if (plan.cpu == nullptr) throw std::logic_error("plan_engine: no CPU engine registered");
  const bool named = kernel != "auto";
  if (named) {
    plan.gpu = registry.find(kernel);
    if (plan.gpu == nullptr || plan.gpu->target != engine_target::gpu) {
      const std::string valid = registry.gpu_names();
      throw usage_error("unknown --kernel '" + std::string(kernel) + "' (valid: " +
                        (valid.empty() ? "auto; this build has no GPU engine" : valid + ", auto") + ")");
    }
  } else {
    plan.gpu = auto_engine(registry, options);
  }
  if (options.sync && (named || plan.gpu == nullptr) && (plan.gpu == nullptr || !plan.gpu->takes_sync)) {
    const std::string takers = sync_takers(registry);
    if (takers.empty()) throw usage_error("--sync applies to no engine of this build");
    throw usage_error("--sync applies to --kernel " + takers + ", not to --kernel " + std::string(kernel));
  }
  if (plan.gpu != nullptr && options.tile != 0 && !plan.gpu->takes_tile)
    plan.notices.push_back("--tile applies to --kernel tiled; --kernel " + plan.gpu->name + " ignores it");
  if (plan.gpu != nullptr && plan.gpu->check) plan.gpu->check(options);
  if (device.kind == device_kind::cpu && (named || options.sync || options.tile != 0))
    plan.notices.push_back("--kernel, --sync and --tile choose a GPU engine; --device cpu ignores them");
  plan.gpu_asked = named || options.sync || options.tile != 0;
  plan.options = std::move(options);
  plan.options.gpu_id = device.gpu_id;
  return plan;
}

std::unique_ptr<engine> build_engine(const engine_plan& plan, const notice_fn& notice) {
  for (const std::string& line : plan.notices) notice(line);
  engine_options options = plan.options;
  options.notice = notice;
  if (plan.device.kind == device_kind::cpu) return plan.cpu->make(options);
  const std::string why = gpu_unusable(plan);
  if (why.empty()) return with_cpu_fallback(plan.gpu->make(options), plan.cpu->make(options), notice);
  if (plan.device.kind == device_kind::gpu) throw usage_error("--device gpu: " + why + " (use --device cpu)");
  notice(why + "; aligning on the CPU");
  return plan.cpu->make(options);
}

}  // namespace swat

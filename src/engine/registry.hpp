#pragma once
// The engine registry: --kernel NAME → factory. Every engine library registers its entries from
// its own code (a `register_engines(engine_registry&)` function); CMake generates the list of
// registrations this build has (src/engine/registry.cmake), so neither the pipeline nor the CLI
// names an engine or includes cuda/.
//
//   const engine_plan plan = plan_engine(built_engines(), device, "auto", options);  // CLI, once
//   std::unique_ptr<engine> e = build_engine(plan, notice);                          // engine thread
//
// plan_engine() resolves --device/--kernel/--sync/--tile whatever the device (bad values are
// usage errors on the CPU too; options that do not apply become notices); build_engine() builds
// the GPU engine wrapped in the CPU fallback (fallback.hpp), or the CPU engine.

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.hpp"
#include "engine/options.hpp"

namespace swat {

//! What an engine runs on.
enum class engine_target { cpu, gpu };

//! One engine a build has.
struct engine_entry {
  std::string name;                  //!< --kernel name ("fast", "coalesced"; "cpu" for the CPU)
  std::vector<std::string> aliases;  //!< other names --kernel accepts ("simple" = diagonal)
  engine_target target = engine_target::gpu;  //!< where it fills
  std::string summary;               //!< one line for --version
  int auto_rank = 0;                 //!< --kernel auto: the highest rank that takes the options;
                                     //!< 0: never chosen by auto
  bool takes_sync = false;           //!< accepts --sync
  bool takes_tile = false;           //!< accepts --tile
  //! Checks the options without a device (e.g. the --tile range); throws usage_error. May be empty.
  std::function<void(const engine_options&)> check;
  //! Builds the engine (a GPU engine binds to options.gpu_id); throws on failure.
  std::function<std::unique_ptr<engine>(const engine_options&)> make;
};

//! The engines and the GPU runtime probe of a build (filled by the registration functions).
class engine_registry {
 public:
  //! Adds an entry; throws std::logic_error when its name or an alias is taken.
  void add(engine_entry entry);
  //! Sets the probe of visible GPU devices (registered by cuda/common in CUDA builds).
  void set_device_count(std::function<int()> device_count);

  //! The entry called name (or with that alias); null when there is none.
  const engine_entry* find(std::string_view name) const;
  //! Every entry, in registration order (stable addresses).
  const std::deque<engine_entry>& entries() const { return entries_; }
  //! The first CPU entry (null when none is registered).
  const engine_entry* cpu_engine() const;
  //! Names of the GPU entries, joined by sep ("fast, diagonal, coalesced, tiled").
  std::string gpu_names(std::string_view sep = ", ") const;
  //! True when the build has a GPU runtime (a CUDA build).
  bool has_gpu_runtime() const { return static_cast<bool>(device_count_); }
  //! GPU devices visible now (0 without a runtime, a driver or a device; never throws).
  int device_count() const;

 private:
  std::deque<engine_entry> entries_;
  std::function<int()> device_count_;
};

//! Every engine of this build: the registrations CMake listed (swat_register_engines()).
const engine_registry& built_engines();

//! The engine `swat-gpu align` will build, resolved once from the command line.
struct engine_plan {
  device_choice device;                  //!< --device
  const engine_entry* gpu = nullptr;     //!< GPU engine of --kernel (null: this build has none)
  const engine_entry* cpu = nullptr;     //!< the CPU engine (also the GPU engine's fallback)
  engine_options options;                //!< what every engine receives
  std::vector<std::string> notices;      //!< options that do not apply (said when built)
  const engine_registry* registry = nullptr;  //!< for the device probe
  //! --kernel, --sync or --tile chose a GPU engine (the planner then leaves --device auto alone).
  bool gpu_asked = false;
};

//! Resolves --kernel (a name, an alias or "auto": the GPU entry of the highest auto_rank that
//! takes the given --sync), checks --sync and --tile against it and runs its check() whatever
//! the device. Throws usage_error naming the option for an unknown kernel or a --sync the
//! kernel does not take; a --tile the kernel ignores, or GPU options with --device cpu, become
//! notices. The registry must outlive the plan.
engine_plan plan_engine(const engine_registry& registry, device_choice device, std::string_view kernel,
                        engine_options options);

//! Builds the plan's engine, saying its notices first (through notice, without a prefix):
//! --device cpu → the CPU engine; a usable GPU → its engine wrapped in with_cpu_fallback();
//! no usable GPU → usage_error "--device gpu: why (use --device cpu)", or for auto the CPU engine
//! with the notice "why; aligning on the CPU". Engines send their notices to notice too.
std::unique_ptr<engine> build_engine(const engine_plan& plan, const notice_fn& notice);

}  // namespace swat

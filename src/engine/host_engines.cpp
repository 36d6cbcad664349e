// Registration of the engines built on the host: the multithreaded CPU engine ("cpu"), which
// also takes the pairs a GPU engine cannot (fallback.hpp).

#include "engine/cpu_engine.hpp"
#include "engine/registry.hpp"

namespace swat {

//! Adds the CPU engine to registry (listed by src/engine/CMakeLists.txt).
void register_host_engines(engine_registry& registry) {
  engine_entry cpu;
  cpu.name = "cpu";
  cpu.target = engine_target::cpu;
  cpu.summary = "multithreaded CPU engine: AVX2 striped score pass, bounded-memory traceback";
  cpu.make = [](const engine_options& o) -> std::unique_ptr<engine> {
    return std::make_unique<cpu_engine>(o.cpu_threads, static_cast<std::size_t>(o.cpu_memory_bytes), o.notice);
  };
  registry.add(std::move(cpu));
}

}  // namespace swat

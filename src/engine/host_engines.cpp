// Registration of the engines built on the host: the multithreaded CPU engine ("cpu"), which
// also takes the pairs a GPU engine cannot (fallback.hpp).

#include "engine/cpu_engine.hpp"
#include "engine/windows.hpp"
#include "engine/registry.hpp"

namespace swat {

//! Adds the CPU engine to registry (listed by src/engine/CMakeLists.txt).
void register_host_engines(engine_registry& registry) {
  engine_entry cpu;
  cpu.name = "cpu";
  cpu.target = engine_target::cpu;
  cpu.summary = "multithreaded CPU engine: 8-bit SIMD lanes (targets or row bands), bounded-memory traceback";
  cpu.make = [](const engine_options& o) -> std::unique_ptr<engine> {
    // Tall, thin pairs as windows: spread over the threads (engine/windows.hpp), unless a pair
    // holds a small share of the work.
    auto cpu = std::make_unique<cpu_engine>(o.cpu_threads, static_cast<std::size_t>(o.cpu_memory_bytes), o.notice);
    window_limits limits;
    limits.share_threads = cpu->threads();  // pairs small enough to keep the threads busy stay whole
    // Windows stay four overlaps wide at the narrowest (window_limits), though a gene's overlap is
    // twice its length: genes against genomes on 16 threads scanned 23 % of their cells twice at
    // four and 12 % at six, but the GPU machine's Xeon runs some of its cores at half speed at
    // times, and six overlaps' windows (a thread's whole share each) then set the makespan: 2.2-2.9 s
    // against 2.0-2.3 s at four (4711be3 against dae8d40).
    // Windows fill the 32 lanes of a batch's last round (64-lane batches hold twice as many).
    limits.lane_multiple = cpu->interseq_lanes() > 0 ? 32 : 0;
    return with_windows(std::move(cpu), limits);
  };
  registry.add(std::move(cpu));
}

}  // namespace swat

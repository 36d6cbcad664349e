#pragma once
// The paper engines (Xiao, Aji & Feng 2009) behind swat::engine (plain C++): diagonal ("simple"),
// coalesced and tiled wavefront under any sync mode; fill on the GPU, traceback on the CPU.
// They register as --kernel diagonal|coalesced|tiled (register_engines); pairs whose traceback
// codes do not fit the GPU memory are refused (unfit_reason) and go to the CPU engine through
// the fallback decorator (engine/fallback.hpp).

#include <memory>

#include "cuda/engines/paper/code_layout.hpp"
#include "engine/engine.hpp"
#include "engine/options.hpp"

namespace swat {
class engine_registry;
}

namespace swat::paper {

//! The paper engine "gpu-<kernel>" on device options.gpu_id; options.sync (default simple, the
//! persistent mode measured fastest on the H100) and options.tile (tiled only) apply.
std::unique_ptr<swat::engine> make_paper_engine(kernel_kind kernel, const engine_options& options);

//! Registers diagonal (alias simple), coalesced (--kernel auto when --sync is given) and tiled.
void register_engines(engine_registry& registry);

}  // namespace swat::paper

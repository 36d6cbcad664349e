#pragma once
// The one GPU→CPU fallback: a decorator around any GPU engine. Before each pair it asks the
// GPU engine whether it can take it (engine::unfit_reason: GPU memory for the traceback, the
// integer range of its scores, …); a pair it cannot take, or one whose GPU run runs out of host
// memory, is aligned by the CPU engine instead, with a notice. The GPU engines own no CPU engine.

#include <memory>

#include "engine/engine.hpp"
#include "engine/options.hpp"

namespace swat {

//! gpu wrapped so that the pairs it cannot take go to cpu. Each distinct reason is said once
//! through notice as "<gpu name>: <reason>; aligning this pair with the CPU engine". The result
//! has gpu's name.
std::unique_ptr<engine> with_cpu_fallback(std::unique_ptr<engine> gpu, std::unique_ptr<engine> cpu,
                                          notice_fn notice);

}  // namespace swat

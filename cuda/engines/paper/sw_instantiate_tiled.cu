// Launch functions of the tiled engine, every sync mode (one file per engine: parallel builds).

#include "cuda/engines/paper/sw_launch_impl.cuh"

namespace swat::paper {
SWAT_SW_INSTANTIATE(tiled_algo)
}  // namespace swat::paper

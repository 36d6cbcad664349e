// Launch functions of the tiled engine, every sync mode (one file per engine: parallel builds).

#include "cuda/sw/sw_launch_impl.cuh"

namespace swat::sw {
SWAT_SW_INSTANTIATE(tiled_algo)
}  // namespace swat::sw

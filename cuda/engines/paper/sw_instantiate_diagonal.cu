// Launch functions of the diagonal engine, every sync mode (one file per engine: parallel builds).

#include "cuda/engines/paper/sw_launch_impl.cuh"

namespace swat::paper {
SWAT_SW_INSTANTIATE(diagonal_algo<simple_layout>)
}  // namespace swat::paper

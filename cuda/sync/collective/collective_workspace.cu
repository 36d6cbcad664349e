// Exchange slots of the grid collectives (see collective_workspace.cuh).

#include "cuda/sync/collective/collective_workspace.cuh"

#include <string>

#include "common/error.hpp"
#include "cuda/sync/collective/block_reduce.cuh"
#include "cuda/common/cuda_check.cuh"

namespace swat::collective {

collective_workspace::collective_workspace(int max_blocks) : max_blocks_(max_blocks) {
  if (max_blocks < 1)
    throw usage_error("collective_workspace: max_blocks must be >= 1, got " +
                      std::to_string(max_blocks));
  slots_.reserve(2ull * max_blocks * detail::max_value_bytes);
}

collective_handle collective_workspace::handle(int n_blocks) const {
  if (n_blocks < 1 || n_blocks > max_blocks_)
    throw usage_error("collective_workspace: grid of " + std::to_string(n_blocks) +
                      " blocks outside 1.." + std::to_string(max_blocks_));
  return collective_handle{slots_.as<unsigned char>(), n_blocks};
}

}  // namespace swat::collective

#pragma once
// Host owner of the exchange slots of the grid collectives (grid_collective.cuh).

#include "cuda/common/device_buffer.hpp"
#include "cuda/sync/collective/collective_handle.hpp"

namespace swat::collective {

//! Device slots for collectives over grids of up to max_blocks blocks (64 bytes per block).
class collective_workspace {
 public:
  //! Allocates 2 × max_blocks × 32 bytes; throws swat::cuda_error / usage_error.
  explicit collective_workspace(int max_blocks);
  collective_workspace(const collective_workspace&) = delete;
  collective_workspace& operator=(const collective_workspace&) = delete;
  //! Handle for one launch of n_blocks (1..max_blocks) blocks; no reset is needed.
  collective_handle handle(int n_blocks) const;
  //! Largest grid served (blocks).
  int max_blocks() const { return max_blocks_; }

 private:
  int max_blocks_ = 0;
  cuda::device_buffer slots_;
};

}  // namespace swat::collective

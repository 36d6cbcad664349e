#pragma once
// Public interface of the bundled bitonic sort (plain C++, no CUDA types): keys u32, i32, f32
// and (u32 key, u32 value) pairs, any n, ascending or descending, on the barrier layer.
//
//   swat::sort::sorter s(swat::cuda::device_context(0));         // owns scratch + barrier state
//   s.sort_keys(d_keys, n, {.mode = swat::sync_mode::flag});     // in place, device pointer
//
// n is padded to P = 2^ceil(log2 n) with sentinel words (all ones after the order-preserving
// encoding, so they sort last); the first n words are returned. Shared-memory tiles handle every
// stride inside a tile; the strides >= tile run as global steps of up to 3 strides each (8 words
// per thread in registers), and each step is separated from the next by one grid barrier
// (persistent modes) or a kernel boundary (launch modes).
//
// Float order is IEEE 754 totalOrder: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN (NaNs with
// the sign bit set first, others last, each group ordered by payload); descending is the exact
// reverse. Key-value pairs sort by (key, value), so equal keys come out with ascending values
// (descending: values descending too, the exact reverse); every pair survives, stability is not promised.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/sync_mode.hpp"

namespace swat::cuda {
class device_context;
}

namespace swat::sort {

//! Output order.
enum class sort_order { ascending, descending };

//! How to run.
struct sort_options {
  sync_mode mode = sync_mode::flag;        //!< barrier between steps (none: timing only)
  sort_order order = sort_order::ascending; //!< output order
  int blocks = 0;                          //!< persistent grid; 0 = default_blocks(plan, cap)
  bool check = true;                       //!< persistent modes: synchronise and check watchdog
};

//! The schedule for n items (host-side, testable without a device).
struct sort_plan {
  std::size_t n = 0;          //!< items to sort
  int padded_log2 = 0;        //!< P = 2^padded_log2 >= n words (0 when n <= 1)
  bool pairs = false;         //!< 8-byte (key, value) words instead of 4-byte keys
  int tile_log2 = 0;          //!< words per shared-memory tile (log2, <= padded_log2)
  int block_threads = 0;      //!< threads per block
  int steps = 0;              //!< kernel steps (0 when n <= 1)
  int global_steps = 0;       //!< steps over the whole array (1..3 strides >= tile each)
  long long tiles = 0;        //!< tiles per local step
  //! Grid barriers between steps (steps - 1, 0 when there is nothing to do).
  int barriers() const { return steps > 0 ? steps - 1 : 0; }
  //! Bytes of one padded word (4 keys, 8 pairs).
  int word_bytes() const { return pairs ? 8 : 4; }
  //! Dynamic shared memory per block (bytes).
  std::size_t smem_bytes() const { return std::size_t{1} << tile_log2 << (pairs ? 3 : 2); }
};

//! Plans a sort of n items (n up to 2^31). Throws usage_error beyond that.
sort_plan make_sort_plan(std::size_t n, bool pairs);

//! Default persistent grid for a co-resident cap of cap blocks: the largest power of two
//! <= cap and <= tiles, so every block gets the same number of tiles in each local step.
int default_blocks(const sort_plan& plan, int cap);

//! Runs the plan's network on the CPU with the device's step schedule and encoding (tests).
//! keys (and values when plan.pairs) are sorted in place; kind: 0 u32, 1 i32, 2 f32 bits.
void reference_sort(const sort_plan& plan, std::vector<std::uint32_t>& keys,
                    std::vector<std::uint32_t>* values, int kind, sort_order order);

//! Scratch and barrier state for sorting on the device; not thread-safe.
class sorter {
 public:
  //! Binds to dev (device_context.hpp): every call runs there.
  explicit sorter(const cuda::device_context& dev);
  ~sorter();
  sorter(const sorter&) = delete;
  sorter& operator=(const sorter&) = delete;

  //! Sorts n keys at d_keys (device memory) in place. stream: cudaStream_t as void*.
  //! Launch modes are asynchronous; persistent modes synchronise to check the watchdog
  //! unless options.check is false. Throws usage_error / swat::cuda_error / barrier_timeout.
  void sort_keys(std::uint32_t* d_keys, std::size_t n, const sort_options& options, void* stream = nullptr);
  //! Signed keys (see above).
  void sort_keys(std::int32_t* d_keys, std::size_t n, const sort_options& options, void* stream = nullptr);
  //! Float keys in totalOrder (see the file comment for -0, inf and NaN).
  void sort_keys(float* d_keys, std::size_t n, const sort_options& options, void* stream = nullptr);
  //! Sorts n (key, value) pairs held in two device arrays, in place, by (key, value).
  void sort_pairs(std::uint32_t* d_keys, std::uint32_t* d_values, std::size_t n,
                  const sort_options& options, void* stream = nullptr);

  //! Largest co-resident persistent grid for this plan (blocks).
  int max_blocks(const sort_plan& plan, sync_mode mode);
  //! Grid of the last run (blocks).
  int last_blocks() const;
  //! Synchronises stream; throws barrier_timeout when the last persistent run's watchdog fired.
  void check(void* stream = nullptr);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace swat::sort

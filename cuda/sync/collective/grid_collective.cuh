#pragma once
// Grid collectives for persistent kernels, on top of any grid barrier (barrier.cuh):
// reduce (any associative, commutative op), max-with-argmax of DP cells (tie rule cell_beats:
// highest score, then smallest target index j, then smallest query index i), sum, and/or,
// broadcast, and the count/any votes (p_count / p_any of the GBS thesis, 2009).
//
//   grid_barrier<M> bar(h);
//   grid_collective<M> coll(bar, ch);
//   best_cell best = coll.argmax(my_cell);      // every thread of every block gets the result
//
// Every thread of every block must call each collective in the same order (they contain
// __syncthreads and one grid barrier each). Results are deterministic (fixed combining order)
// and identical in all blocks. After bar.failed() the results are unspecified.
// Scheme: block reduce → thread 0 writes the block's partial into slot[parity][block] →
// one grid barrier → every block reduces all N partials itself (no second barrier). Slots
// alternate between two parities: a block can be at most one collective ahead, and it cannot
// overwrite a parity before everybody has passed the barrier of the following collective.

#include <climits>
#include <cstdint>

#include "common/traceback.hpp"
#include "cuda/sync/barrier/barrier.cuh"
#include "cuda/sync/collective/block_reduce.cuh"
#include "cuda/sync/collective/collective_handle.hpp"

namespace swat::collective {

//! Identity of argmax: loses against every real cell.
__host__ __device__ constexpr best_cell no_cell() {
  return best_cell{INT32_MIN, INT64_MAX, INT64_MAX};
}

//! argmax combine under cell_beats (associative and commutative: a total order).
struct best_cell_op {
  __device__ best_cell operator()(const best_cell& a, const best_cell& b) const {
    return cell_beats(b.score, b.query_end, b.target_end, a.score, a.query_end, a.target_end) ? b
                                                                                              : a;
  }
};

//! a + b.
struct sum_op {
  template <typename T>
  __device__ T operator()(const T& a, const T& b) const {
    return a + b;
  }
};

//! Grid-wide collectives over the blocks synchronised by a grid_barrier<M>.
template <sync_mode M>
class grid_collective {
 public:
  //! bar must outlive this object; h from collective_workspace::handle(n_blocks).
  __device__ grid_collective(barrier::grid_barrier<M>& bar, const collective_handle& h)
      : bar_(bar), h_(h) {}

  //! Combines every thread's value with op over the whole grid; all threads get the result.
  template <typename T, typename op_t>
  __device__ T reduce(const T& value, op_t op) {
    const T part = detail::block_reduce_all(value, op);
    const unsigned t = barrier::detail::thread_rank();
    T* slots = slot_base<T>();
    if (t == 0) slots[barrier::detail::block_rank()] = part;
    bar_.arrive_and_wait();
    const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    T acc = part;
    bool has = false;
    for (unsigned i = t; i < static_cast<unsigned>(h_.n_blocks); i += threads) {
      acc = has ? op(acc, slots[i]) : slots[i];
      has = true;
    }
    // Threads without a slot (threads > blocks) are left out by reducing (value, has) pairs.
    const T total = reduce_present(acc, has, op);
    parity_ ^= 1u;
    return total;
  }

  //! Grid-wide best DP cell under cell_beats (max score, then min j, then min i).
  __device__ best_cell argmax(const best_cell& cell) { return reduce(cell, best_cell_op{}); }

  //! Grid-wide sum (integers exact; floating point in a fixed, deterministic order).
  template <typename T>
  __device__ T sum(const T& value) {
    return reduce(value, sum_op{});
  }

  //! Bitwise AND of all threads' words.
  __device__ std::uint32_t bit_and(std::uint32_t v) {
    return reduce(v, [](std::uint32_t a, std::uint32_t b) { return a & b; });
  }
  //! Bitwise OR of all threads' words.
  __device__ std::uint32_t bit_or(std::uint32_t v) {
    return reduce(v, [](std::uint32_t a, std::uint32_t b) { return a | b; });
  }
  //! True when pred holds in every thread of the grid.
  __device__ bool all_of(bool pred) { return count(!pred) == 0; }
  //! p_any: true when pred holds in at least one thread of the grid.
  __device__ bool any(bool pred) { return count(pred) != 0; }
  //! p_count: number of threads in the grid whose pred is true.
  __device__ unsigned long long count(bool pred) {
    const unsigned long long mine = pred ? 1ull : 0ull;
    return reduce(mine, sum_op{});
  }

  //! The value passed by thread 0 of block root_block, delivered to every thread of the grid.
  template <typename T>
  __device__ T broadcast(const T& value, int root_block) {
    static_assert(sizeof(T) <= detail::max_value_bytes, "broadcast value too large");
    T* slots = slot_base<T>();
    if (barrier::detail::thread_rank() == 0 &&
        barrier::detail::block_rank() == static_cast<unsigned>(root_block))
      slots[0] = value;
    bar_.arrive_and_wait();
    const T out = slots[0];
    parity_ ^= 1u;
    return out;
  }

  //! True once the underlying barrier failed (watchdog); results are then unspecified.
  __device__ bool failed() const { return bar_.failed(); }

 private:
  template <typename T>
  __device__ T* slot_base() const {
    return reinterpret_cast<T*>(h_.d_slots + static_cast<long long>(parity_) * h_.n_blocks *
                                                 detail::max_value_bytes);
  }
  template <typename T, typename op_t>
  __device__ static T reduce_present(const T& v, bool present, op_t op) {
    struct maybe {
      T value;
      int has;
    };
    const maybe m{v, present ? 1 : 0};
    const maybe r = detail::block_reduce_all(m, [op](const maybe& a, const maybe& b) {
      if (!a.has) return b;
      if (!b.has) return a;
      return maybe{op(a.value, b.value), 1};
    });
    return r.value;
  }

  barrier::grid_barrier<M>& bar_;
  collective_handle h_;
  unsigned parity_ = 0;
};

}  // namespace swat::collective

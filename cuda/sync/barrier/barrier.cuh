#pragma once
// Device-side grid barriers, one interface for every persistent kernel:
//
//   __global__ void k(swat::barrier::barrier_handle h, ...) {
//     swat::barrier::grid_barrier<M> bar(h);
//     for (int step = 0; step < steps && !bar.failed(); ++step) { ...; bar.arrive_and_wait(); }
//   }
//
// launched through swat::cuda::launch_cooperative() (co-residency), with h from
// barrier_workspace::prepare(M, blocks). All threads of every block must call
// arrive_and_wait() the same number of times. Protocol common to all software barriers:
//   1. __syncthreads(): every thread's prior writes happen before the representative arrives;
//   2. the representative (thread 0, or warp 0 for stripe) arrives with a device-scope release
//      and waits with device-scope acquire polls (barrier_sync.cuh);
//   3. __syncthreads_or(failed): releases the block and makes failure block-uniform.
// Counters never reset inside a launch: goals rise (epoch · fan-in), flags carry the epoch.
// Every spin has a clock64 watchdog; on timeout it records an error, raises the abort word
// (other blocks stop waiting), failed() turns true and later barriers return at once, so the
// kernel finishes and barrier_workspace::check() throws. cg has no watchdog (grid.sync()).

#include <cooperative_groups.h>

#include <cstdint>

#include "cuda/sync/barrier/barrier_sync.cuh"

namespace swat::barrier {

//! Grid barrier selected by the sync mode; specialised below for every persistent mode.
template <sync_mode M>
class grid_barrier;

namespace detail {

//! State shared by the software barriers: handle copy, epoch (barriers passed + 1) and the
//! block-uniform failure flag.
class barrier_base {
 public:
  __device__ explicit barrier_base(const barrier_handle& h) : h_(h) {
    const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
    if (blocks != static_cast<unsigned>(h.n_blocks)) {
      if (thread_rank() == 0) record_error(h, error_mismatch, 0, 0);
      failed_ = true;
    }
  }
  //! True once a watchdog fired or the grid does not match the handle (block-uniform).
  __device__ bool failed() const { return failed_; }

 protected:
  //! Runs one barrier: entry __syncthreads, body(goal epoch) by all threads (returns false on
  //! failure), exit __syncthreads_or.
  template <typename body_t>
  __device__ __forceinline__ void run(body_t body) {
    if (failed_) return;
    __syncthreads();
    const std::uint32_t epoch = ++epoch_;
    const bool ok = body(epoch);
    failed_ = __syncthreads_or(!ok) != 0;
  }
  barrier_handle h_;
  std::uint32_t epoch_ = 0;
  bool failed_ = false;
};

}  // namespace detail

//! Xiao & Feng 2010 §5.1 GPU simple synchronization: each block adds 1 to one counter and waits
//! until it reaches epoch · N (goal raised by N per barrier instead of a reset).
template <>
class grid_barrier<sync_mode::simple> : public detail::barrier_base {
 public:
  __device__ explicit grid_barrier(const barrier_handle& h) : barrier_base(h) {}
  //! Blocks until every block of the grid has arrived at this barrier.
  __device__ void arrive_and_wait() {
    run([this](std::uint32_t epoch) {
      if (detail::thread_rank() != 0) return true;
      detail::add_release(h_.d_counter, 1u);
      return detail::wait_reached(h_, h_.d_counter, epoch * h_.n_blocks, epoch, 1);
    });
  }
};

//! Xiao & Feng 2010 §5.2 GPU tree-based synchronization (2 or 3 levels). Every block adds 1 at
//! its leaf counter; the first block of each group waits for its group to be complete and then
//! arrives one level up (its release carries the whole group's writes); all blocks wait on the
//! root reaching epoch · fan-in. Group sizes: sync_mode.hpp (m = ceil(sqrt(N))).
template <int levels_v>
class tree_barrier : public detail::barrier_base {
 public:
  __device__ explicit tree_barrier(const barrier_handle& h) : barrier_base(h) {
    if (!failed_) path_ = h.d_paths[detail::block_rank()];
  }
  //! Blocks until every block of the grid has arrived at this barrier.
  __device__ void arrive_and_wait() {
    run([this](std::uint32_t epoch) {
      if (detail::thread_rank() != 0) return true;
      detail::add_release(node(0), 1u);
#pragma unroll
      for (int l = 1; l < levels_v; ++l) {  // unrolled: path_ stays in registers
        if (l >= path_.climb) break;
        if (!detail::wait_reached(h_, node(l - 1), epoch * path_.fanin[l - 1], epoch, 2))
          return false;
        detail::add_release(node(l), 1u);
      }
      const int root = levels_v - 1;
      return detail::wait_reached(h_, node(root), epoch * path_.fanin[root], epoch, 2);
    });
  }

 private:
  __device__ std::uint32_t* node(int level) const {
    return h_.d_tree + static_cast<long long>(path_.node[level]) * line_words;
  }
  tree_path path_{};
};

template <>
class grid_barrier<sync_mode::tree> : public tree_barrier<2> {
 public:
  using tree_barrier<2>::tree_barrier;
};

template <>
class grid_barrier<sync_mode::tree3> : public tree_barrier<3> {
 public:
  using tree_barrier<3>::tree_barrier;
};

//! Xiao & Feng 2010 §5.3 GPU lock-free synchronization: block b stores the epoch into
//! Arrayin[b]; threads of block 0 (the master) each watch Arrayin[i] for i = t, t + threads, …
//! (looping when blocks > threads), __syncthreads, then store the epoch into Arrayout[i];
//! block b's thread 0 waits for Arrayout[b]. No atomic read-modify-write at all.
template <>
class grid_barrier<sync_mode::lockfree> : public detail::barrier_base {
 public:
  __device__ explicit grid_barrier(const barrier_handle& h) : barrier_base(h) {}
  //! Blocks until every block of the grid has arrived at this barrier.
  __device__ void arrive_and_wait() {
    run([this](std::uint32_t epoch) {
      const unsigned t = detail::thread_rank();
      const unsigned b = detail::block_rank();
      if (t == 0) detail::store_release(h_.d_in + b, epoch);
      bool ok = true;
      if (b == 0) {  // master block (block-uniform branch)
        const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
        for (unsigned i = t; i < static_cast<unsigned>(h_.n_blocks) && ok; i += threads) {
          ok = detail::spin_until(h_, epoch, 3,
                                  [&] { return detail::load_acquire(h_.d_in + i) == epoch; });
        }
        ok = __syncthreads_or(!ok) == 0;
        for (unsigned i = t; i < static_cast<unsigned>(h_.n_blocks); i += threads)
          detail::store_release(h_.d_out + i, epoch);
      }
      if (t == 0 && ok) ok = detail::wait_reached(h_, h_.d_out + b, epoch, epoch, 4);
      return ok;
    });
  }
};

//! cooperative_groups grid.sync(), the modern baseline. No watchdog: failed() only reports a
//! grid/handle mismatch. Needs the cooperative launch (launch_cooperative) like the others.
template <>
class grid_barrier<sync_mode::cg> : public detail::barrier_base {
 public:
  __device__ explicit grid_barrier(const barrier_handle& h) : barrier_base(h) {}
  //! Blocks until every block of the grid has arrived at this barrier.
  __device__ void arrive_and_wait() {
    if (!failed_) cooperative_groups::this_grid().sync();
  }
};

//! Ours, "flag": one arrival counter and one release flag, each on its own 128-byte line.
//! Each block's thread 0 does one acq_rel fetch_add; the block that brings the counter to
//! epoch · N is the last one and stores the epoch into the release flag (release); all others
//! poll only the flag. Unlike simple, the polls never hit the line the atomics queue on, and
//! unlike lockfree there is no master block and no out-array: one store releases everyone.
template <>
class grid_barrier<sync_mode::flag> : public detail::barrier_base {
 public:
  __device__ explicit grid_barrier(const barrier_handle& h) : barrier_base(h) {}
  //! Blocks until every block of the grid has arrived at this barrier.
  __device__ void arrive_and_wait() {
    run([this](std::uint32_t epoch) {
      if (detail::thread_rank() != 0) return true;
      const std::uint32_t old = detail::add_acq_rel(h_.d_counter, 1u);
      if (old + 1u == epoch * h_.n_blocks) {
        detail::store_release(h_.d_release, epoch);
        return true;
      }
      return detail::wait_reached(h_, h_.d_release, epoch, epoch, 5);
    });
  }
};

//! Ours, "stripe": S = stripe_count(N) arrival counters on separate 128-byte lines (hence
//! different L2 slices); block b adds 1 (release, no return value) to counter b mod S, so at
//! most ceil(N/S) atomics queue on one address instead of N. Warp 0 of every block polls all S
//! counters at once, lane s reading counter s, and leaves when __all_sync says each reached
//! epoch · (blocks mapped to it). One one-way RED on the critical path, no second hop through
//! a master or last arriver, no serialisation of N atomics on a single L2 slice.
template <>
class grid_barrier<sync_mode::stripe> : public detail::barrier_base {
 public:
  __device__ explicit grid_barrier(const barrier_handle& h) : barrier_base(h) {
    const unsigned lane = detail::thread_rank() % 32u;
    const unsigned s = static_cast<unsigned>(h.stripes);
    const unsigned n = static_cast<unsigned>(h.n_blocks);
    per_lane_ = lane < s ? n / s + (lane < n % s ? 1u : 0u) : 0u;
  }
  //! Blocks until every block of the grid has arrived at this barrier.
  __device__ void arrive_and_wait() {
    run([this](std::uint32_t epoch) {
      const unsigned t = detail::thread_rank();
      if (t >= 32) return true;
      const unsigned s = static_cast<unsigned>(h_.stripes);
      if (t == 0) detail::add_release(stripe(detail::block_rank() % s), 1u);
      __syncwarp();
      const std::uint32_t goal = epoch * per_lane_;
      std::uint32_t* mine = stripe(t < s ? t : 0u);
      const bool active = t < s;
      // Warp-uniform spin: every exit decision goes through a vote, so no lane leaves alone.
      const long long start = clock64();
      for (unsigned it = 1;; ++it) {
        const bool done = !active || detail::reached(detail::load_acquire(mine), goal);
        if (__all_sync(0xffffffffu, done)) return true;
        if (it % detail::watchdog_period == 0) {
          const bool aborted =
              __any_sync(0xffffffffu, t == 0 && detail::load_relaxed(h_.d_abort) != 0);
          const bool late =
              h_.watchdog_cycles > 0 &&
              __any_sync(0xffffffffu, t == 0 && clock64() - start > h_.watchdog_cycles);
          if (late && !aborted && t == 0) detail::record_error(h_, error_timeout, epoch, 6);
          if (late || aborted) return false;
        }
      }
    });
  }

 private:
  __device__ std::uint32_t* stripe(unsigned s) const {
    return h_.d_stripes + static_cast<long long>(s) * line_words;
  }
  std::uint32_t per_lane_ = 0;
};

//! Ours, "lastin": one counter, one hop, and nobody pays a round trip it does not need.
//! Every block's thread 0 does one acq_rel fetch_add on the counter (goal epoch · N, never
//! reset). The block whose add completes the count (the last in) already holds the acquire of
//! every other block's release through the RMW chain and leaves at once, without polling;
//! cooperative_groups' grid.sync() makes that block issue one more acquire load (a full L2
//! round trip) after its atomic returned, and that block is by definition on the critical
//! path. The other blocks poll the counter with acquire loads. Policy knobs (measured, see
//! bench/results/barrier_explore_h100.txt): pollers_v warps per block poll at once (lane 0 of
//! warps 0..pollers_v-1; the first that sees completion tells the others through shared
//! memory), backoff_ns_v > 0 sleeps between polls. On the H100 one poller without backoff is
//! best: more pollers or sleeping only add traffic or latency on the counter line.
template <int pollers_v, int backoff_ns_v>
class lastin_barrier : public detail::barrier_base {
 public:
  __device__ explicit lastin_barrier(const barrier_handle& h) : barrier_base(h) {
    if (detail::thread_rank() == 0) *seen_word() = 0;  // ordered by run()'s entry barrier
  }
  //! Blocks until every block of the grid has arrived at this barrier.
  __device__ void arrive_and_wait() {
    run([this](std::uint32_t epoch) {
      ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_block> seen(*seen_word());
      const unsigned t = detail::thread_rank();
      const std::uint32_t goal = epoch * static_cast<std::uint32_t>(h_.n_blocks);
      if (t == 0) {
        const std::uint32_t old = detail::add_acq_rel(h_.d_counter, 1u);
        if (old + 1u == goal) {
          seen.store(epoch, ::cuda::memory_order_relaxed);
          return true;
        }
      }
      const bool poller = t % 32u == 0 && t / 32u < static_cast<unsigned>(pollers_v);
      if (!poller) return true;
      return detail::spin_until(h_, epoch, 1, [&] {
        if (seen.load(::cuda::memory_order_relaxed) == epoch) return true;
        if (detail::reached(detail::load_acquire(h_.d_counter), goal)) {
          seen.store(epoch, ::cuda::memory_order_relaxed);
          return true;
        }
        if constexpr (backoff_ns_v > 0) __nanosleep(backoff_ns_v);
        return false;
      });
    });
  }

 private:
  //! Last epoch some poller of this block saw complete (shared memory, one word per block).
  __device__ static std::uint32_t* seen_word() {
    __shared__ std::uint32_t seen_epoch;
    return &seen_epoch;
  }
};

//! The lastin policy measured best on the H100: one poller, no backoff.
template <>
class grid_barrier<sync_mode::lastin> : public lastin_barrier<1, 0> {
 public:
  using lastin_barrier<1, 0>::lastin_barrier;
};

//! No barrier at all: the same kernel timed for its compute only. Never correct for results.
template <>
class grid_barrier<sync_mode::none> {
 public:
  __device__ explicit grid_barrier(const barrier_handle&) {}
  __device__ void arrive_and_wait() {}
  __device__ bool failed() const { return false; }
};

}  // namespace swat::barrier

// Grid collectives on the GPU against host results, for every persistent sync mode.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "../barrier/gpu_test_util.cuh"
#include "cuda/sync/barrier/barrier_workspace.cuh"
#include "cuda/sync/collective/collective_workspace.cuh"
#include "cuda/sync/collective/grid_collective.cuh"
#include "cuda/common/cuda_check.cuh"
#include "cuda/common/launch.cuh"

namespace swat::collective {
namespace {

//! Results of one round as seen by one block (thread 0, except `agree`).
struct round_result {
  best_cell best;
  long long sum;
  double fsum;
  std::uint32_t band;
  std::uint32_t bor;
  std::uint32_t bcast;
  unsigned long long count;
  int any;
  int all;
  int agree;  //!< every thread of the block got the same argmax and count
};

//! Per-thread inputs of one round.
struct thread_input {
  std::int32_t score;
  std::int32_t pred;  //!< 0/1
  std::int64_t i;
  std::int64_t j;
  std::int32_t value;
  std::uint32_t bits;
};

template <sync_mode M>
__global__ void __launch_bounds__(1024)
    collective_kernel(barrier::barrier_handle h, collective_handle ch, const thread_input* in,
                      round_result* out, int rounds, const int* roots) {
  barrier::grid_barrier<M> bar(h);
  grid_collective<M> coll(bar, ch);
  const unsigned threads = blockDim.x;
  const unsigned gid = blockIdx.x * threads + threadIdx.x;
  const unsigned total = gridDim.x * threads;
  for (int r = 0; r < rounds && !coll.failed(); ++r) {
    const thread_input x = in[static_cast<std::size_t>(r) * total + gid];
    round_result res{};
    res.best = coll.argmax(best_cell{x.score, x.i, x.j});
    res.sum = coll.sum(static_cast<long long>(x.value));
    res.fsum = coll.sum(static_cast<double>(x.value) * 0.5);
    res.band = coll.bit_and(x.bits);
    res.bor = coll.bit_or(x.bits);
    res.bcast = coll.broadcast(x.bits ^ 0x5a5a5a5au, roots[r]);
    res.count = coll.count(x.pred != 0);
    res.any = coll.any(x.score > 1000) ? 1 : 0;
    res.all = coll.all_of(x.score > -1000) ? 1 : 0;
    const best_cell b0 = coll.broadcast(res.best, 0);  // block 0's view, to every thread
    res.agree = __syncthreads_and(b0 == res.best) ? 1 : 0;
    if (threadIdx.x == 0) out[static_cast<std::size_t>(r) * gridDim.x + blockIdx.x] = res;
  }
}

template <sync_mode M>
void check_mode(int blocks, int threads, int rounds) {
  const std::size_t total = static_cast<std::size_t>(blocks) * threads;
  std::mt19937_64 rng(977u * blocks + threads + static_cast<unsigned>(M));
  std::vector<thread_input> in(total * rounds);
  std::vector<int> roots(rounds);
  for (int r = 0; r < rounds; ++r) {
    roots[r] = static_cast<int>(rng() % blocks);
    // Few distinct scores and coordinates: many ties exercise the cell_beats order.
    for (std::size_t k = 0; k < total; ++k) {
      thread_input& x = in[r * total + k];
      x.score = static_cast<std::int32_t>(rng() % 7) - 3 + (r % 3 == 0 ? 0 : 990);
      x.i = static_cast<std::int64_t>(rng() % 5);
      x.j = static_cast<std::int64_t>(rng() % 5) + (static_cast<std::int64_t>(1) << 33);
      x.value = static_cast<std::int32_t>(rng() % 2001) - 1000;
      x.bits = static_cast<std::uint32_t>(rng()) | (r % 2 == 0 ? 0x80000001u : 0u);
      if (r % 4 == 1) x.bits = 0xffffffffu;
      x.pred = (rng() % 97 == 0) ? 1 : 0;
      if (r % 5 == 2) x.pred = 0;
    }
  }
  barrier::barrier_workspace ws(::swat::test::test_device(), blocks);
  collective_workspace cws(blocks);
  thread_input* d_in = nullptr;
  round_result* d_out = nullptr;
  int* d_roots = nullptr;
  SWAT_CUDA_CHECK(cudaMalloc(&d_in, in.size() * sizeof(thread_input)));
  SWAT_CUDA_CHECK(
      cudaMalloc(&d_out, static_cast<std::size_t>(rounds) * blocks * sizeof(round_result)));
  SWAT_CUDA_CHECK(cudaMalloc(&d_roots, rounds * sizeof(int)));
  SWAT_CUDA_CHECK(
      cudaMemcpy(d_in, in.data(), in.size() * sizeof(thread_input), cudaMemcpyHostToDevice));
  SWAT_CUDA_CHECK(cudaMemcpy(d_roots, roots.data(), rounds * sizeof(int), cudaMemcpyHostToDevice));
  const barrier::barrier_handle h = ws.prepare(M, blocks);
  cuda::launch_cooperative(::swat::test::test_device(), collective_kernel<M>, dim3(blocks), dim3(threads), 0, nullptr, h,
                           cws.handle(blocks), d_in, d_out, rounds, d_roots);
  ws.check();
  std::vector<round_result> out(static_cast<std::size_t>(rounds) * blocks);
  SWAT_CUDA_CHECK(
      cudaMemcpy(out.data(), d_out, out.size() * sizeof(round_result), cudaMemcpyDeviceToHost));
  (void)cudaFree(d_in);
  (void)cudaFree(d_out);
  (void)cudaFree(d_roots);
  int bad = 0;
  for (int r = 0; r < rounds; ++r) {
    best_cell best = no_cell();
    long long sum = 0;
    double fsum = 0;
    std::uint32_t band = 0xffffffffu;
    std::uint32_t bor = 0;
    unsigned long long count = 0;
    bool any = false;
    bool all = true;
    for (std::size_t k = 0; k < total; ++k) {
      const thread_input& x = in[r * total + k];
      if (cell_beats(x.score, x.i, x.j, best.score, best.query_end, best.target_end))
        best = best_cell{x.score, x.i, x.j};
      sum += x.value;
      fsum += x.value * 0.5;  // halves of integers: exact in any order
      band &= x.bits;
      bor |= x.bits;
      count += static_cast<unsigned long long>(x.pred);
      any = any || x.score > 1000;
      all = all && x.score > -1000;
    }
    const std::uint32_t bcast =
        in[r * total + static_cast<std::size_t>(roots[r]) * threads].bits ^ 0x5a5a5a5au;
    for (int b = 0; b < blocks; ++b) {
      const round_result& g = out[static_cast<std::size_t>(r) * blocks + b];
      const bool ok = g.best == best && g.sum == sum && g.fsum == fsum && g.band == band &&
                      g.bor == bor && g.bcast == bcast && g.count == count &&
                      g.any == (any ? 1 : 0) && g.all == (all ? 1 : 0) && g.agree == 1;
      if (!ok && bad++ < 3) {
        ADD_FAILURE() << to_string(M) << " " << blocks << "x" << threads << " round " << r
                      << " block " << b << ": best " << g.best.score << "@(" << g.best.query_end
                      << "," << g.best.target_end << ") want " << best.score << "@("
                      << best.query_end << "," << best.target_end << "), sum " << g.sum << "/"
                      << sum << ", count " << g.count << "/" << count << ", bcast " << g.bcast
                      << "/" << bcast << ", agree " << g.agree;
      }
    }
  }
  std::printf("  %-8s %4d blocks x %4d threads, %d rounds: %s\n", std::string(to_string(M)).c_str(),
              blocks, threads, rounds, bad == 0 ? "all blocks match the host" : "MISMATCH");
}

template <sync_mode M>
void check_all_grids() {
  const int sms = ::swat::test::test_device().sm_count();
  // SWAT_STRESS_THREADS narrows the block sizes (compute-sanitizer runs).
  const std::vector<int> thread_sizes = std::getenv("SWAT_STRESS_THREADS") != nullptr
                                            ? barrier::test::stress_thread_sizes()
                                            : std::vector<int>{96, 256, 1024};
  for (int threads : thread_sizes) {
    const int cap = std::min(barrier::test::stress_block_cap(),
                             cuda::max_coresident_blocks(::swat::test::test_device(), collective_kernel<M>, threads, 0));
    for (int blocks : {1, 7, sms, cap}) {
      if (blocks <= cap) check_mode<M>(blocks, threads, 20);
    }
  }
}

TEST(GridCollective, Simple) {
  SWAT_REQUIRE_GPU();
  check_all_grids<sync_mode::simple>();
}
TEST(GridCollective, Tree) {
  SWAT_REQUIRE_GPU();
  check_all_grids<sync_mode::tree>();
}
TEST(GridCollective, Tree3) {
  SWAT_REQUIRE_GPU();
  check_all_grids<sync_mode::tree3>();
}
TEST(GridCollective, Lockfree) {
  SWAT_REQUIRE_GPU();
  check_all_grids<sync_mode::lockfree>();
}
TEST(GridCollective, Cg) {
  SWAT_REQUIRE_GPU();
  check_all_grids<sync_mode::cg>();
}
TEST(GridCollective, Flag) {
  SWAT_REQUIRE_GPU();
  check_all_grids<sync_mode::flag>();
}
TEST(GridCollective, Stripe) {
  SWAT_REQUIRE_GPU();
  check_all_grids<sync_mode::stripe>();
}
TEST(GridCollective, Lastin) {
  SWAT_REQUIRE_GPU();
  check_all_grids<sync_mode::lastin>();
}

}  // namespace
}  // namespace swat::collective

#pragma once
// Public interface of the bundled FFT (plain C++, no CUDA types): 1-D complex-to-complex
// transforms of 2^k points, fp32 or fp64, forward or inverse, batched, on the barrier layer.
//
//   auto plan = swat::fft::make_fft_plan(20, 1, precision::fp32, direction::forward);
//   swat::fft::fft_engine fft(swat::cuda::device_context(0));   // owns scratch + barrier state
//   fft.execute(plan, d_in, d_out, {.mode = swat::sync_mode::flag});
//
// Algorithm: Stockham autosort (Govindaraju et al., SC 2008, "FftIteration"), split into
// global passes of radix 2^r (r <= 8). Each pass is a set of independent shared-memory tiles
// (columns x radix points, every inner radix-16/8/4/2 sub-stage inside shared memory); the
// passes are separated by one grid barrier of the selected sync mode (persistent kernel) or by
// a kernel boundary (cpu, cpu-explicit, graph). Data layout: interleaved complex (re, im),
// transform b of the batch at element offset b * 2^k.

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/sync_mode.hpp"

namespace swat::cuda {
class device_context;
}

namespace swat::fft {

//! Element type: fp32 = complex<float> (8 bytes), fp64 = complex<double> (16 bytes).
enum class precision { fp32, fp64 };
//! forward: X_k = sum x_i e^{-2 pi i ik/N}; inverse: e^{+...}, scaled by 1/N when normalised.
enum class direction { forward, inverse };

//! One global pass of the Stockham FFT (a grid barrier follows every pass but the last).
struct fft_pass {
  int radix_log2 = 0;        //!< this pass combines 2^radix_log2 points per butterfly
  int ns_log2 = 0;           //!< Stockham Ns = product of the earlier passes' radices (log2)
  int column_log2 = 0;       //!< consecutive butterflies j per tile (coalescing, log2)
  int batch_log2 = 0;        //!< transforms per tile (single-pass plans only, log2)
  long long tiles = 0;       //!< shared-memory tiles of this pass (work items of the grid)
  std::vector<int> inner_radix_log2;  //!< in-tile sub-stages, radix 2^q each (q <= 4)
};

//! A planned transform; make_fft_plan() fills it, execute() runs it.
struct fft_plan {
  int log2_n = 0;                          //!< transform size N = 2^log2_n points
  long long batch = 1;                     //!< transforms, contiguous, N points apart
  precision prec = precision::fp32;        //!< element type
  direction dir = direction::forward;      //!< sign of the exponent
  bool normalize_inverse = true;           //!< inverse scaled by 1/N (cuFFT does not scale)
  int tile_log2 = 0;                       //!< points per shared-memory tile (log2)
  int block_threads = 0;                   //!< threads per block
  std::vector<fft_pass> passes;            //!< global passes, in order
  //! Points of one transform.
  long long n() const { return 1LL << log2_n; }
  //! Grid barriers between passes (passes - 1).
  int barriers() const { return static_cast<int>(passes.size()) - 1; }
  //! Bytes of one element (8 or 16).
  int element_bytes() const { return prec == precision::fp32 ? 8 : 16; }
  //! Most tiles of any pass (the widest grid that has work in every pass).
  long long max_tiles() const;
};

//! Plans N = 2^log2_n (1..27), batch >= 1 transforms. Throws usage_error otherwise.
fft_plan make_fft_plan(int log2_n, long long batch, precision prec, direction dir,
                       bool normalize_inverse = true);

//! Default persistent grid for a co-resident cap of cap blocks: the widest pass's tiles spread
//! evenly over ceil(tiles / cap) waves (so no wave runs only a few blocks).
int default_blocks(const fft_plan& plan, int cap);

//! Bytes of device shared memory one tile of this plan needs.
std::size_t tile_smem_bytes(const fft_plan& plan);

//! Runs the plan on the CPU in double precision with exactly the GPU's tiling and index
//! math (tests: checks the plan against a naive DFT without a device). In place on data
//! (batch * N values).
void reference_execute(const fft_plan& plan, std::vector<std::complex<double>>& data);

//! Naive O(N^2) DFT of one transform (sign -1 forward, +1 inverse; no scaling).
std::vector<std::complex<double>> naive_dft(const std::vector<std::complex<double>>& x,
                                            direction dir);

//! How to run.
struct fft_options {
  sync_mode mode = sync_mode::flag;  //!< barrier between passes (none: timing only)
  int blocks = 0;                    //!< persistent grid size; 0 = default_blocks(plan, cap)
  bool check = true;                 //!< persistent modes: synchronise and check the watchdog
                                     //!< (benchmarks turn it off and call fft_engine::check)
};

//! Device scratch, barrier workspace and cached graphs for running plans; not thread-safe.
class fft_engine {
 public:
  //! Binds to dev (device_context.hpp): every call runs there.
  explicit fft_engine(const cuda::device_context& dev);
  ~fft_engine();
  fft_engine(const fft_engine&) = delete;
  fft_engine& operator=(const fft_engine&) = delete;

  //! Transforms batch * N complex values at d_in (device memory, fp32 or fp64 interleaved)
  //! into d_out (may equal d_in). stream: a cudaStream_t passed as void* (nullptr = default
  //! stream). Asynchronous for launch modes; persistent modes check the barrier watchdog
  //! (synchronising). Throws usage_error / swat::cuda_error / barrier_timeout.
  void execute(const fft_plan& plan, const void* d_in, void* d_out, const fft_options& options,
               void* stream = nullptr);

  //! Largest co-resident grid of the persistent kernel for this plan's precision (blocks).
  int max_blocks(const fft_plan& plan, sync_mode mode);
  //! Grid the last execute() used (blocks; launch modes: tiles of the widest pass).
  int last_blocks() const;
  //! Synchronises stream and throws barrier_timeout when the last persistent run's watchdog
  //! fired.
  void check(void* stream = nullptr);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace swat::fft

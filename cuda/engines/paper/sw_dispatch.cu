// wavefront_fill: device buffers, plan and the kernel switch of the paper engines (sw_fill.hpp).

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "common/error.hpp"
#include "cuda/sync/barrier/barrier_workspace.cuh"
#include "cuda/sync/collective/block_reduce.cuh"
#include "cuda/sync/collective/collective_workspace.cuh"
#include "cuda/sync/collective/grid_collective.cuh"
#include "cuda/common/cuda_check.cuh"
#include "cuda/common/device_buffer.hpp"
#include "cuda/engines/paper/diagonal_tile.cuh"
#include "cuda/engines/paper/sw_fill.hpp"
#include "cuda/engines/paper/sw_kernel.cuh"
#include "cuda/engines/paper/sw_launch.cuh"
#include "cuda/engines/paper/tiled_tile.cuh"

namespace swat::paper {

__global__ void sw_init_best_kernel(best_cell* d_best, std::int64_t threads) {
  const std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < threads) d_best[t] = collective::no_cell();
}

__global__ void sw_reduce_best_kernel(const best_cell* d_best, std::int64_t threads,
                                      best_cell* d_result) {
  best_cell best = collective::no_cell();
  for (std::int64_t t = threadIdx.x; t < threads; t += blockDim.x)
    best = collective::best_cell_op{}(best, d_best[t]);
  const best_cell total = collective::detail::block_reduce_all(best, collective::best_cell_op{});
  if (threadIdx.x == 0) *d_result = total;
}

namespace {

//! Bytes reserved for thread bests, sequences, matrix and workspaces in plans (bytes).
constexpr std::int64_t fixed_plan_bytes = 64ll << 20;
//! Poison byte of H/E/F, borders and codes in tests (0xA5A5A5A5 is a huge negative score).
constexpr int poison_byte = 0xA5;

std::int64_t slot_words_for(std::int64_t m) { return (m + 1 + 2 * line_words) / line_words * line_words; }

}  // namespace

struct wavefront_fill::state {
  cuda::device_context dev;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  int max_blocks = 0;
  barrier::barrier_workspace barriers;
  collective::collective_workspace collectives;
  cuda::device_buffer query, target, matrix, result, thread_best, starts, h, e, f, rows, cols, codes;

  explicit state(const cuda::device_context& device)
      : dev(device),
        max_blocks(device.sm_count() * 32),
        barriers(device, max_blocks),
        collectives(max_blocks) {
    SWAT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    SWAT_CUDA_CHECK(cudaEventCreate(&start));
    SWAT_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~state() {
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
    (void)cudaStreamDestroy(stream);
  }
};

fill_plan plan_fill(kernel_kind kernel, std::int64_t m, std::int64_t n, int tile) {
  const code_layout layout(kernel, m, n, tile);
  fill_plan plan;
  plan.code_bytes = layout.code_bytes();
  plan.buffer_bytes = fixed_plan_bytes + m + n;
  if (kernel == kernel_kind::tiled) {
    plan.buffer_bytes += 2 * 4 * (layout.tiles_m() + layout.tiles_n()) * (layout.tile() + 1);
  } else {
    plan.buffer_bytes += 8 * (m + n + 1) + 3 * 4 * rolling_slots * slot_words_for(m);
  }
  return plan;
}

wavefront_fill::wavefront_fill(const cuda::device_context& dev)
    : s_((dev.make_current(), std::make_unique<state>(dev))) {}  // current before the workspaces allocate
wavefront_fill::~wavefront_fill() = default;

const cuda::device_context& wavefront_fill::device() const { return s_->dev; }

int wavefront_fill::block_threads(kernel_kind kernel, int tile) {
  if (kernel == kernel_kind::tiled) return tiled_policy::threads_for(tile == 0 ? default_tile : tile);
  return diagonal_policy::block_threads;
}

namespace {

int smem_for(kernel_kind kernel, int tile) {
  return kernel == kernel_kind::tiled ? tiled_policy::smem_bytes(tile == 0 ? default_tile : tile) : 0;
}

int cap_for(const cuda::device_context& dev, kernel_kind kernel, int tile) {
  const int threads = wavefront_fill::block_threads(kernel, tile);
  const int smem = smem_for(kernel, tile);
  switch (kernel) {
    case kernel_kind::diagonal:
      return max_persistent_blocks<diagonal_algo<simple_layout>>(dev, threads, smem);
    case kernel_kind::coalesced:
      return max_persistent_blocks<diagonal_algo<coalesced_layout>>(dev, threads, smem);
    case kernel_kind::tiled:
      return max_persistent_blocks<tiled_algo>(dev, threads, smem);
    default: throw usage_error("sw: unknown kernel");
  }
}

}  // namespace

std::int64_t wavefront_fill::held_bytes() const {
  std::int64_t total = 0;
  for (const cuda::device_buffer* b : {&s_->query, &s_->target, &s_->matrix, &s_->result, &s_->thread_best,
                              &s_->starts, &s_->h, &s_->e, &s_->f, &s_->rows, &s_->cols, &s_->codes})
    total += static_cast<std::int64_t>(b->bytes());
  return total;
}

int wavefront_fill::max_blocks(kernel_kind kernel, int tile) const {
  s_->dev.make_current();
  return std::min(cap_for(s_->dev, kernel, tile), s_->max_blocks);
}

fill_result wavefront_fill::fill(residue_span query, residue_span target, const scoring_scheme& scheme,
                                 const fill_config& config) {
  state& st = *s_;
  st.dev.make_current();
  const std::int64_t m = static_cast<std::int64_t>(query.size());
  const std::int64_t n = static_cast<std::int64_t>(target.size());
  auto layout = std::make_shared<const code_layout>(config.kernel, m, n, config.tile);
  const int tile = layout->tile();
  const int threads = block_threads(config.kernel, tile);
  const int smem = smem_for(config.kernel, tile);
  const std::int64_t widest = config.kernel == kernel_kind::tiled
                                  ? std::min(layout->tiles_m(), layout->tiles_n())
                                  : (std::min(m, n) + threads - 1) / threads;
  int blocks = config.blocks;
  if (blocks <= 0) blocks = static_cast<int>(std::min<std::int64_t>(widest, max_blocks(config.kernel, tile)));
  blocks = std::max(blocks, 1);
  if (blocks > st.max_blocks)
    throw usage_error("sw: " + std::to_string(blocks) + " blocks exceed the workspace's " +
                      std::to_string(st.max_blocks));

  sw_problem p;
  p.m = m;
  p.n = n;
  p.gap_oe = scheme.gap_open + scheme.gap_extend;
  p.gap_e = scheme.gap_extend;
  st.query.reserve(query.size());
  st.target.reserve(target.size());
  st.matrix.reserve(sizeof(scheme.matrix));
  st.result.reserve(sizeof(best_cell));
  st.thread_best.reserve(sizeof(best_cell) * std::size_t(blocks) * threads);
  st.codes.reserve(static_cast<std::size_t>(std::max<std::int64_t>(layout->code_bytes(), 1)));
  SWAT_CUDA_CHECK(cudaMemcpyAsync(st.query.as<void>(), query.data(), query.size(), cudaMemcpyHostToDevice, st.stream));
  SWAT_CUDA_CHECK(cudaMemcpyAsync(st.target.as<void>(), target.data(), target.size(), cudaMemcpyHostToDevice, st.stream));
  SWAT_CUDA_CHECK(cudaMemcpyAsync(st.matrix.as<void>(), scheme.matrix.data(), sizeof(scheme.matrix), cudaMemcpyHostToDevice, st.stream));
  p.d_query = st.query.as<std::uint8_t>();
  p.d_target = st.target.as<std::uint8_t>();
  p.d_matrix = st.matrix.as<std::int32_t>();
  p.d_result = st.result.as<best_cell>();
  p.d_thread_best = st.thread_best.as<best_cell>();
  p.d_codes = st.codes.as<std::uint8_t>();
  std::vector<std::pair<cuda::device_buffer*, std::size_t>> poisoned{{&st.codes, layout->code_bytes()},
                                                            {&st.result, sizeof(best_cell)}};
  if (config.kernel == kernel_kind::tiled) {
    p.tile = tile;
    p.tiles_m = layout->tiles_m();
    p.tiles_n = layout->tiles_n();
    p.chunk_cells = layout->chunk_cells();
    const std::size_t row_bytes = 4 * std::size_t(p.tiles_n) * (tile + 1);
    const std::size_t col_bytes = 4 * std::size_t(p.tiles_m) * (tile + 1);
    st.rows.reserve(2 * row_bytes);
    st.cols.reserve(2 * col_bytes);
    p.d_row_h = st.rows.as<std::int32_t>();
    p.d_row_f = p.d_row_h + p.tiles_n * (tile + 1);
    p.d_col_h = st.cols.as<std::int32_t>();
    p.d_col_e = p.d_col_h + p.tiles_m * (tile + 1);
    poisoned.push_back({&st.rows, 2 * row_bytes});
    poisoned.push_back({&st.cols, 2 * col_bytes});
  } else {
    const auto starts = layout->diagonal_starts();
    st.starts.reserve(starts.size_bytes());
    SWAT_CUDA_CHECK(cudaMemcpyAsync(st.starts.as<void>(), starts.data(), starts.size_bytes(),
                                    cudaMemcpyHostToDevice, st.stream));
    p.d_starts = st.starts.as<std::int64_t>();
    p.slot_words = slot_words_for(m);
    const std::size_t slot_bytes = 4 * std::size_t(rolling_slots) * p.slot_words;
    st.h.reserve(slot_bytes);
    st.e.reserve(slot_bytes);
    st.f.reserve(slot_bytes);
    p.d_h = st.h.as<std::int32_t>();
    p.d_e = st.e.as<std::int32_t>();
    p.d_f = st.f.as<std::int32_t>();
    for (cuda::device_buffer* b : {&st.h, &st.e, &st.f}) poisoned.push_back({b, slot_bytes});
  }
  if (config.poison)
    for (auto [b, bytes] : poisoned)
      SWAT_CUDA_CHECK(cudaMemsetAsync(b->as<void>(), poison_byte, bytes, st.stream));

  launch_env env;
  env.dev = &st.dev;
  env.stream = st.stream;
  env.barriers = &st.barriers;
  env.collective = st.collectives.handle(blocks);
  env.blocks = blocks;
  env.threads = threads;
  env.smem_bytes = smem;
  env.start = st.start;
  env.stop = st.stop;
  switch (config.kernel) {
    case kernel_kind::diagonal: run_fill<diagonal_algo<simple_layout>>(p, config.sync, env); break;
    case kernel_kind::coalesced: run_fill<diagonal_algo<coalesced_layout>>(p, config.sync, env); break;
    case kernel_kind::tiled: run_fill<tiled_algo>(p, config.sync, env); break;
    default: throw usage_error("sw: unknown kernel");
  }

  fill_result r;
  SWAT_CUDA_CHECK(cudaMemcpyAsync(&r.best, p.d_result, sizeof(best_cell), cudaMemcpyDeviceToHost, st.stream));
  SWAT_CUDA_CHECK(cudaStreamSynchronize(st.stream));
  float ms = 0;
  SWAT_CUDA_CHECK(cudaEventElapsedTime(&ms, st.start, st.stop));
  if (r.best.score <= 0) r.best = {};
  if (config.copy_codes) {
    r.codes.resize(static_cast<std::size_t>(layout->code_bytes()));
    SWAT_CUDA_CHECK(cudaMemcpy(r.codes.data(), p.d_codes, r.codes.size(), cudaMemcpyDeviceToHost));
  }
  r.layout = std::move(layout);
  r.fill_ms = ms;
  r.blocks = blocks;
  r.threads = threads;
  r.steps = config.kernel == kernel_kind::tiled ? tiled_algo::steps(p)
                                                : diagonal_algo<simple_layout>::steps(p);
  return r;
}

alignment traceback(const fill_result& result) {
  if (result.best.score > 0 && result.codes.empty())
    throw usage_error("sw: traceback needs a fill with copy_codes");
  const code_layout& layout = *result.layout;
  const std::uint8_t* codes = result.codes.data();
  return walk_traceback(result.best, [&](std::int64_t i, std::int64_t j) {
    return layout.code_at(codes, i, j);
  });
}

}  // namespace swat::paper

// Xiao & Feng 2010 §5.4 microbenchmark driver: table and CSV (see barrier_bench.hpp).
// Time model (DESIGN.md): T = launch + Σ(compute + sync); compute comes from the same kernel
// with the barrier removed (mode none), so per-barrier µs = (T - T_none) / rounds.

#include "bench/barrier/barrier_bench.hpp"

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <ostream>
#include <random>

#include "bench/barrier/barrier_bench_dispatch.cuh"
#include "bench/common/bench_record.hpp"
#include "common/error.hpp"
#include "cuda/common/cuda_check.cuh"
#include "cuda/common/device_buffer.hpp"
#include "cuda/sync/barrier/barrier_layout.hpp"

namespace swat::bench {
namespace {

//! Dynamic shared memory that lets exactly blocks_per_sm blocks share an SM of dev (bytes).
std::size_t smem_for_occupancy(const cuda::device_context& dev, int blocks_per_sm, int threads) {
  const int device = dev.id();
  int per_sm = 0;
  int reserved = 0;
  int optin = 0;
  int max_threads = 0;
  SWAT_CUDA_CHECK(
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  SWAT_CUDA_CHECK(
      cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
  SWAT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  SWAT_CUDA_CHECK(
      cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  if (blocks_per_sm < 1 || blocks_per_sm * threads > max_threads)
    throw usage_error("bench barrier: " + std::to_string(blocks_per_sm) + " blocks of " +
                      std::to_string(threads) + " threads do not fit on one SM");
  // 1 KB left for the kernels' static shared memory (lastin, collectives).
  const long long bytes = (per_sm / blocks_per_sm - reserved - 1024) / 1024 * 1024;
  return static_cast<std::size_t>(std::clamp<long long>(bytes, 0, optin - 1024));
}

void print_designs(std::ostream& out) {
  out << "Our barriers (cuda/sync/barrier/barrier.cuh):\n"
         "  flag   - one acq_rel counter + one release flag on separate 128-byte lines: the last\n"
         "           arriver stores the epoch, everybody else polls only the flag (no out-array,\n"
         "           no master block, polls never queue behind the atomics).\n"
         "  stripe - S = ceil(N/16) (max 32) arrival counters on separate lines; block b does a\n"
         "           fire-and-forget release RED on counter b mod S; warp 0 of each block polls\n"
         "           all S counters in parallel (lane s reads counter s, __all_sync decides).\n"
         "           One one-way RED on the critical path, no second hop, N/S atomics per line.\n"
         "  lastin - one counter, acq_rel fetch_add; the block that completes the count (the\n"
         "           last in) leaves at once with the acquire its atomic already gave it, the\n"
         "           others poll with acquire loads. grid.sync() makes the last block wait one\n"
         "           more L2 round trip, and the last block is the critical path.\n";
}

}  // namespace

std::vector<barrier_bench_row> run_barrier_bench(const cuda::device_context& dev,
                                                 const barrier_bench_options& options, std::ostream& table,
                                                 std::ostream* csv) {
  if (options.rounds < 1 || options.repeats < 1 || options.warmup < 0 ||
      options.block_threads < 32 || options.block_threads > 1024)
    throw usage_error("bench barrier: rounds and repeats must be >= 1, threads 32..1024");
  std::vector<sync_mode> modes = options.modes;
  if (modes.empty()) modes.assign(all_gpu_sync_modes().begin(), all_gpu_sync_modes().end());
  modes.erase(std::remove(modes.begin(), modes.end(), sync_mode::none), modes.end());
  if (std::find(modes.begin(), modes.end(), sync_mode::cpu) == modes.end())
    modes.insert(modes.begin(), sync_mode::cpu);  // reference output for the check column
  const int threads = options.block_threads;
  dev.make_current();
  const int sms = dev.sm_count();
  const std::string& device = dev.name();

  table << "Xiao & Feng 2010 sec. 5.4 microbenchmark (mean of two floats, " << options.rounds
        << " rounds) on " << device << " (" << sms << " SMs), " << threads
        << " threads/block, mean of " << options.repeats << " runs after " << options.warmup
        << " warm-up\n";
  print_designs(table);
  table << std::left << std::setw(5) << "bpsm" << std::setw(7) << "blocks" << std::setw(14)
        << "mode" << std::right << std::setw(11) << "total_ms" << std::setw(12) << "compute_ms"
        << std::setw(12) << "us/barrier"
        << "  check\n";
  if (csv != nullptr) {
    write_csv_provenance(*csv, "swat-gpu bench barrier (Xiao & Feng 2010 sec. 5.4)", options.command,
                         options.git_commit, dev.describe());
    *csv << "device,mode,blocks_per_sm,blocks,threads,rounds,total_ms,compute_ms,per_barrier_us,"
            "result_ok\n";
  }

  std::vector<barrier_bench_row> rows;
  for (int bpsm : options.blocks_per_sm) {
    const std::size_t smem = smem_for_occupancy(dev, bpsm, threads);
    const int max_blocks = std::min(detail::mean_kernel_max_blocks(dev, threads, smem), bpsm * sms);
    std::vector<int> counts =
        options.block_counts.empty() ? barrier::bench_block_counts(max_blocks) : options.block_counts;
    counts.erase(std::remove_if(counts.begin(), counts.end(),
                                [&](int n) { return n < 1 || n > max_blocks; }),
                 counts.end());
    barrier::barrier_workspace ws(dev, max_blocks);
    const std::size_t elems = static_cast<std::size_t>(max_blocks) * threads;
    std::vector<float> h_init(elems);
    std::mt19937 rng(20100419u);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& x : h_init) x = dist(rng);
    cuda::device_buffer buffer_a, buffer_b;
    buffer_a.reserve(elems * sizeof(float));
    buffer_b.reserve(elems * sizeof(float));
    float* d_a = buffer_a.as<float>();
    float* d_b = buffer_b.as<float>();
    for (int blocks : counts) {
      detail::bench_point p{&dev, blocks, threads, smem, options.rounds, d_a, d_b, &ws, nullptr};
      const std::size_t n = static_cast<std::size_t>(blocks) * threads;
      float* d_result = options.rounds % 2 == 1 ? d_b : d_a;
      auto measure = [&](sync_mode mode, std::vector<float>* out) {
        double sum = 0;
        for (int r = 0; r < options.warmup + options.repeats; ++r) {
          SWAT_CUDA_CHECK(
              cudaMemcpy(d_a, h_init.data(), n * sizeof(float), cudaMemcpyHostToDevice));
          SWAT_CUDA_CHECK(cudaMemset(d_b, 0, n * sizeof(float)));
          const float ms = detail::time_mean_run(mode, p);
          if (r >= options.warmup) sum += ms;
        }
        if (out != nullptr) {
          out->resize(n);
          SWAT_CUDA_CHECK(
              cudaMemcpy(out->data(), d_result, n * sizeof(float), cudaMemcpyDeviceToHost));
        }
        return sum / options.repeats;
      };
      const double compute_ms = measure(sync_mode::none, nullptr);
      std::vector<float> reference;
      std::vector<float> result;
      for (sync_mode mode : modes) {
        barrier_bench_row row;
        row.mode = mode;
        row.blocks_per_sm = bpsm;
        row.blocks = blocks;
        row.threads = threads;
        row.total_ms = measure(mode, &result);
        row.compute_ms = compute_ms;
        row.per_barrier_us = (row.total_ms - compute_ms) * 1e3 / options.rounds;
        if (mode == sync_mode::cpu && reference.empty()) reference = result;
        row.result_ok = std::memcmp(result.data(), reference.data(), n * sizeof(float)) == 0;
        rows.push_back(row);
        table << std::left << std::setw(5) << bpsm << std::setw(7) << blocks << std::setw(14)
              << to_string(mode) << std::right << std::fixed << std::setprecision(3)
              << std::setw(11) << row.total_ms << std::setw(12) << compute_ms << std::setw(12)
              << row.per_barrier_us << "  " << (row.result_ok ? "ok" : "MISMATCH") << "\n";
        if (csv != nullptr) {
          *csv << device << "," << to_string(mode) << "," << bpsm << "," << blocks << ","
               << threads << "," << options.rounds << "," << std::setprecision(4) << row.total_ms
               << "," << compute_ms << "," << row.per_barrier_us << "," << (row.result_ok ? 1 : 0)
               << "\n";
        }
      }
      table.flush();
    }
  }
  return rows;
}

}  // namespace swat::bench

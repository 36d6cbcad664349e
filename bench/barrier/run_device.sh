#!/usr/bin/env bash
# Runs the barrier tests, benchmark and sanitizers on the GPU machine from binaries built here
# and carried in .carry/barrier (see the report in bench/results/barrier_README.md).
# Usage (on the device, repo root): bash bench/barrier/run_device.sh STAGES COMMIT
#   STAGES: comma list of test,collective,bench,sanitize,weak (default all)
set -uo pipefail
stages=${1:-test,collective,bench,sanitize}
commit=${2:-unknown}
bin=.carry/barrier
out=${OUT:-/tmp/out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$out/device.txt" 2>&1
cat "$out/device.txt"
has() { [[ ",$stages," == *",$1,"* ]]; }
if has test; then
  "$bin/test_barrier_gpu" 2>&1 | tee "$out/test_barrier_gpu.log" | grep -E "^\[|WEAKENED|violations \(|refused|timeout after" | grep -vE "^\[ +(RUN|OK) " | tail -n 400
fi
if has weak; then
  "$bin/test_barrier_gpu" --gtest_filter='*Weakened*:*Limits*' 2>&1 | tee "$out/test_weak.log" | tail -n 60
fi
if has collective; then
  "$bin/test_collective_gpu" 2>&1 | tee "$out/test_collective_gpu.log" | grep -E "^\[ +(PASSED|FAILED)|MISMATCH|Failure" | head -40
fi
if has bench; then
  "$bin/swat_bench_barrier" --csv "$out/barrier_h100.csv" --commit "$commit" 2>&1 | tee "$out/bench_barrier.log"
  python3 bench/plot_barrier.py "$out/barrier_h100.csv" "$out/barrier_h100.png" 2>&1 | tail -2
fi
if has sanitize; then
  for tool in memcheck synccheck; do
    SWAT_STRESS_PHASES=200 SWAT_STRESS_MAX_BLOCKS=8 SWAT_STRESS_THREADS=64,256 compute-sanitizer --tool $tool --error-exitcode 3 \
      "$bin/test_barrier_gpu" --gtest_filter='GpuBarrierStress.*:-*Weakened*:*LaunchModes*' \
      >"$out/sanitizer_$tool.log" 2>&1
    echo "compute-sanitizer $tool: exit $?"; tail -n 3 "$out/sanitizer_$tool.log"
  done
fi

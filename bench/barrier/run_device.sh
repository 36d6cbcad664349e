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
  stdbuf -oL "$bin/test_barrier_gpu" >"$out/test_barrier_gpu.log" 2>&1; echo "test_barrier_gpu: exit $?"
  grep -E "WEAKENED total|^\[  (PASSED|FAILED)|FAILED|[1-9][0-9]* violations \(" "$out/test_barrier_gpu.log" | grep -v " 0 violations" | head -20
fi
if has weak; then
  "$bin/test_barrier_gpu" --gtest_filter='*Weakened*:*Limits*' 2>&1 | tee "$out/test_weak.log" | tail -n 60
fi
if has collective; then
  stdbuf -oL "$bin/test_collective_gpu" >"$out/test_collective_gpu.log" 2>&1; echo "test_collective_gpu: exit $?"
  grep -E "^\[  (PASSED|FAILED)|MISMATCH|Failure" "$out/test_collective_gpu.log" | head -20
fi
if has bench; then
  "$bin/swat-gpu" bench barrier --csv "$out/barrier_h100.csv" --commit "$commit" 2>&1 | tee "$out/bench_barrier.log"
  python3 bench/plot_barrier.py "$out/barrier_h100.csv" "$out/barrier_h100.png" 2>&1 | tail -2
fi
if has sanitize; then
  for tool in memcheck synccheck; do
    SWAT_STRESS_PHASES=200 SWAT_STRESS_MAX_BLOCKS=8 SWAT_STRESS_THREADS=64,256 compute-sanitizer --tool $tool --error-exitcode 3 \
      "$bin/test_barrier_gpu" --gtest_filter='GpuBarrierStress.*:-*Weakened*:*LaunchModes*' \
      >>"$out/sanitizer.log" 2>&1
    echo "compute-sanitizer $tool (barrier stress): exit $?"; grep -c "ERROR SUMMARY: 0 errors" "$out/sanitizer.log"
    SWAT_STRESS_MAX_BLOCKS=8 compute-sanitizer --tool $tool --error-exitcode 3 \
      "$bin/test_collective_gpu" --gtest_filter='*Lastin*:*Cg*' >>"$out/sanitizer.log" 2>&1
    echo "compute-sanitizer $tool (collectives): exit $?"; grep -c "ERROR SUMMARY: 0 errors" "$out/sanitizer.log"
  done
fi

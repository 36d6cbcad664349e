#!/usr/bin/env bash
# The Python package on the GPU machine, in two halves (as scripts/gpu-check): the machine's image
# has Python 3.12 (PyTorch's, with NumPy) but neither this project's build dependencies nor a
# network, so the package is built here as a CUDA wheel for CPython 3.12 and carried.
#
#   bench/python/device.sh pack   (here, after scripts/setup built build/ with CUDA) builds the
#                                 cp312 wheel with CUDA in build-python/cuda312 (CUDA_BUILD_DIR; pyenv's 3.12 and
#                                 a venv of it with scikit-build-core and pybind11 from PyPI),
#                                 and copies it, pytest's wheels, htslib's libraries and the
#                                 benchmark's proteins into .carry/python (ignored by git).
#   bench/python/device.sh run    (device; carry .carry/python and build/bin) installs the wheel
#                                 into /tmp/site, runs tests/python/test_gpu.py (the GPU's hits
#                                 and scores equal to the command's and the CPU engine's) and
#                                 bench/python/scores_gpu.py --check → $OUT/python_gpu_tests.log,
#                                 $OUT/python_scores_<MACHINE>.csv (MACHINE: h100 unless set).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
carry=$root/.carry/python

pack() {
  [ -x build/bin/swat-gpu ] || { echo "device.sh: build/ has no swat-gpu (run scripts/setup)" >&2; exit 2; }
  local py=${PYTHON312:-/root/.pyenv/versions/3.12.1/bin/python}
  local venv=build-python/venv312
  [ -x $venv/bin/python ] || "$py" -m venv "$venv"
  $venv/bin/python -c 'import scikit_build_core, pybind11' 2>/dev/null ||
    $venv/bin/pip install -q 'scikit-build-core>=0.10' 'pybind11>=2.12'
  rm -rf "$carry" && mkdir -p "$carry/wheels" "$carry/lib"
  SKBUILD_BUILD_DIR=${CUDA_BUILD_DIR:-build-python/cuda312} \
  SKBUILD_CMAKE_ARGS="-DSWAT_WITH_CUDA=ON;-Dpybind11_DIR=$($venv/bin/python -m pybind11 --cmakedir)" \
    $venv/bin/pip wheel -q --no-build-isolation --no-deps -w "$carry/wheels" .
  $venv/bin/pip download -q --no-deps --only-binary=:all: -d "$carry/wheels" pytest pluggy iniconfig packaging pygments
  for l in libhts.so.3 libhtscodecs.so.2 libdeflate.so.0; do cp -L "/lib/x86_64-linux-gnu/$l" "$carry/lib/"; done
  cp ../shared/data/protein/swissprot_subset_mmseqs2.fa "$carry/"
  du -sh "$carry"
}

run() {
  local out=${OUT:-$carry/out} machine=${MACHINE:-h100}
  mkdir -p "$out"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    "$carry"/wheels/*.whl
  export PYTHONPATH=/tmp/site LD_LIBRARY_PATH=$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} PYTHONUNBUFFERED=1
  export SWAT_BINARY=$root/build/bin/swat-gpu
  local status=0
  python3 -c 'import swat_gpu; print("swat_gpu", swat_gpu.__version__, "GPUs:", swat_gpu.gpu_count())' 2>&1 | tee "$out/python_gpu_tests.log"
  python3 -m pytest -v -p no:cacheprovider tests/python/test_gpu.py 2>&1 | tee -a "$out/python_gpu_tests.log" || status=1
  python3 bench/python/scores_gpu.py --binary "$SWAT_BINARY" --data "$carry/swissprot_subset_mmseqs2.fa" \
    --check --machine "$machine" --csv "$out/python_scores_$machine.csv" || status=1
  return $status
}

case ${1:-} in
  pack) pack ;;
  run) run ;;
  *) echo "usage: bench/python/device.sh pack|run" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# bench/mpi/device_run.sh [OUT] — one search over two GPUs of one host two ways, in one device
# call: 2 MPI ranks of 1 GPU each (mpirun -np 2; the ranks split the node's GPUs) against 1
# process with both GPUs (--gpus all) and 1 process with 1 GPU, the ×50 protein search (the 7
# queries of db_queries.fa × the Swiss-Prot subset written 50 times, 61.5M residues), ROUNDS
# rounds interleaved; every output compared with the one process's, byte for byte (SAM and JSON
# also with the device in their metadata masked: rank 0 names its own GPU).
# Needs: build/bin/swat-gpu and swat-gpu-mpi built with CUDA and MPI (scripts/setup), the
# Open MPI runtime of `scripts/gpu-check pack` (.carry/mpi) where the machine has none, and
# ../shared/data or .carry/gpu/data. Writes OUT/mpi.csv (case,round,seconds,commit,device,date)
# and OUT/mpi.log (the --timing lines: the ranks' search, exchange and merge).
# Env: COMMIT (the device copy has no .git), ROUNDS (default 3); QUERIES and SCALE (copies of the
# subset, default 50) change the search (a dry run elsewhere).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-${OUT:-$root/.carry/out}}
mkdir -p "$out"
commit=${COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
rounds=${ROUNDS:-3}
bin=$root/build/bin/swat-gpu
mpirun=mpirun
[ -x "$root/.carry/mpi/bin/mpirun" ] && mpirun=$root/.carry/mpi/bin/mpirun
[ -d "$root/.carry/gpu/lib" ] && export LD_LIBRARY_PATH=$root/.carry/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
data=$root/../shared/data
[ -d "$data/protein" ] || data=$root/.carry/gpu/data
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One node: shared memory between the ranks (no TCP transport to probe); MPI_OPTIONS to change.
mpi_options=${MPI_OPTIONS:-"-q --bind-to none --mca btl self,vader -np 2"}
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
[ "$gpus" -ge 2 ] || { echo "mpi: needs 2 GPUs, this machine has $gpus" >&2; exit 1; }
"$bin" --version | tee "$out/mpi.log"

work=$(mktemp -d /tmp/swat-mpi-XXXXXX)
trap 'rm -rf "$work"' EXIT
queries=${QUERIES:-$data/protein/db_queries.fa} db=$work/swissprot_x50.fa
for c in $(seq 1 "${SCALE:-50}"); do sed "s/^>/>c${c}_/" "$data/protein/swissprot_subset_mmseqs2.fa"; done > "$db"
echo "case,round,seconds,commit,device,date" > "$out/mpi.csv"
failed=0
one() {  # one NAME ROUND "LAUNCHER" "OPTIONS": one timed run → mpi.csv, its --timing line → mpi.log
  local name=$1 r=$2 launcher=$3 options=$4
  local t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  $launcher "$bin" align "$queries" "$db" $options --timing -o "$work/$name.tsv" 2> "$work/err" ||
    { failed=1; cat "$work/err" >&2; }
  t1=$(date +%s.%N)
  { echo "== $name round $r"; cat "$work/err"; } >> "$out/mpi.log"
  echo "$name,$r,$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}'),$commit,\"$device\",$(date -u +%FT%TZ)" >> "$out/mpi.csv"
  if [ "$name" != one_process_2gpus ] && ! cmp -s "$work/$name.tsv" "$work/one_process_2gpus.tsv"; then
    echo "mpi: $name's output differs from one process's" | tee -a "$out/mpi.log" >&2
    failed=1
  fi
}
"$bin" align "$queries" "$db" --quiet -o /dev/null  # warm the page cache and the driver
for r in $(seq 1 "$rounds"); do
  one one_process_2gpus "$r" "" "--gpus all"
  one mpi_2ranks_1gpu "$r" "$mpirun $mpi_options" ""
  one one_process_1gpu "$r" "" "--gpus 1"
done
# The same with SAM and JSON once (byte for byte).
for fmt in sam json; do
  # The same -o path for both (SAM @PG and JSON record the command line).
  "$bin" align "$queries" "$db" --quiet --outfmt $fmt -o "$work/out.$fmt" && mv "$work/out.$fmt" "$work/one.$fmt"
  # shellcheck disable=SC2086
  $mpirun $mpi_options "$bin" align "$queries" "$db" --quiet --outfmt $fmt -o "$work/out.$fmt" &&
    mv "$work/out.$fmt" "$work/two.$fmt"
  # The metadata name rank 0's engine and device (SAM @PG DS, JSON "device"): one GPU of two.
  mask() { sed -E 's/\tDS:[^\t]*//; s/"device": "[^"]*"/"device": ""/' "$1"; }
  if cmp -s "$work/one.$fmt" "$work/two.$fmt"; then
    echo "mpi: $fmt equal" >> "$out/mpi.log"
  elif cmp -s <(mask "$work/one.$fmt") <(mask "$work/two.$fmt"); then
    echo "mpi: $fmt equal but for the device in its metadata" >> "$out/mpi.log"
  else
    echo "mpi: $fmt differs" | tee -a "$out/mpi.log"
    failed=1
  fi
done
cat "$out/mpi.csv"
exit $failed

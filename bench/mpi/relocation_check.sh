#!/usr/bin/env bash
# Checks that the Open MPI runtime scripts/gpu-check packs (.carry/mpi) runs on a machine without
# Open MPI: packs it under another prefix, hides the system's copy (a private mount namespace:
# empty folders over Open MPI's and PMIx's folders, /dev/null over their libraries and programs)
# and runs `mpirun -np 2 swat-gpu align` with it (swat-gpu hands itself to swat-gpu-mpi, which
# loads the carried libmpi), which must equal one process's output.
# Needs root (unshare -m) and a build with MPI in build/.
#   bench/mpi/relocation_check.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/swat-mpi-relocation-XXXXXX)
trap 'rm -rf "$work"' EXIT
bash -c "source <(sed -n '/^pack_mpi()/,/^}/p' '$root/scripts/gpu-check'); pack_mpi '$work/elsewhere/mpi'"
cp "$root/build/bin/swat-gpu" "$root/build/bin/swat-gpu-mpi" "$work/"
q=$root/data/sarscov2_spike_gene.fa db=$root/data/coronavirus_regions.fa
"$work/swat-gpu" align "$q" "$db" --device cpu --threads 1 > "$work/one.tsv"
unshare -m bash -s "$work" "$q" "$db" <<'HIDDEN'
set -euo pipefail
work=$1 q=$2 db=$3
mkdir -p "$work/empty"
for d in /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 /usr/share/openmpi /usr/share/pmix /etc/openmpi; do
  [ -d "$d" ] && mount --bind "$work/empty" "$d"
done
for f in /usr/lib/x86_64-linux-gnu/lib{mpi,open-rte,open-pal,pmix,hwloc,event_core,event_pthreads,munge,oshmem,mca_common_}*.so* \
         /usr/bin/orterun /usr/bin/orted /usr/bin/mpirun.openmpi; do
  [ -e "$f" ] && [ ! -L "$f" ] && mount --bind /dev/null "$f"
done
if /usr/bin/orterun --version >/dev/null 2>&1; then echo "relocation check: the system's Open MPI is still usable" >&2; exit 1; fi
if env -u LD_LIBRARY_PATH "$work/swat-gpu-mpi" --version >/dev/null 2>&1; then
  echo "relocation check: swat-gpu-mpi still finds the system's libmpi" >&2; exit 1
fi
env -u LD_LIBRARY_PATH "$work/swat-gpu" --version >/dev/null  # swat-gpu itself needs no MPI
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$work/elsewhere/mpi/bin/mpirun" -q --oversubscribe --bind-to none -np 2 \
  "$work/swat-gpu" align "$q" "$db" --device cpu --threads 1 --timing > "$work/two.tsv"
HIDDEN
cmp "$work/one.tsv" "$work/two.tsv"
echo "relocation check: PASS (carried Open MPI from $work/elsewhere/mpi, $(du -sh "$work/elsewhere/mpi" | cut -f1); 2 ranks = 1 process)"

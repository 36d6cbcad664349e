#!/usr/bin/env bash
# bench/mpi/cpu_costs.sh OUT_PREFIX — the costs MPI adds to a search, measured on the CPU engine
# (any machine with Open MPI): the ×50 protein database (the Swiss-Prot subset written 50 times,
# 159,150 sequences, 61.5M residues) against QUERIES (default: the first 3 queries of
# db_queries.fa, 508 residues, so that the CPU engine finishes in seconds), one process with
# THREADS threads against mpirun -np 2 with THREADS/2 each; then the same with --stats empirical
# (every rank's best scores exchanged: queries × 159,150 int32) and with --max-hits 5000 (many
# hits to gather and merge: --evalue 1e6), and on the database prepared by makedb (mapped by
# every rank). Every output is compared with the one process's. Writes
# OUT_PREFIX.csv (case,ranks,seconds,exchange_s,merge_s,hit_bytes,score_bytes,commit,machine,date)
# and OUT_PREFIX.log (the --timing lines).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix=${1:?usage: bench/mpi/cpu_costs.sh OUT_PREFIX}
bin=$root/build/bin/swat-gpu
data=${SWAT_SHARED_DATA:-$root/../shared/data}
threads=${THREADS:-2}
commit=$(git -C "$root" rev-parse --short HEAD)
machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1) ($(nproc) cores)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d /tmp/swat-mpi-cpu-XXXXXX)
trap 'rm -rf "$work"' EXIT
for c in $(seq 1 50); do sed "s/^>/>c${c}_/" "$data/protein/swissprot_subset_mmseqs2.fa"; done > "$work/x50.fa"
queries=${QUERIES:-$work/q.fa}
db=$work/x50.fa
[ -n "${QUERIES:-}" ] || awk '/^>/{n++} n>=1 && n<=3' "$data/protein/db_queries.fa" > "$queries"
echo "case,ranks,seconds,exchange_s,merge_s,hit_bytes,score_bytes,commit,machine,date" > "$prefix.csv"
: > "$prefix.log"
"$bin" align "$queries" "$work/x50.fa" --device cpu --quiet --max-hits 1 -o /dev/null  # warm the page cache
run() {  # run CASE RANKS OPTIONS…
  local name=$1 ranks=$2; shift 2
  local t0 t1 line
  t0=$(date +%s.%N)
  if [ "$ranks" = 1 ]; then
    "$bin" align "$queries" "$db" --device cpu --threads "$threads" --timing "$@" -o "$work/$name.1" 2> "$work/err"
  else
    mpirun -q --bind-to none -np "$ranks" "$bin" align "$queries" "$db" --device cpu \
      --threads $((threads / ranks > 0 ? threads / ranks : 1)) --timing "$@" -o "$work/$name.$ranks" 2> "$work/err"
  fi
  t1=$(date +%s.%N)
  line=$(grep timing: "$work/err")
  echo "$name ranks=$ranks: $line" >> "$prefix.log"
  local exchange=0 merge=0 hits=0 scores=0
  if [ "$ranks" != 1 ]; then
    exchange=$(sed -n 's/.*| exchange \([0-9.]*\) s.*/\1/p' <<< "$line")
    merge=$(sed -n 's/.*| merge \([0-9.]*\) s.*/\1/p' <<< "$line")
    hits=$(sed -n 's/.*(\([0-9]*\) bytes of hits.*/\1/p' <<< "$line")
    scores=$(sed -n 's/.*bytes of hits, \([0-9]*\) of scores.*/\1/p' <<< "$line")
    cmp "$work/$name.1" "$work/$name.$ranks" || { echo "cpu_costs: $name differs with $ranks ranks" >&2; exit 1; }
  fi
  echo "$name,$ranks,$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}'),$exchange,$merge,$hits,$scores,$commit,\"$machine\",$(date -u +%FT%TZ)" >> "$prefix.csv"
}
for round in 1 2; do
  run x50 1
  run x50 2
done
run x50_empirical 1 --stats empirical
run x50_empirical 2 --stats empirical
run x50_maxhits5000 1 --max-hits 5000 --evalue 1e6
run x50_maxhits5000 2 --max-hits 5000 --evalue 1e6
# The database prepared (makedb): every rank maps it instead of parsing 82 MB of FASTA.
"$bin" makedb "$work/x50.fa" "$work/x50" --quiet
db=$work/x50
run x50_prepared 1
run x50_prepared 2
cat "$prefix.csv"

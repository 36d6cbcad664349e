#!/usr/bin/env bash
# bench/dbsearch/run_db_scale.sh OUTDIR — databases at scale (issue 35) in one GPU call:
# db_queries.fa (7 queries, 38,441 aa) against the Swiss-Prot subset written 50 and 500 times
# (headers renamed per copy, into a temp dir), top 10 hits, BLOSUM62 11/1, on one GPU:
#   swat-gpu  makedb          `swat-gpu makedb DB.fa PREFIX` (once)
#             whole_fasta     the whole `swat-gpu align Q DB.fa` command (median of REPS)
#             whole_prepared  the whole `swat-gpu align Q PREFIX` command (median of REPS)
#             scan            the scan of the prepared runs (their --timing line, median)
#             read_fasta, read_prepared  the read stage of each (--timing, median)
#   cudasw4   makedb          CUDASW++4.0 makedb (once)
#             align           its whole `align` command (median of REPS)
# The two swat-gpu searches must write the same hits (compared; a difference fails the run), and
# the host's peak memory of each goes to OUTDIR/db_scale_memory.txt.
# → OUTDIR/db_scale.csv: tool,scale,phase,seconds,commit,device,date
# Env: SWAT (binary), CUDASW4 (folder with align, makedb), DATA (folder with db_queries.fa and
#      swissprot_subset_mmseqs2.fa), COMMIT, SCALES (default "50 500"), REPS (default 3), TMPDIR,
#      DEVICE (swat-gpu --device, default gpu; cpu for a smoke test without a GPU).
set -u
out=${1:?usage: run_db_scale.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
SWAT=${SWAT:-$root/build/bin/swat-gpu}
CUDASW4=${CUDASW4:-$root/.carry/peers/cudasw4}
DATA=${DATA:-$root/.carry/db/data/protein}
COMMIT=${COMMIT:-unknown}
REPS=${REPS:-3}
DEVICE=${DEVICE:-gpu}
q=$DATA/db_queries.fa
db=$DATA/swissprot_subset_mmseqs2.fa
[ -x "$SWAT" ] && [ -s "$q" ] && [ -s "$db" ] || { echo "run_db_scale: need SWAT ($SWAT) and DATA ($DATA)" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/swat-bench-db-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
device=${device:-$(uname -n)}
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
csv=$out/db_scale.csv
[ -s "$csv" ] || echo "tool,scale,phase,seconds,commit,device,date" > "$csv"
status=0

row() {  # tool scale phase seconds
  [ -n "$4" ] || return 0
  echo "$1,$2,$3,$4,$COMMIT,$device,$date" >> "$csv"
  printf '%-9s x%-4s %-15s %8.3f s\n' "$1" "$2" "$3" "$4"
}
median() { sort -g | awk '{a[NR]=$1}END{if (NR) print a[int((NR+1)/2)]}'; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.3f", b - a}'; }
# stage NAME LINE: the seconds of a --timing stage ("read 0.384 s", "; scan 5.2 s" — the
# pipeline's scan is the last "scan S s" after "; " or ", ").
stage() {
  case "$1" in
    read) echo "$2" | grep -oE 'timing: read [0-9.]+ s' | awk '{print $3}' ;;
    scan) echo "$2" | grep -oE '[;,] scan [0-9.]+ s' | tail -1 | awk '{print $3}' ;;
    peak) echo "$2" | grep -oE 'host peak memory [0-9]+ MiB' | awk '{print $4}' ;;
  esac
}

# swat_runs SCALE PHASE DB TAG: the whole command REPS times → rows PHASE (median wall), and the
# read and scan stages (medians of the --timing lines); hits to $tmp/TAG.tsv.
swat_runs() {
  local walls=() reads=() scans=() peaks=() t0 line
  for ((r = 0; r < REPS; r++)); do
    t0=$(now)
    "$SWAT" align "$q" "$3" --device "$DEVICE" --max-hits 10 --quiet --timing -o "$tmp/$4.tsv" 2> "$tmp/$4.err" ||
      { cat "$tmp/$4.err"; status=1; return; }
    walls+=("$(since "$t0")")
    line=$(grep 'timing:' "$tmp/$4.err" | tail -1)
    echo "x$1 $4: $line" >> "$out/db_scale_swat_timing.log"
    reads+=("$(stage read "$line")")
    scans+=("$(stage scan "$line")")
    peaks+=("$(stage peak "$line")")
  done
  row swat-gpu "$1" "$2" "$(printf '%s\n' "${walls[@]}" | median)"
  row swat-gpu "$1" "read_$4" "$(printf '%s\n' "${reads[@]}" | median)"
  [ "$4" = prepared ] && row swat-gpu "$1" scan "$(printf '%s\n' "${scans[@]}" | median)"
  echo "x$1 $4: host peak memory $(printf '%s\n' "${peaks[@]}" | median) MiB (median of $REPS)" | tee -a "$out/db_scale_memory.txt"
}

for x in ${SCALES:-50 500}; do
  f=$tmp/db_x$x.fa
  awk -v n="$x" '{a[NR]=$0}END{for(c=1;c<=n;c++)for(i=1;i<=NR;i++){l=a[i]; if(substr(l,1,1)==">")sub(/^>/,">c" c "_",l); print l}}' "$db" > "$f"
  sync
  t0=$(now)
  "$SWAT" makedb "$f" "$tmp/swdb_x$x" --quiet || { echo "run_db_scale: makedb failed" >&2; status=1; continue; }
  row swat-gpu "$x" makedb "$(since "$t0")"
  swat_runs "$x" whole_fasta "$f" fasta
  swat_runs "$x" whole_prepared "$tmp/swdb_x$x" prepared
  if cmp -s "$tmp/fasta.tsv" "$tmp/prepared.tsv"; then
    echo "x$x: the prepared database's hits are the FASTA file's, byte for byte" | tee -a "$out/db_scale_memory.txt"
  else
    echo "x$x: the prepared database's hits DIFFER from the FASTA file's" | tee -a "$out/db_scale_memory.txt"
    status=1
  fi

  # CUDASW++4.0: makedb once, then the whole align command (BLAST's 11/1 is its --gop -12 --gex -1).
  if [ -x "$CUDASW4/align" ]; then
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    mkdir -p "$tmp/cdb"
    t0=$(now)
    "$CUDASW4/makedb" "$f" "$tmp/cdb/x$x" > "$tmp/cudasw4_makedb.txt" 2>&1 || { cat "$tmp/cudasw4_makedb.txt"; status=1; }
    row cudasw4 "$x" makedb "$(since "$t0")"
    walls=()
    for ((r = 0; r < REPS; r++)); do
      t0=$(now)
      "$CUDASW4/align" --query "$q" --db "$tmp/cdb/x$x" --top 10 --gop -12 --gex -1 --dpx --verbose > "$tmp/cudasw4.txt" 2>&1
      walls+=("$(since "$t0")")
    done
    { echo "== x$x"; cat "$tmp/cudasw4.txt"; } >> "$out/db_scale_cudasw4.log"
    row cudasw4 "$x" align "$(printf '%s\n' "${walls[@]}" | median)"
    rm -rf "$tmp/cdb"
  fi
  rm -f "$f" "$tmp"/swdb_x"$x"*
done
exit $status

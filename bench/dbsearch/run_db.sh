#!/usr/bin/env bash
# bench/dbsearch/run_db.sh OUTDIR — the database-search benchmark of issue 12 in one GPU call:
# db_queries.fa (7 queries, 38,441 aa) against the Swiss-Prot subset written 1, 10 and 50 times
# (headers renamed per copy, into a temp dir, never into the repo), top 10 hits, BLOSUM62 11/1:
#   swat-gpu  the whole `swat-gpu align` command (FASTA reading, scan, alignments of the hits,
#             blast6 output) and its --timing split (read, prepare, scan, traceback, output)
#   cudasw4   CUDASW++4.0 makedb (once per DB) and its scan (--dpx), same scoring
#   parasail  parasail_aligner sw_striped_profile_avx2_256_sat (no suffix-array filter, -x) -t $(nproc) (scores only)
# DNA (scale "dna"): the S. kunkelii genome cut into 293 fragments of 5 kb (queries) against four
# viral genomes (SkV1, lambda, Stx2 phage, SARS-CoV-2), DNA 2/-3/5/2, plus strand, top 10: swat-gpu whole
# command and parasail sw_striped_profile_avx2_256_32 (-t $(nproc)), when DNA_DATA is given.
# → OUTDIR/db.csv: tool,scale,phase,seconds,gcups,commit,device,date (phase "whole" = the command)
# Env: SWAT (binary), CUDASW4 (folder with align, makedb), PARASAIL (folder with usr/bin, usr/lib),
#      DATA (folder with db_queries.fa and swissprot_subset_mmseqs2.fa), DNA_DATA (folder with the
#      DNA files of ../shared/data/dna), COMMIT, SCALES, REPS.
set -u
out=${1:?usage: run_db.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
SWAT=${SWAT:-$root/build/bin/swat-gpu}
CUDASW4=${CUDASW4:-$root/.carry/peers/cudasw4}
PARASAIL=${PARASAIL:-$root/.carry/peers/parasail}
DATA=${DATA:-$root/.carry/db/data/protein}
COMMIT=${COMMIT:-unknown}
REPS=${REPS:-3}
q=$DATA/db_queries.fa
db=$DATA/swissprot_subset_mmseqs2.fa
mkdir -p "$out"
tmp=$(mktemp -d /tmp/swat-bench-db.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
csv=$out/db.csv
[ -s "$csv" ] || echo "tool,scale,phase,seconds,gcups,commit,device,date" > "$csv"
qres=$(awk '!/^>/{n+=length($0)}END{print n}' "$q")

row() {  # tool scale phase seconds cells
  local g
  g=$(awk -v c="$5" -v s="$4" 'BEGIN{ if (s > 0 && c > 0) printf "%.1f", c / s / 1e9; else print "" }')
  echo "$1,$2,$3,$4,$g,$COMMIT,$device,$date" >> "$csv"
  printf '%-9s x%-3s %-10s %8.3f s %10s GCUPS\n' "$1" "$2" "$3" "$4" "$g"
}
median() { sort -g | awk '{a[NR]=$1}END{print a[int((NR+1)/2)]}'; }
now() { date +%s.%N; }
# swat_whole SCALE QUERIES DB CELLS [OPTIONS…]: the whole `swat-gpu align` command REPS times (top 10 with
# alignments, blast6 to a file) → a "whole" row (median) and, from the last run's --timing
# line, rows for its stages.
swat_whole() {
  local times=() t0 t1 line s name
  for ((r = 0; r < REPS; r++)); do
    t0=$(now)
    "$SWAT" align "$2" "$3" --device gpu --max-hits 10 --quiet --timing -o "$tmp/hits.tsv" "${@:5}" 2> "$tmp/timing.txt" || { cat "$tmp/timing.txt"; return; }
    t1=$(now)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')")
    cat "$tmp/timing.txt" >> "$out/swat_timing.log"
  done
  row swat-gpu "$1" whole "$(printf '%s\n' "${times[@]}" | median)" "$4"
  line=$(grep 'timing:' "$tmp/timing.txt" | tail -1)
  for phase in read prepare "gpu scan" traceback output; do
    # "gpu scan (transposed: …) 0.065 s" too: the stage's note in parentheses is skipped
    s=$(echo "$line" | grep -oE "$phase( \([^)]*\))? [0-9.]+ s" | head -1 | awk '{print $(NF-1)}')
    name=${phase#gpu }
    [ -n "$s" ] && row swat-gpu "$1" "$name" "$s" "$([ "$name" = scan ] && echo "$4" || echo 0)"
  done
}

for x in ${SCALES:-1 10 50}; do
  f=$tmp/db_x$x.fa
  awk -v n="$x" '{a[NR]=$0}END{for(c=1;c<=n;c++)for(i=1;i<=NR;i++){l=a[i]; if(substr(l,1,1)==">")sub(/^>/,">c" c "_",l); print l}}' "$db" > "$f"
  dres=$(awk '!/^>/{n+=length($0)}END{print n}' "$f")
  cells=$(awk -v a="$qres" -v b="$dres" 'BEGIN{printf "%.0f", a*b}')

  swat_whole "$x" "$q" "$f" "$cells"
  [ "$x" = 1 ] && cp "$tmp/hits.tsv" "$out/swat_hits_x1.tsv"

  # CUDASW++4.0: makedb once, then the scan (its own "Total time").
  if [ -x "$CUDASW4/align" ]; then
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    mkdir -p "$tmp/cdb"
    t0=$(now); "$CUDASW4/makedb" "$f" "$tmp/cdb/x$x" > /dev/null 2>&1; t1=$(now)
    row cudasw4 "$x" makedb "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" 0
    scans=(); wholes=()
    for ((r = 0; r < REPS; r++)); do
      t0=$(now)
      "$CUDASW4/align" --query "$q" --db "$tmp/cdb/x$x" --top 10 --gop -12 --gex -1 --dpx --verbose > "$tmp/cudasw4.txt" 2>&1
      t1=$(now)
      wholes+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')")
      scans+=("$(grep -o 'Total time: [0-9.e-]*' "$tmp/cudasw4.txt" | awk '{print $3}')")
    done
    { echo "== x$x"; cat "$tmp/cudasw4.txt"; } >> "$out/cudasw4.log"
    row cudasw4 "$x" scan "$(printf '%s\n' "${scans[@]}" | median)" "$cells"
    row cudasw4 "$x" whole "$(printf '%s\n' "${wholes[@]}" | median)" "$cells"
  fi

  # parasail (CPU, every core), scores only; skipped at x50 unless PARASAIL_X50=1 (30 s).
  if [ -x "$PARASAIL/usr/bin/parasail_aligner" ] && { [ "$x" != 50 ] || [ -n "${PARASAIL_X50:-}" ]; }; then
    t0=$(now)
    LD_LIBRARY_PATH=$PARASAIL/usr/lib/x86_64-linux-gnu timeout 300 "$PARASAIL/usr/bin/parasail_aligner" \
      -a sw_striped_profile_avx2_256_sat -x -m blosum62 -o 12 -e 1 -t "$(nproc)" -f "$f" -q "$q" -g "$tmp/parasail.txt" 0<&- > /dev/null 2>&1
    t1=$(now)
    row parasail "$x" whole "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$cells"
  fi
done

# DNA: fragments of S. kunkelii against four viral genomes.
if [ -n "${DNA_DATA:-}" ]; then
  frag=$tmp/fragments.fa viral=$tmp/viral.fa
  awk '!/^>/{s = s $0} END{for (i = 1; i <= length(s); i += 5000) printf ">frag%d\n%s\n", (i - 1) / 5000 + 1, substr(s, i, 5000)}' \
    "$DNA_DATA/spiroplasma_kunkelii_CP010899.1.fa" > "$frag"
  cat "$DNA_DATA/spiroplasma_virus_SkV1_NC_009987.1.fa" "$DNA_DATA/lambda_NC_001416.1.fa" \
    "$DNA_DATA/stx2_phage_II_AP005154.1.fa" "$DNA_DATA/sarscov2_MN908947.3.fa" > "$viral"
  fres=$(awk '!/^>/{n+=length($0)}END{print n}' "$frag")
  vres=$(awk '!/^>/{n+=length($0)}END{print n}' "$viral")
  cells=$(awk -v a="$fres" -v b="$vres" 'BEGIN{printf "%.0f", a*b}')
  swat_whole dna "$frag" "$viral" "$cells" --strand plus  # one strand, as parasail
  if [ -x "$PARASAIL/usr/bin/parasail_aligner" ]; then
    t0=$(now)
    LD_LIBRARY_PATH=$PARASAIL/usr/lib/x86_64-linux-gnu timeout 300 "$PARASAIL/usr/bin/parasail_aligner" \
      -a sw_striped_profile_avx2_256_32 -x -d -M 2 -X 3 -o 7 -e 2 -t "$(nproc)" -f "$viral" -q "$frag" -g "$tmp/parasail.txt" 0<&- > /dev/null 2>&1
    t1=$(now)
    row parasail dna whole "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$cells"
  fi
fi

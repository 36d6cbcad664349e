#!/usr/bin/env bash
# bench/hsps/run_hsps.sh OUTDIR [DEVICE] — what --strand both and --max-hsps 0 cost (issue 14's
# "Measure"), whole `swat-gpu align` commands, median of REPS runs (variants interleaved), on DEVICE (cpu | gpu):
#   pair30k   SARS-CoV-2 × RaTG13 (29,903 × 29,855), DNA 2/-3/5/2
#   dnadb     SkV1 (8,006 b) against the S. kunkelii genome cut into 5 kb fragments (1.46 Mb)
# Variants per case: plus (--strand plus), both (the default), hsps1 (--max-hsps 1 --min-score M:
# the reference), hsps0_min (--max-hsps 0 --min-score M; for pair30k M leaves only the first
# alignment: "when there is only one"), hsps0 (--max-hsps 0 at BLAST's default E-value 10).
# The hsps variants search both strands. Ratios: both/plus and hsps0_min/hsps1 (goals ≤ 2.05 and
# ≤ 1.5), hsps0/hsps1 for information, with the number of reported alignments.
# → OUTDIR/hsps.csv: case,variant,seconds,alignments,ratio,commit,device,date,command
# Env: SWAT (binary), DNA_DATA (folder with ../shared/data/dna's files), COMMIT, REPS, THREADS.
set -u
out=${1:?usage: run_hsps.sh OUTDIR [cpu|gpu]}
dev=${2:-cpu}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
SWAT=${SWAT:-$root/build/bin/swat-gpu}
DNA_DATA=${DNA_DATA:-$root/../shared/data/dna}
COMMIT=${COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
REPS=${REPS:-5}
THREADS=${THREADS:-0}
mkdir -p "$out"
tmp=$(mktemp -d /tmp/swat-bench-hsps.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [ "$dev" = gpu ]; then
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
else
  device="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') ($(nproc) threads)"
fi
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
csv=$out/hsps.csv
[ -s "$csv" ] || echo "case,variant,seconds,alignments,ratio,commit,device,date,command" > "$csv"

# The S. kunkelii genome in 5 kb fragments (one record each).
awk '!/^>/{s=s $0}END{for(i=1;i<=length(s);i+=5000){n++; print ">frag" n; print substr(s,i,5000)}}' \
  "$DNA_DATA/spiroplasma_kunkelii_CP010899.1.fa" > "$tmp/fragments.fa"

declare -A seconds alignments times
median() { sort -g | awk '{a[NR]=$1}END{print a[int((NR+1)/2)]}'; }
# The variants of a case run in turn, REPS rounds (a noisy machine slows them alike).
# run_case CASE QUERY DB MIN_SCORE
run_case() {
  local -a names=(plus both hsps1 hsps0_min hsps0)
  local -a opts=("--strand plus" "" "--max-hsps 1 --min-score $4" "--max-hsps 0 --min-score $4" "--max-hsps 0")
  local r k cmd t0 t1
  for ((r = 0; r < REPS; r++)); do
    for k in "${!names[@]}"; do
      cmd="$SWAT align $2 $3 --device $dev --threads $THREADS --quiet --max-hits 1000 ${opts[$k]}"
      t0=$(date +%s.%N)
      $cmd -o "$tmp/out.tsv" || { echo "failed: $cmd" >&2; return; }
      t1=$(date +%s.%N)
      times[$1/${names[$k]}]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}') "
      alignments[$1/${names[$k]}]=$(wc -l < "$tmp/out.tsv")
      [ "$r" = 0 ] && echo "$cmd" > "$tmp/cmd_$k"
    done
  done
  for k in "${!names[@]}"; do
    local v=${names[$k]}
    seconds[$1/$v]=$(printf '%s\n' ${times[$1/$v]} | median)
    echo "$1,$v,${seconds[$1/$v]},${alignments[$1/$v]},,$COMMIT,\"$device\",$date,\"$(cat "$tmp/cmd_$k")\"" >> "$csv"
    printf '%-8s %-10s %8.3f s %6d alignments\n' "$1" "$v" "${seconds[$1/$v]}" "${alignments[$1/$v]}"
  done
  ratio "$1" both/plus both plus
  ratio "$1" hsps0_min/hsps1 hsps0_min hsps1
  ratio "$1" hsps0/hsps1 hsps0 hsps1
}
ratio() {  # CASE NAME NUMERATOR DENOMINATOR
  local r
  r=$(awk -v a="${seconds[$1/$3]}" -v b="${seconds[$1/$4]}" 'BEGIN{printf "%.2f", a / b}')
  echo "$1,$2,,,$r,$COMMIT,\"$device\",$date," >> "$csv"
  printf '%-8s %-22s %6s\n' "$1" "$2" "$r"
}

# pair30k: the second alignment of the pair scores far below 1,000 (the first: 53,973).
run_case pair30k "$DNA_DATA/sarscov2_MN908947.3.fa" "$DNA_DATA/ratg13_MN996532.2.fa" 1000
# dnadb: SkV1's copies in the genome score above 1,000 on their fragments; 400 keeps one per fragment.
run_case dnadb "$DNA_DATA/spiroplasma_virus_SkV1_NC_009987.1.fa" "$tmp/fragments.fa" 400

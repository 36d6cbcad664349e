#!/usr/bin/env bash
# bench/sw_fast/run_all.sh OUTDIR — every fast-engine measurement of issue 5 in one GPU call
# (after `scripts/gpu-check pack` and `bench/sw_fast/peers.sh pack` here, and the usual
# /work/main, build-gpu and /work/shared links on the GPU machine):
#   fast_mutated.csv   score16 / score32 / origins32 fills, S. kunkelii prefixes × mutated copy
#                      (scores pass 32767 from ~16k on: score16 shows the overflow + rerun cost)
#   fast_reversed.csv  score16 / score32 against the reversed copy (small local scores)
#   fast_barrier.csv   score16 with ready flags against score16 with each grid barrier
#   e2e.csv            `swat-gpu align` wall time: a 10-residue pair (fixed cost: process, CUDA
#                      context, output), SARS-CoV-2 × RaTG13, the 1.46 Mb pair
#   peers.csv          bench/sw_fast/peers.sh run (parasail, SSEARCH36, swat-gpu CPU/GPU)
#   sass_score16.txt   instruction histogram of the score16 kernel
# Env: COMMIT (the GPU machine's copy has no .git), REPS (default 3).
set -u
out=${1:?usage: run_all.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
swat=$root/build-gpu/bin/swat-gpu
data=/work/shared/data/dna
commit=${COMMIT:-unknown}
reps=${REPS:-3}
mkdir -p "$out"

bench() {  # csv-name, then bench fast options
  local csv=$out/$1; shift
  timeout 300 "$swat" bench fast --commit "$commit" --csv "$csv" "$@" 2>&1 | tee -a "$out/bench_fast.log"
}
bench fast_mutated.csv --lengths 1000,4000,16000,64000,256000,0 --variants score16,score32,origins32 --reps 5
bench fast_reversed.csv --reverse-target --lengths 1000,4000,16000,64000,256000,0 --variants score16,score32 --reps 5
bench fast_barrier.csv --reverse-target --lengths 64000,256000,0 --reps 3 --barrier-columns 64 \
  --variants score16,score16@lastin,score16@cg,score16@simple,score16@tree,score16@tree3,score16@lockfree,score16@flag,score16@stripe
bench fast_barrier.csv --reverse-target --lengths 256000,0 --reps 3 --barrier-columns 32,128,256,1024 \
  --variants score16@lastin

# End to end through the CLI.
printf 'AAAACCCCGG\n' > /tmp/tiny.seq
printf '>q\nACGTACGTAC\n' > /tmp/tiny_q.fa
printf '>t\nACGTTCGTAC\n' > /tmp/tiny_t.fa
e2e=$out/e2e.csv
echo "command,commit,device,date,pair,wall_s,output" > "$e2e"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
timed() {  # pair-name reps args...
  local name=$1 n=$2; shift 2
  for ((i = 0; i < n; i++)); do
    local t0 t1 line
    t0=$(date +%s.%N)
    line=$(timeout 300 "$swat" align "$@" --quiet --outfmt "blast6 score" | head -1 | tr '\t' ' ')
    t1=$(date +%s.%N)
    printf '"swat-gpu align %s",%s,"%s",%s,%s,%s,"%s"\n' "$*" "$commit" "$gpu" "$(date -u +%FT%TZ)" "$name" \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')" "$line" | tee -a "$e2e"
  done
}
timed "10 x 10 (fixed cost)" "$reps" /tmp/tiny_q.fa /tmp/tiny_t.fa --device gpu
timed "sarscov2 x ratg13" "$reps" "$data/sarscov2_MN908947.3.fa" "$data/ratg13_MN996532.2.fa" --device gpu
timed "spiroplasma x mutated (1.46 Mb)" 1 "$data/spiroplasma_kunkelii_CP010899.1.fa" \
  "$data/spiroplasma_kunkelii_CP010899.1_mutated_seed42.fa" --device gpu

COMMIT=$commit REPS=$reps TOOL_TIMEOUT=${TOOL_TIMEOUT:-100} bash "$here/peers.sh" run "$out"

if command -v cuobjdump >/dev/null; then
  cuobjdump -sass -fun '_ZN4swat4fast16fast_fill_kernelINS0_11fast_policyILi16ELb0ELb1EEEEEvNS0_12fast_problemE' \
    "$swat" | grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9.]+' | awk '{print $2}' | sort | uniq -c | sort -rn > "$out/sass_score16.txt"
fi
echo "run_all: done"

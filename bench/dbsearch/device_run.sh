#!/usr/bin/env bash
# bench/dbsearch/device_run.sh STEP… — database-search measurements in one GPU call, after
# `bench/dbsearch/device_run.sh pack` here (binaries, protein data and the peers into
# .carry/db, which the device call carries). Results go to $OUT (or .carry/out).
#   pack      (here)  copy the dbsearch tests, ../shared/data/{protein,dna},
#                     into .carry/db, CUDASW++4.0 (../shared/peers/cudasw4) and Debian's parasail
#                     into .carry/peers
#                     (the call also carries build/bin and build/tests/cli/test_cli)
#   realdata  the fast and paper engines' real-data tests (../shared/data/expected.tsv)
#   tall      tall, thin pairs (SkV1 x S. kunkelii both ways; TALL_MB Mb x 1 kb through
#             bench/peak_rss): windows of the default engine against --kernel fast whole, host
#             and GPU peak memory → tall.log, peak_rss_gpu_*.csv
#   pipe      bench db with and without pipelined pairs (DNA fragments × viral genomes ×1, ×4;
#             the protein queries ×1, ×10, ×50) → pipe_dna.csv, pipe_protein.csv
#   regress   bench fast / barrier / sw subsets for comparison with bench/results (issue 11)
#   ab        bench sw of this build and of d793d2b (.carry/old), interleaved (the seam's cost)
#   sanitize  scripts/gpu-check run sanitize (after scripts/gpu-check pack)
#   cli       the GPU CLI tests (database searches byte for byte equal to the CPU engine)
#   db        bench/dbsearch/run_db.sh: whole commands against CUDASW++4.0 and parasail → db.csv
#   test      test_dbsearch (every pair against the CPU engine)
#   alltests  scripts/gpu-check run tests: every GPU test binary and the GPU CLI tests
#   scan      swat-gpu bench db: queries of db_queries.fa × Swiss-Prot subset ×1, ×10, ×50,
#             shapes, task queue and static partition, device workers → scan.csv
#   cudasw4   CUDASW++4.0 makedb + scan (DPX) at ×1 and ×50 → cudasw4.log
#   sass      instruction histogram of the scan kernels → sass.txt
#   ncu       one Nsight Compute profile of the scan kernel (NCU_LANES lanes) at ×10 → ncu.txt
#   abdb      database scans of OLD (default .carry/old/swat-gpu-old) and this build, interleaved,
#             two rounds: DNA fragments x genomes x1, x4 both ways round, protein x1, x10, x50
#             → ab_{dna,prot}_<binary>.csv
#   ncusrc    stall sampling per SASS instruction of the DNA pipelined scan and the protein ×10
#             scan → ncu_{dna,prot}.txt, ncu_{dna,prot}_sass.csv
# Env: COMMIT (the device copy has no .git), SCALES (default "1,10,50"), LANES, ROWS, MODES,
#      PER_QUERY (set: time every query alone too).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
carry=$root/.carry/db
peers=$root/.carry/peers  # carried only by the calls that time the peers (cudasw4, db)
out=${OUT:-$root/.carry/out}
commit=${COMMIT:-unknown}

pack() {
  rm -rf "$carry" "$peers" && mkdir -p "$carry/bin" "$carry/data" "$peers"
  cp "$root"/build/tests/cuda/engines/dbsearch/test_dbsearch* "$carry/bin/"
  cp -r "$root/../shared/data/protein" "$root/../shared/data/dna" "$root/../shared/data/expected.tsv" "$carry/data/"
  cp -r "$root/../shared/peers/cudasw4" "$peers/"
  if [ -d /tmp/parasail-pkg ]; then cp -r /tmp/parasail-pkg "$peers/parasail"; fi
  # htslib and what it links that the GPU machine's image may lack.
  mkdir -p "$carry/lib"
  for l in libhts.so.3 libhtscodecs.so.2 libdeflate.so.0; do cp -L "/lib/x86_64-linux-gnu/$l" "$carry/lib/"; done
  du -sh "$carry"
}

setup() {
  mkdir -p "$out" /work
  export LD_LIBRARY_PATH=$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # The binaries were built in /work/main (absolute paths baked in): recreate it here.
  [ "$root" = /work/main ] || [ -e /work/main ] || ln -s "$root" /work/main
  # Tests look for ../shared/data beside the source tree they were built in (/work/main).
  [ -e /work/shared ] || { mkdir -p /work/shared && ln -s "$carry/data" /work/shared/data; }
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
}

q=$carry/data/protein/db_queries.fa
db=$carry/data/protein/swissprot_subset_mmseqs2.fa

replicate() {  # $1 = copies → /tmp/db_x$1.fa (headers renamed per copy)
  local f=/tmp/db_x$1.fa
  [ -s "$f" ] || awk -v n="$1" 'BEGIN{}{a[NR]=$0}END{for(c=1;c<=n;c++)for(i=1;i<=NR;i++){l=a[i]; if(substr(l,1,1)==">"){sub(/^>/,">c" c "_",l)}; print l}}' "$db" > "$f"
  echo "$f"
}

for step in "$@"; do
  case $step in
    pack) pack ;;
    test) setup; timeout 900 "$carry/bin/test_dbsearch" 2>&1 | tail -40 | tee -a "$out/tests.log" ;;
    alltests|sanitize) "$root/scripts/gpu-check" run "${step/alltests/tests}" ;;  # after scripts/gpu-check pack
    realdata) setup  # the real-data tests of the fast and paper engines (expected.tsv)
      (cd /work/main && for t in "engines/fast/test_fast --gtest_filter=FastRealData.*" "engines/paper/test_paper_real"; do
        echo "== $t" | tee -a "$out/tests.log"
        # shellcheck disable=SC2086
        timeout 500 $root/.carry/gpu/tests/cuda/$t 2>&1 | grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? from .* ran|Failure" | tee -a "$out/tests.log"
      done) ;;
    regress) setup  # the fast, barrier and paper-engine figures next to bench/results (issue 11)
      sg=/work/main/build/bin/swat-gpu
      timeout 200 $sg bench fast --lengths 16000,64000,256000,0 --variants score16,score32 --reps 3 --commit "$commit" --csv "$out/fast.csv" 2>&1 | tail -12
      timeout 200 $sg bench barrier --blocks 132,528 --blocks-per-sm 1,4 --repeats 3 --commit "$commit" --csv "$out/barrier.csv" 2>&1 | tail -30
      timeout 200 $sg bench sw --lengths 8461,30000 --kernels coalesced,tiled --modes cpu,graph,simple,lastin,cg --reps 2 --blocks 132 --csv "$out/sw.csv" 2>&1 | tail -24 ;;
    tall) setup  # tall, thin pairs: the default engine's windows against the fast engine whole; GPU peaks
      sg=/work/main/build/bin/swat-gpu d=$carry/data/dna
      sk="$d/spiroplasma_virus_SkV1_NC_009987.1.fa $d/spiroplasma_kunkelii_CP010899.1.fa"
      ks="$d/spiroplasma_kunkelii_CP010899.1.fa $d/spiroplasma_virus_SkV1_NC_009987.1.fa"
      for pair in "$sk" "$ks"; do
        for kernel in "" "--kernel fast"; do
          echo "== align $(basename ${pair% *}) x $(basename ${pair#* }) --device gpu $kernel" >> "$out/tall.log"
          timeout 120 $sg align $pair --device gpu $kernel --timing --quiet -o /dev/null 2>> "$out/tall.log"
        done
      done
      for mb in ${TALL_MB:-100 1000}; do
        python3 "$root/bench/peak_rss/peak_rss.py" --query-mb $mb --device ${TALL_DEVICES:-gpu,gpu/fast} \
          --timeout ${TALL_TIMEOUT:-150} --binary $sg --csv "$out/peak_rss_gpu_${mb}m.csv" 2>> "$out/tall.log"
      done
      tail -40 "$out/tall.log" ;;
    pipe) setup  # one warp per pair against the warps of a block sharing a pair (profile_mode::pipelined)
      frag=/tmp/fragments.fa viral=/tmp/viral.fa d=$carry/data/dna
      awk '!/^>/{s = s $0} END{for (i = 1; i <= length(s); i += 5000) printf ">frag%d\n%s\n", (i - 1) / 5000 + 1, substr(s, i, 5000)}' \
        "$d/spiroplasma_kunkelii_CP010899.1.fa" > "$frag"
      cat "$d/spiroplasma_virus_SkV1_NC_009987.1.fa" "$d/lambda_NC_001416.1.fa" "$d/stx2_phage_II_AP005154.1.fa" \
        "$d/sarscov2_MN908947.3.fa" > "$viral"
      timeout 200 /work/main/build/bin/swat-gpu bench db --alphabet dna --query "$frag" --db "$viral" --scale 1,4 \
        --modes queue,static --pipeline auto,off,on --reps 3 --commit "$commit" --csv "$out/pipe_dna.csv" 2>&1 | tee -a "$out/pipe.log"
      timeout 300 /work/main/build/bin/swat-gpu bench db --query "$q" --db "$db" --scale "${SCALES:-1,10,50}" \
        --modes queue --pipeline auto,off --reps 3 --commit "$commit" --csv "$out/pipe_protein.csv" 2>&1 | tee -a "$out/pipe.log" ;;
    ab) setup  # the paper engines' fill times, this build against .carry/old/swat-gpu-d793d2b, interleaved
      for rep in 1 2; do
        for b in /work/main/.carry/old/swat-gpu-d793d2b /work/main/build/bin/swat-gpu; do
          echo "== $b (round $rep)" | tee -a "$out/ab.log"
          timeout 200 $b bench sw --lengths 8461,30000 --kernels coalesced,tiled --modes cpu,graph,simple,lastin,cg --reps 3 \
            --blocks 132 --csv "$out/ab_$(basename $b)_$rep.csv" 2>&1 | grep -E "^(8461|30000)" | tee -a "$out/ab.log"
        done
      done ;;
    cli) setup
      (cd /work/main && timeout 900 build/tests/cli/test_cli --gtest_filter="${CLI_FILTER:-cli_gpu.*:*/cli_gpu_signal.*}" 2>&1 | tail -30 | tee -a "$out/tests.log") ;;
    db) setup; COMMIT=$commit SWAT=/work/main/build/bin/swat-gpu DNA_DATA=$carry/data/dna "$here/run_db.sh" "$out" ;;
    scan) setup
      timeout 900 /work/main/build/bin/swat-gpu bench db --query "$q" --db "$db" --scale "${SCALES:-1,10,50}" \
        --groups "${LANES:-0}" --rows "${ROWS:-0}" --modes "${MODES:-queue,static}" --workers "${WORKERS:-1}" --reps 3 \
        ${PER_QUERY:+--per-query} --commit "$commit" --csv "$out/scan.csv" 2>&1 | tee -a "$out/scan.log" ;;
    cudasw4) setup
      export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
      for x in 1 50; do
        f=$(replicate $x); mkdir -p /tmp/cdb
        /usr/bin/time -f "makedb x$x %e s" "$peers/cudasw4/makedb" "$f" /tmp/cdb/x$x > /dev/null 2>> "$out/cudasw4.log"
        for rep in 1 2; do
          /usr/bin/time -f "align x$x %e s" "$peers/cudasw4/align" --query "$q" --db /tmp/cdb/x$x --top 10 \
            --gop -12 --gex -1 --dpx --verbose 2>&1 | grep -E "Total time|GCUPS|align x" | tee -a "$out/cudasw4.log"
        done
      done ;;
    sass) setup
      cuobjdump -sass /work/main/build/bin/swat-gpu > /tmp/sass.txt 2>&1
      awk '/Function :/{f=$3} /VIADDMNMX|VIMNMX|PRMT|SHFL|LDS|IADD3|ISETP|BRA/{for(i=1;i<=NF;i++) if($i ~ /^(VIADDMNMX|VIMNMX|VIMNMX3|PRMT|SHFL|LDS|IADD3|ISETP|BRA)/){split($i,a,"."); c[f" "a[1]]++}} END{for(k in c) print k, c[k]}' /tmp/sass.txt | sort > "$out/sass.txt"
      head -40 "$out/sass.txt"
      awk '/Function :.*scan_policyILi32ELi16/{p=1} p&&/Function :/&&!/scan_policyILi32ELi16/{p=0} p' /tmp/sass.txt > "$out/sass_g32_r16.txt" ;;
    ncu) setup
      timeout 300 ncu --kernel-name regex:scan_kernel --launch-skip ${NCU_SKIP:-6} --launch-count 1 --section SpeedOfLight --section Occupancy \
        --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis \
        /work/main/build/bin/swat-gpu bench db --query "$q" --db "$db" --scale 10 --groups ${NCU_LANES:-0} --modes queue --reps 1 > "$out/ncu.txt" 2>&1
      tail -80 "$out/ncu.txt" ;;
    abdb) setup  # the same scans with two binaries, interleaved (a ratio survives a noisy machine)
      frag=/tmp/fragments.fa viral=/tmp/viral.fa d=$carry/data/dna
      awk '!/^>/{s = s $0} END{for (i = 1; i <= length(s); i += 5000) printf ">frag%d\n%s\n", (i - 1) / 5000 + 1, substr(s, i, 5000)}' \
        "$d/spiroplasma_kunkelii_CP010899.1.fa" > "$frag"
      cat "$d/spiroplasma_virus_SkV1_NC_009987.1.fa" "$d/lambda_NC_001416.1.fa" "$d/stx2_phage_II_AP005154.1.fa" \
        "$d/sarscov2_MN908947.3.fa" > "$viral"
      for round in 1 2; do
        for b in "${OLD:-$root/.carry/old/swat-gpu-old}" /work/main/build/bin/swat-gpu; do
          echo "== $b (round $round)" | tee -a "$out/abdb.log"
          timeout 200 "$b" bench db --alphabet dna --query "$frag" --db "$viral" --scale 1,4 --modes queue --transpose on,off \
            --reps 3 --csv "$out/ab_dna_$(basename "$b").csv" 2>&1 | tail -4 | tee -a "$out/abdb.log"
          timeout 200 "$b" bench db --query "$q" --db "$db" --scale 1,10,50 --modes queue --reps 3 \
            --csv "$out/ab_prot_$(basename "$b").csv" 2>&1 | tail -3 | tee -a "$out/abdb.log"
        done
      done ;;
    ncusrc) setup  # stall sampling per SASS instruction: the DNA pipelined scan and the protein ×10 scan
      frag=/tmp/fragments.fa viral=/tmp/viral.fa d=$carry/data/dna
      awk '!/^>/{s = s $0} END{for (i = 1; i <= length(s); i += 5000) printf ">frag%d\n%s\n", (i - 1) / 5000 + 1, substr(s, i, 5000)}' \
        "$d/spiroplasma_kunkelii_CP010899.1.fa" > "$frag"
      cat "$d/spiroplasma_virus_SkV1_NC_009987.1.fa" "$d/lambda_NC_001416.1.fa" "$d/stx2_phage_II_AP005154.1.fa" \
        "$d/sarscov2_MN908947.3.fa" > "$viral"
      sections="--section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis --section SourceCounters"
      # shellcheck disable=SC2086
      timeout 250 ncu --kernel-name regex:scan_kernel --launch-skip ${NCU_DNA_SKIP:-1} --launch-count 1 $sections -o /tmp/dna -f \
        /work/main/build/bin/swat-gpu bench db --alphabet dna --query "$frag" --db "$viral" --scale 1 --modes queue --pipeline on --reps 1 > "$out/ncu_dna.txt" 2>&1
      ncu -i /tmp/dna.ncu-rep --print-details all >> "$out/ncu_dna.txt" 2>&1
      ncu -i /tmp/dna.ncu-rep --page source --csv --print-source sass > "$out/ncu_dna_sass.csv" 2>&1
      # shellcheck disable=SC2086
      timeout 250 ncu --kernel-name regex:scan_kernel --launch-skip ${NCU_SKIP:-6} --launch-count 1 $sections -o /tmp/prot -f \
        /work/main/build/bin/swat-gpu bench db --query "$q" --db "$db" --scale 10 --modes queue --reps 1 > "$out/ncu_prot.txt" 2>&1
      ncu -i /tmp/prot.ncu-rep --print-details all >> "$out/ncu_prot.txt" 2>&1
      ncu -i /tmp/prot.ncu-rep --page source --csv --print-source sass > "$out/ncu_prot_sass.csv" 2>&1
      grep -E "scan_kernel|Duration|Ipc|Warp Cycles|Achieved Occ|Registers" "$out"/ncu_dna.txt "$out"/ncu_prot.txt | head -40 ;;
    *) echo "device_run.sh: unknown step $step" >&2; exit 2 ;;
  esac
done

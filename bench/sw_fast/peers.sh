#!/usr/bin/env bash
# bench/sw_fast/peers.sh — issue 5 peers benchmark: 30 kb SARS-CoV-2 x RaTG13, end to end with
# traceback, swat-gpu (GPU and CPU) against parasail_aligner and SSEARCH36 on the same machine.
#
#   bench/sw_fast/peers.sh pack          (here, where Debian's parasail and fasta3 are installed)
#       copies parasail_aligner, libparasail.so.8 (+ libgomp, libz) and ssearch36 into
#       .carry/gpu/peers/peers.tar.gz (gzip: libparasail alone is 10.6 MB) and checks that every
#       peer reports score 53973 on the pair with the packed copies.
#   bench/sw_fast/peers.sh check         (here) the same score check without packing
#   bench/sw_fast/peers.sh run OUTDIR    (on the GPU machine) times every tool and writes
#       OUTDIR/peers.csv: command,commit,device,date,tool,wall_s,score
#
# Scheme: DNA +2/-3, a gap of length k costs 5 + 2k. Each tool's own convention:
#   swat-gpu    --gap-open 5 --gap-extend 2          (open + k*extend)      [its defaults]
#   parasail    -o 7 -e 2 -M 2 -X 3 -d               (open is the first gap residue: o + (k-1)e)
#   ssearch36   -f -5 -g -2 -r +2/-3 -n -3           (FASTA36: f + k*g)
# Tool notes:
#   parasail_aligner polls stdin for 100 ms and reads it as a third input when it is readable
#     (/dev/null is): run it with stdin closed (0<&-). -f is the database, -q the queries; -x
#     turns the suffix-array pair filter off (on, it may drop the pair); -t threads only spread
#     pairs, one pair = one thread. The 16-bit functions saturate (score > 32767): _32 only.
#     sw_trace_diag_32 of Debian's 2.6.0 returns garbage (score -2147483640) on this pair: not used.
#   ssearch36 -z -1: no statistics. By default SSEARCH estimates E() from 500 shuffles of the
#     single library sequence (70 s here against 12 s without); listed as a separate row.
#     -T threads spread library sequences: one pair = one thread for the alignment display.
# Env: REPS (default 3 for the fast tools), COMMIT (when the tree has no .git), SWAT (binary),
#      DATA (folder of the FASTA files), PEERS_TGZ, TOOL_TIMEOUT (s per run, default 150).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
DATA=${DATA:-/work/shared/data/dna}
Q=$DATA/sarscov2_MN908947.3.fa
T=$DATA/ratg13_MN996532.2.fa
EXPECT=53973
PEERS_DIR=${PEERS_DIR:-$root/.carry/gpu/peers}
PEERS_TGZ=${PEERS_TGZ:-$PEERS_DIR/peers.tar.gz}
SWAT=${SWAT:-$root/build-gpu/bin/swat-gpu}
NP=$(nproc)

die() { echo "peers.sh: $*" >&2; exit 1; }

# tool commands (PB = folder with bin/ and lib/ of the peers); every one prints the score line
parasail_cmd() {  # $1 = function
  echo "LD_LIBRARY_PATH=$PB/lib $PB/bin/parasail_aligner -a $1 -x -d -M 2 -X 3 -o 7 -e 2 -t $NP -f $T -q $Q -O SSW -g \$W/out.txt 0<&-"
}
parasail_stats_cmd() {
  echo "LD_LIBRARY_PATH=$PB/lib $PB/bin/parasail_aligner -a sw_stats_striped_32 -x -d -M 2 -X 3 -o 7 -e 2 -t $NP -f $T -q $Q -g \$W/out.txt 0<&-"
}
ssearch_cmd() {  # $1 = extra options
  echo "$PB/bin/ssearch36 $1 -n -3 -f -5 -g -2 -r +2/-3 -T $NP -m 0 -d 1 $Q $T > \$W/out.txt"
}
swat_cmd() {  # $1 = device
  echo "$SWAT align $Q $T --device $1 --threads 0 --quiet --outfmt 'blast6 score' -o \$W/out.txt"
}

# score of the output in $W/out.txt, by tool kind
score_of() {
  case $1 in
    swat) awk -F'\t' 'NR==1{print $NF}' "$W/out.txt" ;;
    parasail_trace) sed -n 's/.*optimal_alignment_score: *\([-0-9]*\).*/\1/p' "$W/out.txt" | head -1 ;;
    parasail_stats) awk -F, 'NR==1{print $5}' "$W/out.txt" ;;
    ssearch) sed -n 's/^Smith-Waterman score: *\([0-9]*\).*/\1/p' "$W/out.txt" | head -1 ;;
  esac
}

unpack() {  # sets PB
  if [ -d "${PB:-}" ] && [ -x "$PB/bin/ssearch36" ]; then return; fi
  [ -f "$PEERS_TGZ" ] || die "no $PEERS_TGZ (run 'peers.sh pack' where parasail and fasta3 are installed)"
  PB=$(mktemp -d /tmp/swat_peers.XXXXXX)
  if command -v tar >/dev/null && command -v gzip >/dev/null; then
    tar -xzf "$PEERS_TGZ" -C "$PB" || die "tar failed"
  else
    python3 -c 'import sys,tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$PEERS_TGZ" "$PB" || die "untar failed"
  fi
}

now() { date +%s.%N; }

# run_one TOOL KIND DEVICE CMD: time CMD once, print "wall score"
run_one() {
  W=$(mktemp -d /tmp/swat_peers_run.XXXXXX)
  local t0 t1 rc
  t0=$(now)
  timeout "${TOOL_TIMEOUT:-150}" bash -c "W=$W; $4" >"$W/stdout" 2>"$W/stderr"; rc=$?
  t1=$(now)
  local s; s=$(score_of "$2" 2>/dev/null)
  if [ $rc -ne 0 ]; then s="rc$rc"; tail -3 "$W/stderr" >&2; fi
  awk -v a="$t0" -v b="$t1" -v s="${s:-none}" 'BEGIN{printf "%.3f %s\n", b-a, s}'
  rm -rf "$W"
}

check() {
  unpack
  local ok=1 r
  for spec in "parasail sw_trace_scan_32|parasail_trace|$(parasail_cmd sw_trace_scan_32)" \
              "parasail sw_stats_striped_32|parasail_stats|$(parasail_stats_cmd)" \
              "ssearch36 -z -1|ssearch|$(ssearch_cmd '-z -1')"; do
    IFS='|' read -r name kind cmd <<<"$spec"
    r=$(run_one "$name" "$kind" cpu "$cmd")
    echo "check: $name -> wall ${r% *} s, score ${r#* }"
    [ "${r#* }" = "$EXPECT" ] || ok=0
  done
  [ $ok = 1 ] || die "a peer did not report score $EXPECT"
  echo "check: every peer reports $EXPECT"
}

pack() {
  command -v parasail_aligner >/dev/null || die "parasail_aligner not installed (apt-get install parasail)"
  command -v ssearch36 >/dev/null || die "ssearch36 not installed (apt-get install fasta3)"
  local st; st=$(mktemp -d /tmp/swat_peers_pack.XXXXXX)
  mkdir -p "$st/bin" "$st/lib"
  cp -L "$(command -v parasail_aligner)" "$(command -v ssearch36)" "$st/bin/"
  # non-glibc/libstdc++ libraries of both tools (libparasail, libgomp, libz)
  for b in "$st"/bin/*; do
    ldd "$b" | awk '/=>/{print $1, $3}' | while read -r so path; do
      case $so in libc.so*|libm.so*|libstdc++*|libgcc_s*|libpthread*|libdl*|librt*|ld-linux*) ;;
        *) cp -L "$path" "$st/lib/$so" ;; esac
    done
  done
  strip --strip-unneeded "$st"/lib/* 2>/dev/null || true
  { echo "packed $(date -u +%FT%TZ) on $(hostname) by bench/sw_fast/peers.sh pack"
    dpkg-query -W -f '${Package} ${Version}\n' parasail libparasail8 fasta3 2>/dev/null
    (cd "$st" && sha256sum bin/* lib/*); } > "$st/MANIFEST"
  mkdir -p "$PEERS_DIR"
  tar -czf "$PEERS_TGZ" -C "$st" . || die "tar failed"
  cp "$st/MANIFEST" "$PEERS_DIR/MANIFEST"
  rm -rf "$st"
  ls -la "$PEERS_DIR"; du -sh "$PEERS_DIR"
  check
}

cpu_name() { lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1; }

run() {
  local out=${1:-}; [ -n "$out" ] || die "usage: peers.sh run OUTDIR"
  mkdir -p "$out"; unpack
  local csv=$out/peers.csv
  local commit=${COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
  local gpu; gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  local cpu; cpu="$(cpu_name) ($NP cores)"
  local reps=${REPS:-3}
  echo "command,commit,device,date,tool,wall_s,score" > "$csv"
  {
    echo "# bench/sw_fast/peers.sh run: $Q x $T, DNA +2/-3, gap k = 5+2k, expected score $EXPECT"
    echo "# host: $(hostname), cpu: $cpu, gpu: ${gpu:-none}, $(date -u +%FT%TZ)"
    cat "$PB/MANIFEST" 2>/dev/null
  } > "$out/peers_env.txt"
  [ -x "$SWAT" ] || echo "peers.sh: no $SWAT: swat-gpu rows skipped" >&2
  # name|kind|device|reps|command — in priority order (a run cut short keeps the first rows)
  local specs=(
    "swat-gpu align --device gpu (fast engine)|swat|gpu|$reps|$(swat_cmd gpu)"
    "parasail_aligner sw_trace_scan_32|parasail_trace|cpu|$reps|$(parasail_cmd sw_trace_scan_32)"
    "swat-gpu align --device cpu|swat|cpu|$reps|$(swat_cmd cpu)"
    "ssearch36 -z -1 (no statistics)|ssearch|cpu|$reps|$(ssearch_cmd '-z -1')"
    "parasail_aligner sw_stats_striped_32 (score only; no traceback)|parasail_stats|cpu|1|$(parasail_stats_cmd)"
    "parasail_aligner sw_trace_striped_32|parasail_trace|cpu|1|$(parasail_cmd sw_trace_striped_32)"
    "ssearch36 (default: E() from shuffles)|ssearch|cpu|1|$(ssearch_cmd '')"
  )
  local spec name kind dev n cmd i r devname
  for spec in "${specs[@]}"; do
    IFS='|' read -r name kind dev n cmd <<<"$spec"
    case $name in swat-gpu*) [ -x "$SWAT" ] || continue ;; esac
    if [ "$dev" = gpu ]; then devname="${gpu:-no GPU}"; else devname=$cpu; fi
    for ((i = 0; i < n; i++)); do
      r=$(run_one "$name" "$kind" "$dev" "$cmd")
      printf '"%s",%s,"%s",%s,"%s",%s,%s\n' "${cmd//\"/\'}" "$commit" "$devname" \
        "$(date -u +%FT%TZ)" "$name" "${r% *}" "${r#* }" >> "$csv"
      echo "$name: ${r% *} s, score ${r#* }"
    done
  done
  echo "wrote $csv"
}

case ${1:-} in
  pack) pack ;;
  check) check ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 pack | check | run OUTDIR" >&2; exit 2 ;;
esac

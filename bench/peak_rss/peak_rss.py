#!/usr/bin/env python3
"""Peak memory of `swat-gpu align` on one long query against one short target.

The query (random DNA with a mutated copy of the target planted in its middle) and the target
are generated into a temporary directory (never into the repository), the alignment runs once
per engine, and the peak resident memory of the process (wait4's ru_maxrss) is recorded beside
the size of the encoded sequences (1 byte per residue) and --cpu-mem. With --device gpu the
rise of GPU 0's used memory over its level before the run is sampled from nvidia-smi every 50 ms
(the device peak; run it on an otherwise idle GPU).

  bench/peak_rss/peak_rss.py [--query-mb 1000] [--target 1000] [--cpu-mem 256] \
      [--device cpu[,gpu]] [--binary build/bin/swat-gpu] [--csv bench/results/peak_rss_cpu.csv]

Writes one CSV row per device with '#' header lines: command, git commit, device, date.
"""

import argparse
import datetime
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None  # Debian package "time"
LINE = 80


def write_fasta(path, name, chunks):
    """Writes a FASTA record from byte chunks, 80 residues a line."""
    with open(path, "wb") as out:
        out.write(b">" + name.encode() + b"\n")
        carry = b""
        for chunk in chunks:
            data = carry + chunk
            cut = len(data) - len(data) % LINE
            out.write(b"\n".join(data[i:i + LINE] for i in range(0, cut, LINE)))
            if cut:
                out.write(b"\n")
            carry = data[cut:]
        if carry:
            out.write(carry + b"\n")


def random_dna(n, rng):
    """n random ACGT bytes from rng (seeded; randbytes through a translation table)."""
    return rng.randbytes(n).translate(bytes(b"ACGT"[i % 4] for i in range(256)))


def make_inputs(tmp, query_residues, target_residues):
    rng = random.Random(42)
    target = random_dna(target_residues, rng)
    planted = bytearray(target)
    for i in range(0, len(planted), 10):  # ~10% substitutions
        planted[i] = b"ACGT"[(b"ACGT".index(planted[i]) + 1) % 4]
    middle = query_residues // 2
    query_rng = random.Random(7)

    def query_chunks():
        step = 1 << 24
        done = 0
        while done < query_residues:
            n = min(step, query_residues - done)
            chunk = bytearray(random_dna(n, query_rng))
            lo, hi = max(middle, done), min(middle + len(planted), done + n)
            if lo < hi:
                chunk[lo - done:hi - done] = planted[lo - middle:hi - middle]
            yield bytes(chunk)
            done += n

    q, t = os.path.join(tmp, "query.fa"), os.path.join(tmp, "target.fa")
    write_fasta(q, "long_query", query_chunks())
    write_fasta(t, "short_target", [target])
    return q, t, middle


def gpu_used_mib():
    """Memory in use on GPU 0 (MiB) as nvidia-smi reports it, or None."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", "0"],
                             capture_output=True, text=True, timeout=5).stdout.strip()
        return int(out) if out.isdigit() else None
    except (OSError, subprocess.SubprocessError):
        return None


def gpu_sampler(baseline, stop, peak):
    """Largest rise of GPU 0's used memory over baseline (MiB) until stop is set. The device's
    total is sampled, not the process's own entry: inside a container nvidia-smi often cannot
    map processes to the container's pids (and GNU time stands between us and the aligner)."""
    while not stop.is_set():
        used = gpu_used_mib()
        if used is None:
            return
        peak[0] = max(peak[0], used - baseline)
        time.sleep(0.05)


def run_once(binary, q, t, spec, cpu_mem, tmp, timeout):
    """Runs one alignment (spec: a device, or device/kernel such as gpu/fast); returns (command,
    exit code, stdout, stderr, wall s, peak RSS KiB, GPU peak MiB or None)."""
    device, _, kernel = spec.partition("/")
    cmd = [binary, "align", q, t, "--device", device, "--cpu-mem", str(cpu_mem), "--quiet", "--timing"]
    if kernel:
        cmd += ["--kernel", kernel]
    out_path, err_path, rss_path = (os.path.join(tmp, n) for n in ("out", "err", "rss"))
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    actions = [(os.POSIX_SPAWN_OPEN, 1, out_path, flags, 0o644), (os.POSIX_SPAWN_OPEN, 2, err_path, flags, 0o644)]
    # A child's ru_maxrss starts from its parent's resident size at fork (this Python process):
    # GNU time forks from a small process, so its %M is the aligner's own peak.
    launcher = [TIME, "-f", "%M", "-o", rss_path] if TIME else []
    start = time.time()
    baseline = gpu_used_mib() if device == "gpu" and shutil.which("nvidia-smi") else None
    pid = os.posix_spawn((launcher or cmd)[0], launcher + cmd, os.environ, file_actions=actions)
    stop, gpu_peak = threading.Event(), [0]
    sampler = None
    if baseline is not None:
        sampler = threading.Thread(target=gpu_sampler, args=(baseline, stop, gpu_peak), daemon=True)
        sampler.start()
    timer = threading.Timer(timeout, os.kill, (pid, 9)) if timeout else None
    if timer:
        timer.start()
    _, status, usage = os.wait4(pid, 0)
    if timer:
        timer.cancel()
    wall = time.time() - start
    stop.set()
    if sampler:
        sampler.join()
    with open(out_path) as o, open(err_path) as e:
        out, err = o.read(), e.read()
    peak = usage.ru_maxrss
    if TIME:
        with open(rss_path) as r:
            peak = int(r.read().split()[-1])
    return cmd, os.waitstatus_to_exitcode(status), out, err, wall, peak, gpu_peak[0] if sampler else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--query-mb", type=float, default=1000, help="query length in millions of residues")
    ap.add_argument("--target", type=int, default=1000, help="target length in residues")
    ap.add_argument("--cpu-mem", type=int, default=256, help="--cpu-mem in MiB")
    ap.add_argument("--device", default="cpu", help="cpu, gpu, gpu/KERNEL (--kernel KERNEL), or several: cpu,gpu")
    ap.add_argument("--timeout", type=float, default=0, help="kill a run after this many seconds (0: never)")
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "bin", "swat-gpu"))
    ap.add_argument("--csv", default=os.path.join(ROOT, "bench", "results", "peak_rss_cpu.csv"))
    args = ap.parse_args()
    query_residues = int(args.query_mb * 1e6)
    commit = os.environ.get("COMMIT") or subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                                        capture_output=True, text=True).stdout.strip() or "unknown"
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    rows = []
    with tempfile.TemporaryDirectory(prefix="swat-peak-rss-") as tmp:
        t0 = time.time()
        q, t, planted_at = make_inputs(tmp, query_residues, args.target)
        print(f"generated {query_residues:,} + {args.target:,} residues in {time.time() - t0:.1f} s", file=sys.stderr)
        for device in args.device.split(","):
            cmd, code, out, err, wall, peak, gpu_peak = run_once(args.binary, q, t, device, args.cpu_mem, tmp,
                                                                 args.timeout)
            timing = re.search(r"align ([0-9.]+) s", err)
            hit = out.splitlines()[0].split("\t") if out.strip() else []
            row = {
                "device": device, "query_residues": query_residues, "target_residues": args.target,
                "cpu_mem_mib": args.cpu_mem, "encoded_mib": round((query_residues + args.target) / 2**20, 1),
                "peak_rss_mib": round(peak / 1024, 1), "rss_from": "gnu-time" if TIME else "wait4",
                "gpu_peak_mib": gpu_peak if gpu_peak is not None else "",
                "wall_s": round(wall, 1), "align_s": timing.group(1) if timing else "",
                "gcups": round(query_residues * args.target / float(timing.group(1)) / 1e9, 3) if timing else "",
                "score": hit[11] if len(hit) > 11 else "", "query_start": hit[6] if len(hit) > 6 else "",
                "planted_at": planted_at + 1, "exit": code,
            }
            rows.append(row)
            print(" ".join(f"{k}={v}" for k, v in row.items()), file=sys.stderr)
            print(err, file=sys.stderr)  # --quiet: the --timing lines, or the error
    os.makedirs(os.path.dirname(args.csv), exist_ok=True)
    with open(args.csv, "w") as f:
        f.write(f"# command: bench/peak_rss/peak_rss.py {' '.join(sys.argv[1:])} (runs: {' '.join(cmd[2:])})\n")
        f.write(f"# git_commit: {commit}\n")
        gpu = ""
        if "gpu" in args.device and shutil.which("nvidia-smi"):
            gpu = ", GPU " + subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", "0"],
                                            capture_output=True, text=True).stdout.strip()
        f.write(f"# device: {cpu}, {os.cpu_count()} cores{gpu}, {platform.node()}\n")
        f.write(f"# date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}\n")
        f.write(",".join(rows[0].keys()) + "\n")
        for row in rows:
            f.write(",".join(str(v) for v in row.values()) + "\n")
    print(f"wrote {args.csv}", file=sys.stderr)
    return 0 if all(r["exit"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

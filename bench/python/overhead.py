#!/usr/bin/env python3
"""Calling overhead of the Python package: CALLS swat_gpu.align() calls, each of one pair of
100-residue proteins, on the CPU engine (one thread), against parasail-python on the same pairs
in the same run (sw_trace_striped_16 with the same scheme, then the score, end and CIGAR).

Each swat_gpu call returns a full Hit (coordinates, CIGAR, identity, aligned rows, E-value and
bit score); parasail's returns a score, end cell and traceback that its CIGAR is decoded from.
The scheme is BLOSUM62 with a gap of length k costing 11 + k (swat-gpu's --gap-open 11
--gap-extend 1; parasail's open 12, extend 1); every pair's score is checked equal in both.
The rounds alternate (swat_gpu, parasail, …) and the median round of each is kept.

    build-python/venv/bin/pip install parasail        # for this benchmark only
    build-python/venv/bin/python bench/python/overhead.py --machine devvm \\
        --csv bench/results/python_overhead_devvm.csv
"""
import argparse
import datetime
import os
import platform
import random
import statistics
import subprocess
import sys
import time

import swat_gpu

AMINO = "ACDEFGHIKLMNPQRSTVWY"


def pairs_of(seed, count, length):
    # Related pairs: the target is the query with 20% substitutions and a few indels.
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        q = "".join(rng.choice(AMINO) for _ in range(length))
        t = list(q)
        for k in range(length):
            if rng.random() < 0.2:
                t[k] = rng.choice(AMINO)
        t = "".join(t)
        at = rng.randrange(10, length - 10)
        t = t[:at] + t[at + 2:] + rng.choice(AMINO) * 2  # a 2-residue deletion, length kept
        out.append((q, t))
    return out


def run_swat(pairs, calls):
    t0 = time.perf_counter()
    n = len(pairs)
    for k in range(calls):
        q, t = pairs[k % n]
        swat_gpu.align(q, t, device="cpu", threads=1, max_hits=1)
    return time.perf_counter() - t0


def run_parasail(parasail, pairs, calls):
    t0 = time.perf_counter()
    n = len(pairs)
    matrix = parasail.blosum62
    for k in range(calls):
        q, t = pairs[k % n]
        r = parasail.sw_trace_striped_16(q, t, 12, 1, matrix)
        r.score, r.end_query, r.end_ref, r.cigar.decode
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=10000)
    ap.add_argument("--length", type=int, default=100)
    ap.add_argument("--pairs", type=int, default=100, help="distinct pairs, called in turn")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=30)
    ap.add_argument("--machine", required=True, help="machine name for the CSV (e.g. devvm, h100)")
    ap.add_argument("--csv", required=True)
    args = ap.parse_args()
    try:
        import parasail
    except ImportError:
        sys.exit("overhead.py: parasail-python is not installed (pip install parasail into this environment)")

    pairs = pairs_of(args.seed, args.pairs, args.length)
    for q, t in pairs:  # the same problem: the same best scores
        s = swat_gpu.align(q, t, device="cpu", threads=1)
        p = parasail.sw_trace_striped_16(q, t, 12, 1, parasail.blosum62).score
        assert s and s[0].score == p, (q, t, s[0].score if s else None, p)
    run_swat(pairs, 200), run_parasail(parasail, pairs, 200)  # warm up
    times = {"swat_gpu.align": [], "parasail.sw_trace_striped_16": []}
    for _ in range(args.rounds):
        times["swat_gpu.align"].append(run_swat(pairs, args.calls))
        times["parasail.sw_trace_striped_16"].append(run_parasail(parasail, pairs, args.calls))

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    rate = {k: args.calls / statistics.median(v) for k, v in times.items()}
    parasail_rate = rate["parasail.sw_trace_striped_16"]
    lines = [
        "# bench/python/overhead.py: align() calls of one protein pair each, CPU engine, 1 thread, against parasail-python",
        "# command: " + " ".join([os.path.relpath(sys.executable, root) if sys.executable.startswith(root) else sys.executable,
                                   os.path.relpath(os.path.abspath(__file__), root), *sys.argv[1:]]),
        f"# git_commit: {commit}",
        f"# machine: {args.machine}: {cpu} ({os.cpu_count()} threads), Python {platform.python_version()}, "
        f"swat_gpu {swat_gpu.__version__}, parasail {parasail.__version__}",
        f"# date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}",
        f"# pairs: {args.pairs} seeded pairs of {args.length} residues (seed {args.seed}), called in turn; "
        f"median of {args.rounds} alternating rounds",
        "tool,calls,median_s,rounds_s,calls_per_s,rate_vs_parasail",
    ]
    for tool, v in times.items():
        lines.append(f"{tool},{args.calls},{statistics.median(v):.4f},{' '.join(f'{x:.4f}' for x in v)},"
                     f"{rate[tool]:.1f},{rate[tool] / parasail_rate:.3f}")
    with open(args.csv, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

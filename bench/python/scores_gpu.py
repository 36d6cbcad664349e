#!/usr/bin/env python3
"""swat_gpu.scores() of 1,000 x 1,000 proteins on the GPU against the scan of `swat-gpu align`
on the same files in the same run (its --timing line's "scan" seconds: the engine's search of
every pair, which scores() also runs, without the command's start, read, E-values and traceback).

The queries are the first QUERIES entries of the Swiss-Prot subset (../shared/data/protein/
swissprot_subset_mmseqs2.fa), the targets the next TARGETS entries, written as FASTA to a
temporary folder. Each mode runs once to start its engine, then --repeat times; the median is
kept. Modes: scores(Path, Path) (the files read per call), scores(list, list) (sequences from
Python), Searcher(targets).scores(list) (the database prepared once). --check compares the GPU's
scores with the CPU engine's (minutes on few cores).

    build-python/venv/bin/python bench/python/scores_gpu.py --binary build/bin/swat-gpu \\
        --machine h100 --csv bench/results/python_scores_h100.csv
"""
import argparse
import datetime
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

import swat_gpu

ROOT = pathlib.Path(__file__).resolve().parents[2]


def read_fasta(path, count, skip=0):
    records, name, seq = [], None, []
    with open(path) as f:
        for line in f:
            if line.startswith(">"):
                if name is not None:
                    records.append((name, "".join(seq)))
                name, seq = line[1:].split()[0], []
                if len(records) >= skip + count:
                    break
            else:
                seq.append(line.strip())
    if name is not None and len(records) < skip + count:
        records.append((name, "".join(seq)))
    return records[skip:skip + count]


def timed(fn, repeat):
    fn()  # starts the engine, warms the caches
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return runs


def command_scan(binary, q, t, repeat):
    runs = []
    for _ in range(repeat + 1):
        out = subprocess.run([str(binary), "align", str(q), str(t), "--device", "gpu", "--timing", "--outfmt",
                              "6", "-o", os.devnull], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(out.stderr)
        m = re.search(r"scan ([0-9.]+) s", out.stderr)
        if not m:
            sys.exit("no scan time in: " + out.stderr)
        runs.append(float(m.group(1)))
    return runs[1:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=str(ROOT / "build" / "bin" / "swat-gpu"))
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "protein" / "swissprot_subset_mmseqs2.fa"))
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--targets", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--check", action="store_true", help="compare with the CPU engine's scores")
    ap.add_argument("--machine", required=True)
    ap.add_argument("--csv", required=True)
    args = ap.parse_args()
    if swat_gpu.gpu_count() == 0:
        sys.exit("scores_gpu.py: no usable GPU (or swat_gpu was built without CUDA)")

    queries = read_fasta(args.data, args.queries)
    targets = read_fasta(args.data, args.targets, skip=args.queries)
    cells = sum(len(s) for _, s in queries) * sum(len(s) for _, s in targets)
    with tempfile.TemporaryDirectory() as tmp:
        q, t = pathlib.Path(tmp, "queries.fa"), pathlib.Path(tmp, "targets.fa")
        q.write_text("".join(f">{n}\n{s}\n" for n, s in queries))
        t.write_text("".join(f">{n}\n{s}\n" for n, s in targets))
        results = {"command scan (swat-gpu align --timing)": command_scan(args.binary, q, t, args.repeat)}
        results["swat_gpu.scores(Path, Path)"] = timed(lambda: swat_gpu.scores(q, t, device="gpu"), args.repeat)
        results["swat_gpu.scores(list, list)"] = timed(lambda: swat_gpu.scores(queries, targets, device="gpu"),
                                                       args.repeat)
        with swat_gpu.Searcher(targets, device="gpu") as db:
            results["Searcher(targets).scores(list)"] = timed(lambda: db.scores(queries), args.repeat)
            device = db.device
        checked = "not checked"
        if args.check:
            gpu = swat_gpu.scores(q, t, device="gpu")
            cpu = swat_gpu.scores(q, t, device="cpu")
            if not (gpu == cpu).all():
                sys.exit("scores_gpu.py: the GPU's scores differ from the CPU engine's")
            checked = "equal to the CPU engine's"

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    scan = statistics.median(results["command scan (swat-gpu align --timing)"])
    lines = [
        "# bench/python/scores_gpu.py: scores() of proteins on the GPU against the command's scan, same files, same run",
        "# command: " + " ".join([sys.executable, os.path.relpath(os.path.abspath(__file__), ROOT), *sys.argv[1:]]),
        f"# git_commit: {commit}",
        f"# machine: {args.machine}: {device}",
        f"# date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}",
        f"# data: {args.queries} x {args.targets} proteins of {os.path.basename(args.data)} ({cells:.4g} cells); "
        f"scores {checked}; median of {args.repeat} after one warm-up",
        "mode,median_s,runs_s,gcups,ratio_to_scan",
    ]
    for mode, runs in results.items():
        m = statistics.median(runs)
        lines.append(f"{mode},{m:.4f},{' '.join(f'{x:.4f}' for x in runs)},{cells / m / 1e9:.1f},{m / scan:.3f}")
    with open(args.csv, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

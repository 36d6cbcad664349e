#!/usr/bin/env python3
"""Figure 11 of Xiao & Feng 2010 for our GPU: barrier microbenchmark time per sync mode.

Usage: python3 bench/plot_barrier.py bench/results/barrier_h100.csv [out.png]
Reads the CSV written by `swat-gpu bench barrier` / swat_bench_barrier (lines starting with '#'
are the header: command, commit, device, date) and draws, for each blocks-per-SM setting, the
total time of 10,000 rounds (ms, log scale) against the number of blocks, one line per mode, plus
the compute-only time (barrier removed). Needs python3-matplotlib.
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ORDER = ["cpu-explicit", "cpu", "graph", "simple", "tree", "tree3", "lockfree", "cg", "flag",
         "stripe", "lastin"]


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    path = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else path.rsplit(".", 1)[0] + ".png"
    header = []
    with open(path) as f:
        lines = [ln for ln in f if not (ln.startswith("#") and header.append(ln[1:].strip()) is None)]
    rows = list(csv.DictReader(lines))
    by_bpsm = defaultdict(list)
    for r in rows:
        by_bpsm[int(r["blocks_per_sm"])].append(r)
    fig, axes = plt.subplots(1, len(by_bpsm), figsize=(7 * len(by_bpsm), 5), squeeze=False)
    device = rows[0]["device"] if rows else "?"
    for ax, (bpsm, rs) in zip(axes[0], sorted(by_bpsm.items())):
        series = defaultdict(dict)
        compute = {}
        for r in rs:
            series[r["mode"]][int(r["blocks"])] = float(r["total_ms"])
            compute[int(r["blocks"])] = float(r["compute_ms"])
        for mode in ORDER + sorted(set(series) - set(ORDER)):
            if mode not in series:
                continue
            xs = sorted(series[mode])
            style = "-o" if mode in ("flag", "stripe", "lastin") else "--."
            ax.plot(xs, [series[mode][x] for x in xs], style, label=mode)
        xs = sorted(compute)
        ax.plot(xs, [compute[x] for x in xs], "k:", label="compute only")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(xs)
        ax.set_xticklabels([str(x) for x in xs])
        ax.set_xlabel("blocks")
        ax.set_ylabel(f"time of {rs[0]['rounds']} rounds (ms)")
        ax.set_title(f"{device}: {bpsm} block(s)/SM, {rs[0]['threads']} threads/block")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Barrier microbenchmark (Xiao & Feng 2010, Fig. 11): mean of two floats")
    fig.text(0.01, 0.01, " | ".join(h for h in header if h.startswith(("git", "date"))), fontsize=7)
    fig.tight_layout(rect=(0, 0.03, 1, 0.95))
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Figures 8 and 10 of Xiao, Aji & Feng 2009 for our GPU, from `swat-gpu bench sw --csv`.

  python3 bench/plot_sw.py bench/results/sw_h100.csv [--out bench/results]

Figure 8: matrix-filling time (ms) vs. block count at the sweep length, one panel per kernel,
one line per sync mode. Figure 10: compute vs. sync share of the fill time of each kernel's
best persistent mode and of the cpu mode at its best block count.
"""
import argparse
import csv
import os
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

KERNELS = ["diagonal", "coalesced", "tiled"]
LAUNCHED = {"cpu", "cpu-explicit", "graph"}


def load(path):
    with open(path) as f:
        rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]
    for r in rows:
        for k in ("length", "blocks", "steps"):
            r[k] = int(r[k])
        for k in ("fill_ms", "gcups", "compute_ms", "sync_ms"):
            r[k] = float(r[k])
    return rows


def figure8(rows, length, out):
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), sharey=False)
    for ax, kernel in zip(axes, KERNELS):
        series = defaultdict(list)
        for r in rows:
            if r["length"] == length and r["kernel"] == kernel:
                series[r["mode"]].append((r["blocks"], r["fill_ms"]))
        for mode, pts in sorted(series.items()):
            pts.sort()
            style = "--" if mode in LAUNCHED else ("k:" if mode == "none" else "-")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", ms=3, label=mode)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{kernel}, {length} x {length}")
        ax.set_xlabel("blocks")
        ax.set_ylabel("matrix-filling time (ms)")
        ax.grid(True, which="both", alpha=0.3)
    axes[-1].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sw_fig8_fill_time_vs_blocks.png"), dpi=130)


def figure10(rows, length, out):
    bars = []
    for kernel in KERNELS:
        sel = [r for r in rows if r["length"] == length and r["kernel"] == kernel]
        pers = [r for r in sel if r["mode"] not in LAUNCHED and r["mode"] != "none"]
        cpu = [r for r in sel if r["mode"] == "cpu"]
        for label, group in (("cpu", cpu), ("best GPU", pers)):
            if group:
                best = min(group, key=lambda r: r["fill_ms"])
                bars.append((f"{kernel}\n{label}: {best['mode']}\n{best['blocks']} blocks", best))
    fig, ax = plt.subplots(figsize=(11, 4.5))
    x = range(len(bars))
    comp = [100 * b["compute_ms"] / b["fill_ms"] if b["fill_ms"] else 0 for _, b in bars]
    comp = [min(c, 100) for c in comp]
    ax.bar(x, comp, label="computation")
    ax.bar(x, [100 - c for c in comp], bottom=comp, label="synchronization")
    ax.set_xticks(list(x), [b[0] for b in bars], fontsize=7)
    ax.set_ylabel("% of matrix-filling time")
    ax.set_title(f"Compute / sync split at {length} (compute = barrier removed)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sw_fig10_compute_sync_split.png"), dpi=130)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    ap.add_argument("--length", type=int, default=None, help="sweep length (default: the one with most block counts)")
    a = ap.parse_args()
    rows = load(a.csv)
    length = a.length
    if length is None:
        counts = defaultdict(set)
        for r in rows:
            counts[r["length"]].add(r["blocks"])
        length = max(counts, key=lambda k: len(counts[k]))
    os.makedirs(a.out, exist_ok=True)
    figure8(rows, length, a.out)
    figure10(rows, length, a.out)


if __name__ == "__main__":
    main()

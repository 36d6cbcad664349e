#!/usr/bin/env python3
"""Plots of `swat-gpu bench fft --csv` and `swat-gpu bench sort --csv` (Xiao & Feng 2010
Figures 13-15 for the bundled FFT and bitonic sort).

usage: plot_steps.py fft|sort RESULTS.csv [OUT_DIR]   (writes <what>_fig13_time_vs_blocks.png,
<what>_fig14_sync_vs_blocks.png, <what>_fig15_sync_share.png, <what>_time_vs_size.png)
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PERSISTENT = ["simple", "tree", "tree3", "lockfree", "cg", "flag", "stripe", "lastin"]
LAUNCH = ["cpu", "cpu-explicit", "graph"]
LAUNCH_STYLE = {"cpu": ("--", "black"), "cpu-explicit": (":", "dimgrey"), "graph": ("-.", "tab:blue")}


def read(path):
    with open(path) as f:
        meta = [line.strip("# \n") for line in f if line.startswith("#")]
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return meta, rows


def figures(path, out_dir, what, ref_name, group_key, group_value):
    meta, rows = read(path)
    title = f"{what} - " + "; ".join(m for m in meta if m.startswith("device"))
    sweep = [r for r in rows if r["section"] == "blocks"]
    sizes = [r for r in rows if r["section"] == "size" and r[group_key] == group_value]
    os.makedirs(out_dir, exist_ok=True)
    if sweep:
        n = sweep[0]["log2_n"]
        for col, fig, label in (("total_ms", "fig13_time_vs_blocks", "kernel time (ms)"),
                                ("sync_ms", "fig14_sync_vs_blocks", "sync time (ms)")):
            plt.figure(figsize=(7, 4.5))
            for mode in PERSISTENT:
                pts = [(int(r["blocks"]), float(r[col])) for r in sweep if r["mode"] == mode]
                if pts:
                    plt.plot(*zip(*sorted(pts)), marker="o", label=mode)
            for mode in LAUNCH:
                pts = [float(r[col]) for r in sweep if r["mode"] == mode]
                if pts:
                    style, color = LAUNCH_STYLE[mode]
                    plt.axhline(pts[0], linestyle=style, color=color, label=f"{mode} (one launch per step)")
            plt.xscale("log", base=2)
            plt.xlabel("blocks in the kernel")
            plt.ylabel(label)
            plt.title(f"{title}\n2^{n}: {label} vs blocks")
            plt.legend(fontsize=7)
            plt.tight_layout()
            plt.savefig(os.path.join(out_dir, f"{what.lower()}_{fig}.png"), dpi=120)
            plt.close()
        # Figure 15: compute / sync share per mode at the widest grid of the sweep.
        widest = {}
        for r in sweep:
            if r["mode"] not in widest or int(r["blocks"]) > int(widest[r["mode"]]["blocks"]):
                widest[r["mode"]] = r
        modes = [m for m in LAUNCH + PERSISTENT if m in widest]
        sync = [float(widest[m]["sync_pct"]) for m in modes]
        plt.figure(figsize=(7, 4.5))
        plt.bar(modes, [100 - s for s in sync], label="compute")
        plt.bar(modes, sync, bottom=[100 - s for s in sync], label="sync")
        plt.ylabel("% of kernel time")
        plt.xticks(rotation=30)
        plt.title(f"{title}\n2^{n}: share of compute and sync")
        plt.legend()
        plt.tight_layout()
        plt.savefig(os.path.join(out_dir, f"{what.lower()}_fig15_sync_share.png"), dpi=120)
        plt.close()
    if sizes:
        plt.figure(figsize=(7, 4.5))
        for mode in LAUNCH + PERSISTENT:
            pts = [(int(r["log2_n"]), float(r["total_ms"])) for r in sizes if r["mode"] == mode]
            if pts:
                plt.plot(*zip(*sorted(pts)), marker=".", label=mode)
        ref = {}
        for r in sizes:
            ref[int(r["log2_n"])] = float(r[ref_name + "_ms"])
        plt.plot(*zip(*sorted(ref.items())), "k-", linewidth=2, label=ref_name)
        plt.yscale("log")
        plt.xlabel("log2 size")
        plt.ylabel("time (ms)")
        plt.title(f"{title}\ntime vs size ({group_value})")
        plt.legend(fontsize=7)
        plt.tight_layout()
        plt.savefig(os.path.join(out_dir, f"{what.lower()}_time_vs_size.png"), dpi=120)
        plt.close()


# Per benchmark: title word, library column, grouping column and its first group.
KINDS = {"fft": ("FFT", "cufft", "precision", "fp32"), "sort": ("SORT", "cub", "what", "keys")}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in KINDS:
        sys.exit(__doc__)
    out = sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(os.path.abspath(sys.argv[2]))
    figures(sys.argv[2], out, *KINDS[sys.argv[1]])

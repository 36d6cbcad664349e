#!/usr/bin/env python3
"""GCUPS vs. sequence length for every engine (issue 5): the fast engine, the paper's engines
and the CPU engine, plus end-to-end points (swat-gpu align and the CPU peers) where given.

  /usr/bin/python3 bench/plot_fast.py \
      --fast bench/results/fast_h100_v3.csv bench/results/fast_8461_30k_h100.csv --sw bench/results/sw_h100.csv \
      --cpu bench/results/fast_gcups_cpu_epyc2.csv --cpu-label "AMD EPYC (2 cores, dev VM)" \
      --peers bench/results/peers_h100.csv \
      --out bench/results/fast_gcups_h100.png

Fast: `bench fast` rows, one line per variant (score16, score32, origins32) and target (the
mutated copy, or the reversed copy with `--reverse-target`), GCUPS = m*n / kernel time.
Paper engines: `bench sw` rows, for each kernel (diagonal, coalesced, tiled) the best GCUPS over
every sync mode and block count at each length (fill only).
CPU: `swat-gpu bench cpu --csv` rows (score pass and full alignment, one pair = one thread).
End to end (hollow markers): wall time of the whole command, m*n / wall, from e2e_h100.csv and
peers*.csv (median of the repeats of each tool).
"""
import argparse
import csv
import os
import statistics
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SARS_M, SARS_N = 29903, 29855  # MN908947.3 x MN996532.2


def rows_of(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


TARGET_NOTE = {"mutated": "vs mutated copy", "reversed": "vs reversed copy (small scores)"}


def fast_series(paths):
    """One series per variant (and per target when the CSVs have that column); the grid-barrier
    variants (score16@MODE) are left to their own table."""
    s = defaultdict(list)
    rerun_from = {}  # series -> smallest length whose 16-bit fill overflowed
    for r in (row for path in paths for row in rows_of(path)):
        if "@" in r["variant"]:
            continue
        name = r["variant"]
        if r.get("target"):
            name += ", " + TARGET_NOTE.get(r["target"], r["target"])
        if r["variant"].startswith("score16") and r.get("ran") == "score32":
            rerun_from[name] = min(rerun_from.get(name, 1 << 40), int(r["m"]))
        s[name].append((int(r["m"]), float(r["gcups"])))
    return {(f"{k}; overflow, rerun at 32 bits from {rerun_from[k]:,}" if k in rerun_from else k): v
            for k, v in s.items()}


def sw_series(path):
    best = defaultdict(dict)  # kernel -> length -> gcups
    for r in rows_of(path):
        k, L, g = r["kernel"], int(r["length"]), float(r["gcups"])
        if g > best[k].get(L, 0.0):
            best[k][L] = g
    return {k: sorted(v.items()) for k, v in best.items()}


def cpu_series(path):
    """bench cpu CSV; column names looked up loosely (length, score/align GCUPS)."""
    rows = rows_of(path)
    if not rows:
        return {}
    cols = rows[0].keys()
    lcol = next(c for c in cols if c.lower() in ("length", "m", "len"))
    out = {}
    for c in cols:
        cl = c.lower()
        if "gcups" in cl:
            name = "score pass" if "score" in cl else ("full alignment" if "align" in cl else c)
            out[name] = sorted((int(r[lcol]), float(r[c])) for r in rows if r[c])
    return out


def e2e_points(path):
    pts = []
    for r in rows_of(path):
        m, n, t = int(r["query_len"]), int(r["target_len"]), float(r["wall_s"])
        pts.append((f"swat-gpu align --device {r['device']} (e2e, H100 host)", m, m * n / t / 1e9))
    return pts


def peers_points(path):
    times = defaultdict(list)
    host = {}
    for r in rows_of(path):
        try:
            t = float(r["wall_s"])
        except ValueError:
            continue
        if r["score"] != "53973":
            continue
        times[r["tool"]].append(t)
        host[r["tool"]] = r["device"]
    return [(f"{tool} (e2e, {host[tool]})", SARS_M, SARS_M * SARS_N / statistics.median(ts) / 1e9)
            for tool, ts in times.items()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fast", nargs="+", default=["bench/results/fast_h100_v3.csv"],
                    help="bench fast CSVs (rows of one variant and target are merged)")
    ap.add_argument("--sw", default="bench/results/sw_h100.csv")
    ap.add_argument("--cpu", default=None, help="swat-gpu bench cpu --csv output")
    ap.add_argument("--cpu-label", default="CPU")
    ap.add_argument("--e2e", default=None)
    ap.add_argument("--peers", default=None)
    ap.add_argument("--title", default="Smith-Waterman GCUPS vs. length (DNA 2/-3/5+2k, H100)")
    ap.add_argument("--out", default="bench/results/fast_gcups_h100.png")
    a = ap.parse_args()

    fig, ax = plt.subplots(figsize=(15, 7))
    for v, pts in sorted(fast_series(a.fast).items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", lw=2.2,
                label=f"fast {v} (H100, kernel time)")
    for k, pts in sorted(sw_series(a.sw).items()):
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "s--",
                label=f"paper {k}, best mode/blocks (H100, fill)")
    if a.cpu and os.path.exists(a.cpu):
        for name, pts in sorted(cpu_series(a.cpu).items()):
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "^:",
                    label=f"CPU engine {name}, 1 thread ({a.cpu_label})")
    markers = iter("DvP*XhpH<>dD")
    extra = []
    if a.e2e and os.path.exists(a.e2e):
        extra += e2e_points(a.e2e)
    if a.peers and os.path.exists(a.peers):
        extra += peers_points(a.peers)
    for name, L, g in extra:
        ax.plot([L], [g], next(markers, "o"), mfc="none", ms=10, mew=1.8, ls="none",
                label=f"{name}: {g:.3g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("sequence length m = n (bp)")
    ax.set_ylabel("GCUPS (m·n / time)")
    ax.set_title(a.title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    fig.savefig(a.out, dpi=130)
    print("wrote", a.out)


if __name__ == "__main__":
    main()

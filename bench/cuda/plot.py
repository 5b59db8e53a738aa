#!/usr/bin/env python3
"""Plots bench/cuda/run.py's bench_cuda.json: per case, our speed relative to torch.sum (same
run) and the GB/s of ours, torch and the read floor (torch's full float32 sum of the same bytes).
Replots a recorded run too: plot.py bench/cuda/results_h100.json docs/perf_cuda.png

usage: plot.py BENCH_CUDA_JSON OUT_PNG"""
import json, sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

data = json.load(open(sys.argv[1]))
cases = data["cases"]
names = [c["name"] for c in cases]
speed = [c["torch_ms"] / c["ours_ms"] for c in cases]
x = range(len(cases))

from matplotlib.patches import Patch

fig = plt.figure(figsize=(13, 10.5))
# The tiny cases (every bar under 2% of the largest: the cost of a launch is all there is) get a
# GB/s panel of their own, where their bars can be seen; the ratio panel shows every case.
top = max(max(c["ours_gbps"], c["torch_gbps"]) for c in cases)
tiny = [i for i, c in enumerate(cases) if max(c["ours_gbps"], c["torch_gbps"]) < 0.02 * top]
big = [i for i in range(len(cases)) if i not in tiny]
gs = fig.add_gridspec(2, 2, width_ratios=[len(tiny) + 1, len(big)] if tiny else [1, 1000], height_ratios=[1, 1.1])
a1 = fig.add_subplot(gs[0, :])
# parity band: within 3% of torch either way (run-to-run spread of the same kernel is ~1-2%)
colors = ["tab:green" if s >= 1.03 else "tab:red" if s < 0.97 else "tab:gray" for s in speed]
a1.bar(x, speed, color=colors)
a1.axhline(1.0, color="black", lw=0.8)
a1.set_yscale("log")
a1.set_ylabel("torch time / our time (log)")
for i, s in enumerate(speed):
    a1.text(i, s * 1.05, f"{s:.2f}", ha="center", va="bottom", fontsize=7)
a1.set_title(f"tinytensor tensor_sum vs torch.sum, {data['gpu']}, torch {data['torch']}, same run "
             f"(CUDA events, L2 flushed, median of {data['reps']})", fontsize=10)
a1.legend(handles=[Patch(color="tab:green", label="ours faster (ratio >= 1.03)"),
                   Patch(color="tab:gray", label="parity (within 3%: run-to-run spread)"),
                   Patch(color="tab:red", label="torch faster (ratio < 0.97)")],
          fontsize=8, loc="upper left")
a1.set_xticks(list(x))
a1.set_xticklabels(names, rotation=60, ha="right", fontsize=7)
a1.set_xlim(-0.6, len(cases) - 0.4)
a1.set_ylim(top=max(speed) * 1.6)

w = 0.28
floor_gbps = [c["ours_gbps"] * c["ours_ms"] / c["floor_ms"] for c in cases]


def gbps_bars(ax, idx, scale):
    xs = range(len(idx))
    ax.bar([k - w for k in xs], [cases[i]["ours_gbps"] * scale for i in idx], w, color="tab:blue", label="ours")
    ax.bar(list(xs), [cases[i]["torch_gbps"] * scale for i in idx], w, color="tab:orange", label="torch.sum")
    ax.bar([k + w for k in xs], [floor_gbps[i] * scale for i in idx], w, color="lightgray",
           label="read floor (fp32 full sum, same bytes)")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([names[i] for i in idx], rotation=60, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(idx) - 0.4)


a2 = fig.add_subplot(gs[1, 1] if tiny else gs[1, :])
gbps_bars(a2, big, 1.0)
a2.set_ylabel("GB/s (input + output bytes)")
a2.set_ylim(0, top * 1.18)
a2.legend(fontsize=8, loc="upper center", ncol=3)
if tiny:
    a3 = fig.add_subplot(gs[1, 0])
    gbps_bars(a3, tiny, 1000.0)
    a3.set_ylabel("MB/s (a scale of its own)")
    a3.set_title("tiny inputs", fontsize=9)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)

#!/usr/bin/env python3
"""Plots bench/cuda/run.py's bench_cuda.json: per case, our speed relative to torch.sum (same
run) and the GB/s of ours, torch and the read floor (torch's full float32 sum of the same bytes).

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

fig, (a1, a2) = plt.subplots(2, 1, figsize=(13, 8.5), sharex=True)
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

w = 0.28
a2.bar([i - w for i in x], [c["ours_gbps"] for c in cases], w, label="ours")
a2.bar(list(x), [c["torch_gbps"] for c in cases], w, label="torch.sum")
floor_gbps = [c["ours_gbps"] * c["ours_ms"] / c["floor_ms"] for c in cases]
a2.bar([i + w for i in x], floor_gbps, w, label="read floor (fp32 full sum, same bytes)", color="lightgray")
a2.set_ylabel("GB/s (input + output bytes)")
a2.legend(fontsize=8, loc="upper left")
a2.set_xticks(list(x))
a2.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)

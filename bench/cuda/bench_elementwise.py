#!/usr/bin/env python3
"""tinytensor's CUDA elementwise engine next to torch on the cases of bench_elementwise.c, in one
run on one GPU, same method for both: CUDA events around the call, a 256 MiB write between runs to
flush the L2, 5 warm-up runs, median of REPS. GB/s = (bytes read + written) / median time.
Writes OUT_DIR/bench_elementwise.md.

usage: bench_elementwise.py BENCH_BINARY OUT_DIR [REPS]"""
import os, subprocess, sys

binary, out_dir = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 50

res = subprocess.run([binary, str(reps)], capture_output=True, text=True)
sys.stderr.write(res.stderr)
ours, order = {}, []
for line in res.stdout.splitlines():
    p = line.split()
    if len(p) >= 4 and p[1] != "FAILED":
        ours[p[0]] = (float(p[1]), float(p[3]))
        order.append(p[0])
    else:
        print("ours:", line)
        if p:
            order.append(p[0])

import torch
import torch.nn.functional as F

dev = torch.device("cuda")
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
n, side = 64 << 20, 8192
a = torch.rand(n, device=dev)
b = torch.rand(n, device=dev)
m = torch.rand(side, side, device=dev)
row = torch.rand(side, device=dev)
mt = m.t()
big_src = torch.ones(1 << 30, dtype=torch.uint8, device=dev)
big_dst = torch.empty_like(big_src)
cases = {
    "memcpy_d2d_1g": (lambda: big_dst.copy_(big_src), 2.0 * (1 << 30)),
    "add_256m": (lambda: a + b, 12.0 * n),
    "add_row_8192": (lambda: m + row, 4.0 * (2.0 * side * side + side)),
    "copy_transposed": (lambda: mt.contiguous(), 8.0 * side * side),
    "cast_bf16_256m": (lambda: a.to(torch.bfloat16), 6.0 * n),
    "gelu_256m": (lambda: F.gelu(a), 8.0 * n),
}
theirs = {}
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
for name, (f, nbytes) in cases.items():
    times = []
    for r in range(-5, reps):
        flush.fill_(r & 0xff)
        s.record()
        y = f()
        e.record()
        e.synchronize()
        del y
        if r >= 0:
            times.append(s.elapsed_time(e))
    times.sort()
    med = times[len(times) // 2]
    theirs[name] = (med, nbytes / (med * 1e-3) / 1e9)

anchor = ours.get("memcpy_d2d_1g", (None, None))[1]
gpu = torch.cuda.get_device_name(0)
rows = [f"GPU: {gpu}, torch {torch.__version__}, median of {reps} runs, L2 flushed, CUDA events; "
        f"GB/s = bytes read + written / time; 'of copy' = ours / our cudaMemcpy D2D 1 GiB ({anchor} GB/s)", "",
        "| case | ours ms | ours GB/s | of copy | torch ms | torch GB/s | ours/torch (speed) |",
        "|---|---|---|---|---|---|---|"]
for name in cases:
    o, t = ours.get(name), theirs[name]
    if o is None:
        rows.append(f"| {name} | failed | | | {t[0]:.4f} | {t[1]:.0f} | |")
        continue
    frac = f"{o[1] / anchor:.0%}" if anchor else ""
    rows.append(f"| {name} | {o[0]:.4f} | {o[1]:.0f} | {frac} | {t[0]:.4f} | {t[1]:.0f} | {t[0] / o[0]:.2f} |")
table = "\n".join(rows) + "\n"
open(os.path.join(out_dir, "bench_elementwise.md"), "w").write(table)
print(table)

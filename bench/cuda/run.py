#!/usr/bin/env python3
"""tinytensor's CUDA tensor_sum next to torch.sum on the cases of bench/cuda/cases.json (a copy
of shared/bench/cases.json), in one run on one GPU, same method for both: CUDA events around
the call, a 256 MiB write between runs to flush the L2, warm-up, median of REPS runs.
GB/s = (input + output bytes) / median time.

usage: run.py BENCH_SUM_BINARY OUT_DIR [REPS]"""
import json, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
binary, out_dir = sys.argv[1], sys.argv[2]
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 50
cases = json.load(open(os.path.join(here, "cases.json")))["cases"]

# ---- ours ----
lines = []
for c in cases:
    dims = c["dims"] or []
    lines.append(f'{c["name"]} {c["dtype"]} {int(c["transposed"])} {int(c["keepdim"])} {len(c["shape"])} '
                 + " ".join(map(str, c["shape"])) + f" {len(dims)} " + " ".join(map(str, dims)))
case_file = os.path.join(out_dir, "cases.txt")
open(case_file, "w").write("\n".join(lines) + "\n")
res = subprocess.run([binary, case_file, str(reps)], capture_output=True, text=True)
sys.stderr.write(res.stderr)
ours = {}
for line in res.stdout.splitlines():
    p = line.split()
    if len(p) >= 4 and p[1] != "FAILED":
        ours[p[0]] = (float(p[1]), float(p[3]))
    else:
        print("ours:", line)

# ---- torch ----
import torch
dev = torch.device("cuda")
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
theirs = {}
dt = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16,
      "int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64}
for c in cases:
    d = dt[c["dtype"]]
    shape = c["shape"]
    if d.is_floating_point:
        x = torch.rand(shape, device=dev, dtype=torch.float32).mul_(2).sub_(1).to(d)
    else:
        x = torch.randint(-100, 100, shape, device=dev, dtype=torch.int64).to(d)
    if c["transposed"]:
        x = x.t()
    dims = c["dims"]
    f = (lambda: x.sum()) if dims is None else (lambda: x.sum(dim=dims, keepdim=c["keepdim"]))
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for r in range(-5, reps):
        flush.fill_(r & 0xff)
        s.record()
        y = f()
        e.record()
        e.synchronize()
        if r >= 0:
            times.append(s.elapsed_time(e))
    times.sort()
    med = times[len(times) // 2]
    nbytes = x.numel() * x.element_size() + y.numel() * y.element_size()
    theirs[c["name"]] = (med, nbytes / (med * 1e-3) / 1e9)
    del x, y

gpu = torch.cuda.get_device_name(0)
rows = [f"GPU: {gpu}, torch {torch.__version__}, median of {reps} runs, L2 flushed, CUDA events", "",
        "| case | dtype | ours ms | ours GB/s | torch ms | torch GB/s | ours/torch |",
        "|---|---|---|---|---|---|---|"]
for c in cases:
    n = c["name"]
    o, t = ours.get(n), theirs.get(n)
    if o is None:
        rows.append(f"| {n} | {c['dtype']} | failed | | {t[0]:.4f} | {t[1]:.0f} | |")
        continue
    rows.append(f"| {n} | {c['dtype']} | {o[0]:.4f} | {o[1]:.0f} | {t[0]:.4f} | {t[1]:.0f} | {o[1] / t[1]:.2f} |")
table = "\n".join(rows) + "\n"
open(os.path.join(out_dir, "bench_cuda.md"), "w").write(table)
print(table)

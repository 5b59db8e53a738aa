"""Sums whose (input, output) dtype pair takes the dynamic-cast kernels (cuda/reduce_table.h has
no typed row for it), timed against torch.sum(x, dtype=...) in one process, same memory, same
flush and method as run.py, next to a typed pair that reads the same bytes.
Usage: python3 bench/cuda/rare_pairs.py BUILD_DIR [REPS]"""
import sys

import torch

import timing
import tt_ctypes

build, reps = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30
lib = tt_ctypes.load(build)
dev = torch.device("cuda", 0)
timer = timing.Timer(dev)
timed, median = timer.timed, timing.median


# (label, input dtype, output dtype, dims, typed or dynamic in our table)
CASES = [
    ("int32 -> int64 (typed)", torch.int32, torch.int64, [1]),
    ("int32 -> float32 (dynamic)", torch.int32, torch.float32, [1]),
    ("float16 -> float32 (typed)", torch.float16, torch.float32, [1]),
    ("float16 -> float64 (dynamic)", torch.float16, torch.float64, [1]),
    ("float32 -> float64 (dynamic)", torch.float32, torch.float64, None),
    ("int16 -> float32 (dynamic)", torch.int16, torch.float32, [0]),
]
print("| pair, [4096, 4096] | dims | ours ms | torch ms | torch / ours |")
print("|---|---|---:|---:|---:|")
for label, din, dout, dims in CASES:
    g = torch.Generator(device=dev).manual_seed(0)
    if din.is_floating_point:
        x = torch.rand(4096, 4096, device=dev, generator=g).to(din)
    else:
        x = torch.randint(-100, 100, (4096, 4096), device=dev, generator=g).to(din)
    s = tt_ctypes.Summer(lib, x, dims, False, tt_ctypes.DTYPES[dout])
    ref = torch.sum(x, dim=dims, dtype=dout) if dims else torch.sum(x, dtype=dout)
    y = s.sum()
    ours = s.to_torch(y, ref.shape)
    s.release(y)
    ok = torch.allclose(ours.double(), ref.cpu().double(), rtol=1e-3, atol=1e-3)
    to, tt = [], []
    for r in range(-5, reps):
        ms, y = timed(s.sum, r)
        s.release(y)
        ms2, _ = timed(lambda: torch.sum(x, dim=dims, dtype=dout) if dims else torch.sum(x, dtype=dout), r)
        if r >= 0:
            to.append(ms)
            tt.append(ms2)
    mo, mt = median(to), median(tt)
    print(f"| {label}{'' if ok else ' (MISMATCH)'} | {dims} | {mo:.4f} | {mt:.4f} | {mt / mo:.2f} |", flush=True)
    s.close()

#!/usr/bin/env python3
"""tinytensor's CUDA tensor_sum next to torch.sum on the cases of bench/cuda/cases.json (a copy
of bench/cuda/cases.json), in one process on one GPU, on the same memory.

Method, the same for both: CUDA events on the default stream around the call, a 256 MiB write
(torch's fill_) before every timed call to flush the L2 (50 MB on an H100), 5 warm-up rounds,
median of REPS. Ours and torch's calls ALTERNATE (ours first in even rounds, torch first in odd
ones), so clock and thermal drift fall on both alike. Our call is the C API (tensor_sum_dims)
on a view of torch's input (tensor_from_blob, no copy), reached through ctypes; the flush kernel
queued before the start event keeps the GPU busy while the host makes the call, so neither
library's host work shows in the GPU timeline (host cost is measured separately: bench_host_cost).
GB/s = (input + output bytes) / median time. Each case's result is checked against torch.sum's.

Also, same run and method:
- floor: torch's full float32 sum of a contiguous buffer of the case's input bytes (the best
  read of those bytes we know of; ~ the HBM wall at 1 GiB).
- clean flush (CLEAN_CASES): the L2 flushed by READING 256 MiB instead of writing them (the
  write flush leaves up to 50 MB of dirty lines that the timed call's reads write back).
- ours from a separate C process (bench_sum, the method of earlier runs: cudaMemsetAsync flush,
  ours alone), as a column for comparison.
- torch's Python host cost per tiny x.sum(1) (back-to-back, no sync), next to ours
  (bench_host_cost, run by run.sh).
Writes OUT_DIR/bench_cuda.md, OUT_DIR/bench_cuda.json.

usage: run.py BUILD_DIR OUT_DIR [REPS]"""
import json, os, subprocess, sys, time

import cases as case_lib
import tt_ctypes

build_dir, out_dir = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 50
cases = case_lib.load()
clean_names = os.environ.get("CLEAN_CASES", "full_16M,inner_65536x1024,outer_4Mx3,f16_inner_4096sq,bf16_full_256M,i8_full_256M,f64_full_64M").split(",")


def run_c_process(case_list):
    case_file = os.path.join(out_dir, "cases_c.txt")
    open(case_file, "w").write("\n".join(case_lib.line(c) for c in case_list) + "\n")
    res = subprocess.run([os.path.join(build_dir, "bench_sum"), case_file, str(reps)], capture_output=True, text=True)
    sys.stderr.write(res.stderr)
    out = {}
    for line in res.stdout.splitlines():
        p = line.split()
        if len(p) >= 4 and p[1] != "FAILED":
            out[p[0]] = float(p[1])
        else:
            print("ours (C process):", line)
    return out


ours_c = run_c_process(cases)

import torch
dev = torch.device("cuda")
lib = tt_ctypes.load(build_dir)
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
flush_f32 = torch.full((64 << 20,), 0.5, dtype=torch.float32, device=dev)
ev0, ev1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def write_flush(r):
    flush.fill_(r & 0xff)


def read_flush(r):
    flush_f32.sum()


def timed(f, flush_fn, r):
    flush_fn(r)
    ev0.record()
    y = f()
    ev1.record()
    ev1.synchronize()
    return ev0.elapsed_time(ev1), y


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def time_pair(summer, f_torch, flush_fn):
    """Medians (ours ms, torch ms), alternating which goes first."""
    t_ours, t_torch = [], []
    for r in range(-5, reps):
        for who in ((0, 1) if r % 2 == 0 else (1, 0)):
            if who == 0:
                ms, y = timed(summer.sum, flush_fn, r)
                summer.release(y)
                if r >= 0: t_ours.append(ms)
            else:
                ms, _ = timed(f_torch, flush_fn, r)
                if r >= 0: t_torch.append(ms)
    return median(t_ours), median(t_torch)


def time_one(f, flush_fn):
    return median([timed(f, flush_fn, r)[0] for r in range(-5, reps)][5:])


def check(summer, x, c, y):
    """Our result against torch.sum's: integers exactly; floats within 1e-5 of the sum of
    |x| over the reduced elements (orders of summation differ), plus half an ulp of a 16-bit
    output. Returns (ok, worst error / bound)."""
    r = summer.sum()
    try:
        ours = summer.to_torch(r, y.shape)
    finally:
        summer.release(r)
    theirs = y.cpu()
    if ours.dtype != theirs.dtype:
        return False, float("inf")
    if not theirs.is_floating_point():
        return bool(torch.equal(ours, theirs)), 0.0
    dims = c["dims"]
    a = x.abs().sum(dtype=torch.float64) if dims is None else x.abs().sum(dim=dims, keepdim=c["keepdim"], dtype=torch.float64)
    bound = 1e-5 * a.cpu() + 1e-30
    if theirs.element_size() == 2:
        bound = bound + theirs.double().abs() * 2.0 ** -8
    ratio = ((ours.double() - theirs.double()).abs() / bound).max().item()
    return ratio <= 1.0, ratio


results, clean = [], []
for c in cases:
    n = c["name"]
    x = case_lib.torch_input(torch, c, dev)
    f_torch = case_lib.torch_call(x, c)
    summer = tt_ctypes.Summer(lib, x, c["dims"], c["keepdim"])
    try:
        o_ms, t_ms = time_pair(summer, f_torch, write_flush)
        y = f_torch()
        ok, ratio = check(summer, x, c, y)
        if n in clean_names:
            oc, tc = time_pair(summer, f_torch, read_flush)
            clean.append({"name": n, "ours_ms": oc, "torch_ms": tc, "ours_ms_write_flush": o_ms,
                          "torch_ms_write_flush": t_ms})
    except RuntimeError as e:
        print(f"{n}: ours failed: {e}")
        results.append({"name": n, "dtype": c["dtype"], "failed": str(e)})
        continue
    finally:
        summer.close()
    nbytes = x.numel() * x.element_size() + y.numel() * y.element_size()
    in_bytes = x.numel() * x.element_size()
    del x
    buf = torch.rand(max(1, in_bytes // 4), device=dev, dtype=torch.float32)
    fl = time_one(lambda: buf.sum(), write_flush)
    del buf
    results.append({"name": n, "dtype": c["dtype"], "ours_ms": o_ms, "ours_gbps": nbytes / (o_ms * 1e-3) / 1e9,
                    "torch_ms": t_ms, "torch_gbps": nbytes / (t_ms * 1e-3) / 1e9, "floor_ms": fl,
                    "ours_c_process_ms": ours_c.get(n), "matches_torch": ok, "error_over_bound": ratio})
    print(f"{n}: ours {o_ms:.4f} ms, torch {t_ms:.4f} ms, speed {t_ms / o_ms:.2f}, check {'ok' if ok else 'MISMATCH'}",
          flush=True)

# ---- torch's host cost per tiny call (Python), as bench_host_cost measures ours ----
tiny = torch.randn(2, 3, 4, 5, device=dev)
per_call = []
for b in range(-5, 100):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(256):
        tiny.sum(1, keepdim=True)
    dtm = (time.perf_counter() - t0) / 256 * 1e6
    if b >= 0:
        per_call.append(dtm)
torch.cuda.synchronize()
torch_host_us = median(per_call)

gpu = torch.cuda.get_device_name(0)
rows = [f"GPU: {gpu}, torch {torch.__version__}, one process, ours and torch alternating, median of {reps} runs, "
        "L2 flushed (256 MiB fill_) before every call, CUDA events", "",
        "| case | dtype | ours ms | ours GB/s | torch ms | torch GB/s | speed | floor ms | ours ms (C process) | = torch |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
for r in results:
    if "failed" in r:
        rows.append(f"| {r['name']} | {r['dtype']} | failed | | | | | | | |")
        continue
    oc = r["ours_c_process_ms"]
    rows.append(f"| {r['name']} | {r['dtype']} | {r['ours_ms']:.4f} | {r['ours_gbps']:.0f} | {r['torch_ms']:.4f} | "
                f"{r['torch_gbps']:.0f} | {r['torch_ms'] / r['ours_ms']:.2f} | {r['floor_ms']:.4f} | "
                f"{'%.4f' % oc if oc else '-'} | {'yes' if r['matches_torch'] else 'NO (%.3g)' % r['error_over_bound']} |")
rows += ["", "speed = torch ms / ours ms (> 1: we are faster). floor = torch's full float32 sum of a contiguous "
         "buffer of the same input bytes, same flush and method. ours ms (C process) = bench_sum alone in its own "
         "process with a cudaMemsetAsync flush (the method of earlier runs). = torch: our result against "
         "torch.sum's (integers exact; floats within 1e-5 of sum |x| + half an ulp of a 16-bit output).", "",
         "Clean flush (the L2 flushed by reading 256 MiB, so no dirty lines are written back inside the timed call):", "",
         "| case | ours ms | torch ms | speed | ours ms, write flush | torch ms, write flush |",
         "|---|---:|---:|---:|---:|---:|"]
for r in clean:
    rows.append(f"| {r['name']} | {r['ours_ms']:.4f} | {r['torch_ms']:.4f} | {r['torch_ms'] / r['ours_ms']:.2f} | "
                f"{r['ours_ms_write_flush']:.4f} | {r['torch_ms_write_flush']:.4f} |")
rows += ["", f"torch (Python) host cost per tiny x.sum(1, keepdim=True), back-to-back: {torch_host_us:.2f} us/call "
         "(median of 100 batches of 256)"]
table = "\n".join(rows) + "\n"
open(os.path.join(out_dir, "bench_cuda.md"), "w").write(table)
json.dump({"gpu": gpu, "torch": torch.__version__, "reps": reps, "method": "one process, alternating, fill_ flush",
           "cases": results, "clean_flush": clean, "torch_python_host_us": torch_host_us},
          open(os.path.join(out_dir, "bench_cuda.json"), "w"), indent=1)
print(table)

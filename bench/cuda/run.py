#!/usr/bin/env python3
"""tinytensor's CUDA tensor_sum next to torch.sum on the cases of bench/cuda/cases.json (a copy
of shared/bench/cases.json), in one run on one GPU, same method for both: CUDA events around
the call, a 256 MiB write between runs to flush the L2, warm-up, median of REPS runs.
GB/s = (input + output bytes) / median time.

Also, same run and method:
- floor: torch's full float32 sum of a contiguous buffer of the case's input bytes (the best
  read of those bytes we know of; ~ the HBM wall at 1 GiB). A case's time cannot go much
  below it, whatever the kernel.
- clean flush (CLEAN_CASES): ours and torch with the L2 flushed by READING 256 MiB instead of
  writing them. The memset flush leaves up to 50 MB of dirty lines in the L2 that the timed
  kernel's reads evict, i.e. write back to HBM, inside the timed region.
- torch's Python host cost per tiny x.sum(1) (back-to-back, no sync), next to ours
  (bench_host_cost, run by run.sh).
Writes OUT_DIR/bench_cuda.md, OUT_DIR/bench_cuda.json.

usage: run.py BENCH_SUM_BINARY OUT_DIR [REPS]"""
import json, os, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
binary, out_dir = sys.argv[1], sys.argv[2]
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 50
cases = json.load(open(os.path.join(here, "cases.json")))["cases"]
clean_names = os.environ.get("CLEAN_CASES", "full_16M,inner_65536x1024,outer_4Mx3,f16_inner_4096sq,bf16_full_256M").split(",")


def run_ours(case_list, tag, env_extra):
    lines = []
    for c in case_list:
        dims = c["dims"] or []
        lines.append(f'{c["name"]} {c["dtype"]} {int(c["transposed"])} {int(c["keepdim"])} {len(c["shape"])} '
                     + " ".join(map(str, c["shape"])) + f" {len(dims)} " + " ".join(map(str, dims)))
    case_file = os.path.join(out_dir, f"cases_{tag}.txt")
    open(case_file, "w").write("\n".join(lines) + "\n")
    env = dict(os.environ, **env_extra)
    res = subprocess.run([binary, case_file, str(reps)], capture_output=True, text=True, env=env)
    sys.stderr.write(res.stderr)
    out = {}
    for line in res.stdout.splitlines():
        p = line.split()
        if len(p) >= 4 and p[1] != "FAILED":
            out[p[0]] = (float(p[1]), float(p[3]))
        else:
            print(f"ours ({tag}):", line)
    return out


ours = run_ours(cases, "memset", {})
clean_cases = [c for c in cases if c["name"] in clean_names]
ours_clean = run_ours(clean_cases, "read", {"FLUSH": "read"})

# ---- torch ----
import torch
dev = torch.device("cuda")
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
flush_f32 = torch.full((64 << 20,), 0.5, dtype=torch.float32, device=dev)
dt = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16,
      "int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64}


def time_torch(f, clean):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    y = None
    for r in range(-5, reps):
        if clean:
            flush_f32.sum()
        else:
            flush.fill_(r & 0xff)
        s.record()
        y = f()
        e.record()
        e.synchronize()
        if r >= 0:
            times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2], y


theirs, floor, theirs_clean = {}, {}, {}
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
    med, y = time_torch(f, False)
    nbytes = x.numel() * x.element_size() + y.numel() * y.element_size()
    theirs[c["name"]] = (med, nbytes / (med * 1e-3) / 1e9)
    if c["name"] in clean_names:
        medc, _ = time_torch(f, True)
        theirs_clean[c["name"]] = (medc, nbytes / (medc * 1e-3) / 1e9)
    in_bytes = x.numel() * x.element_size()
    del x, y
    buf = torch.rand(max(1, in_bytes // 4), device=dev, dtype=torch.float32)
    fmed, _ = time_torch(lambda: buf.sum(), False)
    floor[c["name"]] = fmed
    del buf

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
per_call.sort()
torch_host_us = per_call[len(per_call) // 2]

gpu = torch.cuda.get_device_name(0)
rows = [f"GPU: {gpu}, torch {torch.__version__}, median of {reps} runs, L2 flushed (256 MiB memset), CUDA events", "",
        "| case | dtype | ours ms | ours GB/s | torch ms | torch GB/s | ours/torch (speed) | floor ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|"]
results = []
for c in cases:
    n = c["name"]
    o, t = ours.get(n), theirs.get(n)
    if o is None:
        rows.append(f"| {n} | {c['dtype']} | failed | | {t[0]:.4f} | {t[1]:.0f} | | {floor[n]:.4f} |")
        continue
    rows.append(f"| {n} | {c['dtype']} | {o[0]:.4f} | {o[1]:.0f} | {t[0]:.4f} | {t[1]:.0f} | {t[0] / o[0]:.2f} | {floor[n]:.4f} |")
    results.append({"name": n, "dtype": c["dtype"], "ours_ms": o[0], "ours_gbps": o[1], "torch_ms": t[0],
                    "torch_gbps": t[1], "floor_ms": floor[n]})
rows += ["", "ours/torch (speed) = torch ms / ours ms (> 1: we are faster). floor = torch's full float32 sum of a "
         "contiguous buffer of the same input bytes, same flush and method.", "",
         "Clean flush (the L2 flushed by reading 256 MiB, so no dirty lines are written back inside the timed call):", "",
         "| case | ours ms | torch ms | ours/torch (speed) | ours ms, memset flush | torch ms, memset flush |",
         "|---|---:|---:|---:|---:|---:|"]
clean = []
for n in clean_names:
    if n in ours_clean and n in theirs_clean:
        o, t = ours_clean[n], theirs_clean[n]
        rows.append(f"| {n} | {o[0]:.4f} | {t[0]:.4f} | {t[0] / o[0]:.2f} | {ours[n][0]:.4f} | {theirs[n][0]:.4f} |")
        clean.append({"name": n, "ours_ms": o[0], "torch_ms": t[0]})
rows += ["", f"torch (Python) host cost per tiny x.sum(1, keepdim=True), back-to-back: {torch_host_us:.2f} us/call "
         "(median of 100 batches of 256)"]
table = "\n".join(rows) + "\n"
open(os.path.join(out_dir, "bench_cuda.md"), "w").write(table)
json.dump({"gpu": gpu, "torch": torch.__version__, "reps": reps, "cases": results, "clean_flush": clean,
           "torch_python_host_us": torch_host_us}, open(os.path.join(out_dir, "bench_cuda.json"), "w"), indent=1)
print(table)

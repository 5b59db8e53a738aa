#!/usr/bin/env python3
"""tinytensor's CUDA var / std / var_mean / mean / aminmax next to torch's (torch.var, torch.std,
torch.var_mean, torch.mean, torch.aminmax) on rows, columns and full reductions, in one process
on the same memory, and next to the floor: torch's full float32 sum of a contiguous buffer of
the same input bytes.

Method (as bench/cuda/run.py, timing.py): CUDA events around the call, a 256 MiB fill_ before
every timed call to flush the L2, 5 warm-up rounds, median of REPS, ours and torch alternating
which goes first. Ours is the C API on a view of torch's tensor (tensor_from_blob) through
ctypes. Each result is checked against torch's (relative 1e-4 for float32 var, 16-bit outputs
within their rounding). Writes OUT_DIR/bench_moments.md and .json.

usage: bench_moments.py BUILD_DIR OUT_DIR [REPS]"""
import ctypes, json, os, sys

import torch

import timing
import tt_ctypes

build_dir, out_dir = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 30
dev = torch.device("cuda")
lib = tt_ctypes.load(build_dir)
p, ip = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)
for name in ("tensor_var", "tensor_std"):
    getattr(lib, name).restype = p
    getattr(lib, name).argtypes = [p, ctypes.c_double, ip, ctypes.c_int, ctypes.c_bool]
lib.tensor_mean.restype = p
lib.tensor_mean.argtypes = [p, ip, ctypes.c_int, ctypes.c_bool, ctypes.c_int]
lib.tensor_var_mean.restype = ctypes.c_int
lib.tensor_var_mean.argtypes = [p, ctypes.c_double, ip, ctypes.c_int, ctypes.c_bool, ctypes.POINTER(p), ctypes.POINTER(p)]
lib.tensor_aminmax.restype = ctypes.c_int
lib.tensor_aminmax.argtypes = [p, ip, ctypes.c_int, ctypes.c_bool, ctypes.POINTER(p), ctypes.POINTER(p)]

# name, shape, dims (None: all), dtype
SHAPES = [
    ("rows_8192sq", [8192, 8192], [1], torch.float32),
    ("long_rows_64x1M", [64, 1 << 20], [1], torch.float32),
    ("short_rows_1Mx32", [1 << 20, 32], [1], torch.float32),
    ("cols_8192sq", [8192, 8192], [0], torch.float32),
    ("cols_1Mx32", [1 << 20, 32], [0], torch.float32),
    ("full_64M", [1 << 26], None, torch.float32),
    ("f16_rows_8192sq", [8192, 8192], [1], torch.float16),
    ("bf16_cols_8192sq", [8192, 8192], [0], torch.bfloat16),
]
OPS = ["var", "std", "var_mean", "mean", "aminmax"]
only = os.environ.get("MOMENT_CASES")
timer = timing.Timer(dev)


def ours_fn(op, v, dims):
    nd = 0 if dims is None else len(dims)
    arr = (ctypes.c_int * max(nd, 1))(*(dims or [0]))
    a, b = p(), p()

    def call():
        if op == "var":
            r = [lib.tensor_var(v, 1.0, arr, nd, False)]
        elif op == "std":
            r = [lib.tensor_std(v, 1.0, arr, nd, False)]
        elif op == "mean":
            r = [lib.tensor_mean(v, arr, nd, False, -1)]
        elif op == "var_mean":
            r = [a.value, b.value] if lib.tensor_var_mean(v, 1.0, arr, nd, False, ctypes.byref(a), ctypes.byref(b)) == 0 else [None]
        else:
            r = [a.value, b.value] if lib.tensor_aminmax(v, arr, nd, False, ctypes.byref(a), ctypes.byref(b)) == 0 else [None]
        if not r[0]:
            raise RuntimeError(op + ": " + lib.tensor_last_error().decode())
        return r
    return call


def torch_fn(op, x, dims):
    kw = {} if dims is None else {"dim": dims}
    if op == "var":
        return lambda: x.var(**kw)
    if op == "std":
        return lambda: x.std(**kw)
    if op == "mean":
        return lambda: x.mean(**kw)
    if op == "var_mean":
        return lambda: torch.var_mean(x, **kw)
    return lambda: torch.aminmax(x, **({} if dims is None else {"dim": dims[0]}))


def release(rs):
    for r in rs:
        lib.tensor_release(r)


rows = []
for name, shape, dims, dt in SHAPES:
    g = torch.Generator(device=dev).manual_seed(0)
    x = (torch.rand(shape, device=dev, generator=g, dtype=torch.float32) * 4 + 100).to(dt)
    v = tt_ctypes.view_of(lib, x)
    buf = torch.full((max(1, x.numel() * x.element_size() // 4),), 0.5, device=dev)
    for op in OPS:
        case = f"{op}_{name}"
        if only and case not in only.split(","):
            continue
        ours, theirs = ours_fn(op, v, dims), torch_fn(op, x, dims)
        ref = theirs()
        ref = list(ref) if isinstance(ref, tuple) else [ref]
        mine = ours()
        err = 0.0
        for k, rr in enumerate(ref):
            m = tt_ctypes.to_torch(lib, mine[k], rr.shape).double()
            t = rr.cpu().double()
            tol = (1e-4 if dt == torch.float32 else 8e-3) * t.abs() + 1e-6
            err = max(err, ((m - t).abs() / tol).max().item())
        release(mine)
        t_ours, t_torch, t_floor = timing.alternate(
            timer, [(ours, release), (theirs, None), (lambda: buf.sum(), None)], reps)
        row = {"case": case, "dtype": str(dt).replace("torch.", ""), "ours_ms": t_ours, "torch_ms": t_torch,
               "floor_ms": t_floor, "speed": t_torch / t_ours, "ours_over_floor": t_ours / t_floor,
               "check": err <= 1.0, "err_ratio": err}
        rows.append(row)
        print(json.dumps(row), flush=True)
    lib.tensor_release(v)
    del x, buf

gpu = torch.cuda.get_device_name()
timing.write_report(
    out_dir, "bench_moments",
    f"# var / std / var_mean / mean / aminmax vs torch ({gpu}, torch {torch.__version__}, {reps} reps, "
    "median ms, 256 MiB fill_ flush, CUDA events, alternating)",
    ["case", "dtype", "ours ms", "torch ms", "speed (torch/ours)", "floor ms", "ours / floor", "check"],
    [f"| {r['case']} | {r['dtype']} | {r['ours_ms']:.4f} | {r['torch_ms']:.4f} | {r['speed']:.2f} | "
     f"{r['floor_ms']:.4f} | {r['ours_over_floor']:.2f} | {'ok' if r['check'] else 'MISMATCH'} |" for r in rows],
    {"gpu": gpu, "torch": torch.__version__, "reps": reps, "cases": rows})

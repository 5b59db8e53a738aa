#!/usr/bin/env python3
"""tinytensor's CUDA scans (cumsum, cumprod, logcumsumexp, cummax) next to torch's, in one
process on the same memory, and next to the copy floor: the time torch takes to read the
input and write a result of the output's dtype once (x.clone(), or a converting copy_ for
int8 -> int64).

Method: bench/cuda/timing.py (CUDA events, a 256 MiB fill_ before every timed call, median of
REPS, ours, torch and the floor alternating which goes first); ours is the C API on a view of
torch's tensor through ctypes. Before timing, each case's result is checked against torch's:
exactly for cumsum (small integers as floats: every order gives the same bits), cumprod (+-1)
and cummax (values and indices, with ties and NaN), within 1e-4 for logcumsumexp. Writes
OUT_DIR/bench_scan.md and .json.

usage: bench_scan.py BUILD_DIR OUT_DIR [REPS]   (SCAN_CASES=name,name to run some)"""
import ctypes, json, os, sys

import torch

import timing
import tt_ctypes

build_dir, out_dir = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 20
dev = torch.device("cuda")
lib = tt_ctypes.load(build_dir)
p = ctypes.c_void_p
for name in ("tensor_cumsum", "tensor_cumprod"):
    getattr(lib, name).restype = p
    getattr(lib, name).argtypes = [p, ctypes.c_int, ctypes.c_int]
lib.tensor_logcumsumexp.restype = p
lib.tensor_logcumsumexp.argtypes = [p, ctypes.c_int]
for name in ("tensor_cummax", "tensor_cummin"):
    getattr(lib, name).restype = ctypes.c_int
    getattr(lib, name).argtypes = [p, ctypes.c_int, ctypes.POINTER(p), ctypes.POINTER(p)]
I64 = 5

# name, op, shape, dim, input dtype, output dtype (None: the op's default)
CASES = [
    ("cumsum_f32_256M", "cumsum", [1 << 28], 0, torch.float32, None),
    ("cumsum_f32_4096sq_dim0", "cumsum", [4096, 4096], 0, torch.float32, None),
    ("cumsum_f32_4096sq_dim1", "cumsum", [4096, 4096], 1, torch.float32, None),
    ("cumsum_i8_to_i64_256M", "cumsum", [1 << 28], 0, torch.int8, torch.int64),
    ("cumsum_f32_1Mx32_dim1", "cumsum", [1 << 20, 32], 1, torch.float32, None),
    ("cumsum_f32_1Mx32_dim0", "cumsum", [1 << 20, 32], 0, torch.float32, None),
    ("cumprod_f32_256M", "cumprod", [1 << 28], 0, torch.float32, None),
    ("cumprod_f32_4096sq_dim0", "cumprod", [4096, 4096], 0, torch.float32, None),
    ("cumprod_f32_4096sq_dim1", "cumprod", [4096, 4096], 1, torch.float32, None),
    ("logcumsumexp_f32_256M", "logcumsumexp", [1 << 28], 0, torch.float32, None),
    ("logcumsumexp_f32_4096sq_dim0", "logcumsumexp", [4096, 4096], 0, torch.float32, None),
    ("logcumsumexp_f32_4096sq_dim1", "logcumsumexp", [4096, 4096], 1, torch.float32, None),
    ("cummax_f32_256M", "cummax", [1 << 28], 0, torch.float32, None),
    ("cummax_f32_4096sq_dim0", "cummax", [4096, 4096], 0, torch.float32, None),
    ("cummax_f32_4096sq_dim1", "cummax", [4096, 4096], 1, torch.float32, None),
    ("cummin_i32_4096sq_dim1", "cummin", [4096, 4096], 1, torch.int32, None),
]
only = os.environ.get("SCAN_CASES")
timer = timing.Timer(dev)


def make_input(op, shape, dt):
    g = torch.Generator(device=dev).manual_seed(0)
    if op == "cumsum":
        x = torch.randint(-3, 4, shape, device=dev, generator=g)
    elif op == "cumprod":
        x = torch.randint(0, 2, shape, device=dev, generator=g) * 2 - 1
    elif op == "logcumsumexp":
        return torch.rand(shape, device=dev, generator=g, dtype=torch.float32).to(dt)
    else:  # ties everywhere, and a NaN in 4096 for floats
        x = torch.randint(0, 8, shape, device=dev, generator=g)
        if dt.is_floating_point:
            x = x.to(dt)
            x[torch.rand(shape, device=dev, generator=g) < 1 / 4096] = float("nan")
    return x.to(dt)


def ours_fn(op, v, dim, odt):
    a, b = p(), p()
    code = tt_ctypes.DTYPES[odt] if odt is not None else -1

    def call():
        if op == "cumsum":
            r = [lib.tensor_cumsum(v, dim, code)]
        elif op == "cumprod":
            r = [lib.tensor_cumprod(v, dim, code)]
        elif op == "logcumsumexp":
            r = [lib.tensor_logcumsumexp(v, dim)]
        else:
            f = lib.tensor_cummax if op == "cummax" else lib.tensor_cummin
            r = [a.value, b.value] if f(v, dim, ctypes.byref(a), ctypes.byref(b)) == 0 else [None]
        if not r[0]:
            raise RuntimeError(op + ": " + lib.tensor_last_error().decode())
        return r
    return call


def torch_fn(op, x, dim, odt):
    if op == "cumsum":
        return lambda: torch.cumsum(x, dim, dtype=odt)
    if op == "cumprod":
        return lambda: torch.cumprod(x, dim, dtype=odt)
    if op == "logcumsumexp":
        return lambda: torch.logcumsumexp(x, dim)
    return lambda: (torch.cummax if op == "cummax" else torch.cummin)(x, dim)


def release(rs):
    for r in rs:
        lib.tensor_release(r)


rows = []
for name, op, shape, dim, dt, odt in CASES:
    if only and name not in only.split(","):
        continue
    x = make_input(op, shape, dt)
    v = tt_ctypes.view_of(lib, x)
    out_dt = odt or (torch.int64 if not dt.is_floating_point and op in ("cumsum", "cumprod") else dt)
    dst = torch.empty(shape, device=dev, dtype=out_dt)
    ours, theirs = ours_fn(op, v, dim, odt), torch_fn(op, x, dim, odt)
    floor = (lambda: dst.copy_(x)) if out_dt != dt else (lambda: x.clone())
    ref = theirs()
    ref = list(ref) if isinstance(ref, tuple) else [ref]
    mine = ours()
    ok = True
    for k, rr in enumerate(ref):
        m = tt_ctypes.to_torch(lib, mine[k], rr.shape)
        t = rr.cpu()
        if op == "logcumsumexp":
            ok = ok and bool(torch.allclose(m.double(), t.double(), rtol=1e-4, atol=1e-5))
        else:
            ok = ok and bool(torch.equal(m, t) or (t.is_floating_point() and torch.equal(m.nan_to_num(7.5), t.nan_to_num(7.5))))
    release(mine)
    del ref
    t_ours, t_torch, t_floor = timing.alternate(timer, [(ours, release), (theirs, None), (floor, None)], reps, 3)
    row = {"case": name, "ours_ms": t_ours, "torch_ms": t_torch, "copy_ms": t_floor, "speed": t_torch / t_ours,
           "copy_over_ours": t_floor / t_ours, "check": ok}
    rows.append(row)
    print(json.dumps(row), flush=True)
    lib.tensor_release(v)
    del x, dst
    torch.cuda.empty_cache()

gpu = torch.cuda.get_device_name()
timing.write_report(
    out_dir, "bench_scan",
    f"# scans vs torch ({gpu}, torch {torch.__version__}, {reps} reps, median ms, 256 MiB fill_ flush, "
    "CUDA events, alternating)",
    ["case", "ours ms", "torch ms", "speed (torch/ours)", "copy ms", "copy/ours", "check"],
    [f"| {r['case']} | {r['ours_ms']:.4f} | {r['torch_ms']:.4f} | {r['speed']:.2f} | {r['copy_ms']:.4f} | "
     f"{r['copy_over_ours']:.2f} | {'ok' if r['check'] else 'MISMATCH'} |" for r in rows],
    {"gpu": gpu, "torch": torch.__version__, "reps": reps, "cases": rows})

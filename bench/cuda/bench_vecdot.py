#!/usr/bin/env python3
"""tinytensor's fused tensor_vecdot (sum(a * b) over a dim, one pass) on the H100 next to
PyTorch's eager (a * b).sum(dim) (a product written to memory, then a sum) and torch.compile of
the same expression (Inductor fuses it into one Triton reduction), in one process on the same
memory, and next to the floor: torch's full float32 sum of a contiguous buffer of the same input
bytes (reading each input once, nothing else).

Method (as bench/cuda/run.py): CUDA events around the call, a 256 MiB fill_ before every timed
call to flush the L2, 5 warm-up rounds, median of REPS; the calls rotate which goes first, and
each timed call follows an untimed call of the same function (then the flush), as in a loop that
calls it: in the rotation alone each function always followed the same other one, and the one
that followed a call on its own inputs (torch.compile after eager) read up to 14% faster on
15-40 us calls than one that followed a call on another buffer (ours after the floor).
VECDOT_WARM=0 leaves the untimed calls out. Ours
is the C API (tensor_vecdot) on views of torch's tensors (tensor_from_blob), through ctypes.
Each result is checked against torch's. Writes OUT_DIR/bench_vecdot.md and .json.

usage: bench_vecdot.py BUILD_DIR OUT_DIR [REPS]
environment: VECDOT_SET=sweep runs SWEEP (shapes the planner was not tuned on) instead of CASES,
VECDOT_SET=ints the integer cases (vecdot_cases.ints), VECDOT_SET=layouts inputs of two layouts
(vecdot_cases.layouts), VECDOT_SET=rows rows of lengths not tuned on (vecdot_cases.rows),
VECDOT_SET=odd inputs that do not start alike modulo a vector (vecdot_cases.odd);
VECDOT_CASES=name,name runs only those of the set;
VECDOT_AB=NAME=VALUE also times ours with that environment variable set during the call (a
switch the library reads at plan time, for an experiment), in the same rotation: the rows get
"ours_b_ms", "b_vs_a" (ours' time over ours_b's: above 1, B is faster) and "check_b" (B's
result checked as ours is).
With VECDOT_WARM=0, identical plans read up to 14% apart this way on 15-25 us calls (B always
followed the floor); with the untimed calls, within 1.5% (docs/perf_log.md). Run the same cases
once with a variable the library does not read (VECDOT_AB=TT_NONE=1, an A/A run) to see the
method's own spread before reading a difference as the switch's. VECDOT_B_BUILD=DIR instead
makes B ours from the library in DIR (another revision's build), loaded beside the first."""
import json, os, sys

import torch

import timing
import tt_ctypes
import vecdot_cases

build_dir, out_dir = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 50
dev = torch.device("cuda")
lib = tt_ctypes.load(build_dir)

CASES, SWEEP = vecdot_cases.lists(torch)
if os.environ.get("VECDOT_SET") == "sweep":
    CASES = SWEEP
elif os.environ.get("VECDOT_SET") == "ints":
    CASES = vecdot_cases.ints(torch)
elif os.environ.get("VECDOT_SET") == "layouts":
    CASES = vecdot_cases.layouts(torch)
elif os.environ.get("VECDOT_SET") == "rows":
    CASES = vecdot_cases.rows(torch)
elif os.environ.get("VECDOT_SET") == "odd":
    CASES = vecdot_cases.odd(torch)
only = os.environ.get("VECDOT_CASES")
if only:
    CASES = [c for c in CASES if c[0] in only.split(",")]

ab = os.environ.get("VECDOT_AB")
ab_key, _, ab_val = ab.partition("=") if ab else (None, None, None)
# VECDOT_B_BUILD=DIR: B is ours from the library of another build (two revisions in one run).
b_build = os.environ.get("VECDOT_B_BUILD")
lib_b = tt_ctypes.load(b_build) if b_build else None
if lib_b is not None and ab_key:
    sys.exit("bench_vecdot: VECDOT_AB and VECDOT_B_BUILD are two kinds of B; set one")


def with_b(f):
    """f() with VECDOT_AB's variable set for the call (restored after)."""
    def g():
        old = os.environ.get(ab_key)
        os.environ[ab_key] = ab_val
        try:
            return f()
        finally:
            if old is None:
                del os.environ[ab_key]
            else:
                os.environ[ab_key] = old
    return g


timer = timing.Timer(dev)
warm = os.environ.get("VECDOT_WARM", "1") != "0"


rows = []
for case in CASES:
    name, dt = case[0], case[4]
    a, b, dim = vecdot_cases.make_inputs(torch, case, dev)
    va, vb = tt_ctypes.view_of(lib, a), tt_ctypes.view_of(lib, b)

    def call(lib, va, vb):
        def f():
            r = lib.tensor_vecdot(va, vb, dim)
            if not r:
                raise RuntimeError("tensor_vecdot: " + lib.tensor_last_error().decode())
            return r
        return f

    ours = call(lib, va, vb)
    if lib_b is not None:
        va_b, vb_b = tt_ctypes.view_of(lib_b, a), tt_ctypes.view_of(lib_b, b)
        ours_b, lib_of_b = call(lib_b, va_b, vb_b), lib_b
    elif ab_key:
        ours_b, lib_of_b = with_b(ours), lib
    else:
        ours_b = None

    eager = lambda: (a * b).sum(dim)
    torch._dynamo.reset()  # a fresh compile per case (one lambda, many shapes: the recompile limit)
    compiled_fn = torch.compile(lambda x, y: (x * y).sum(dim), dynamic=False)
    compiled = lambda: compiled_fn(a, b)
    buf = torch.full(((a.numel() * a.element_size() + b.numel() * b.element_size()) // 4,), 0.5, device=dev)
    floor = lambda: buf.sum()
    ref = eager()
    compiled()  # compile outside the timing
    r = ours()
    mine = tt_ctypes.to_torch(lib, r, ref.shape)
    lib.tensor_release(r)
    bound = 1e-5 * (a.double().abs() * b.double().abs()).sum(dim).cpu() + 1e-30
    if dt in (torch.float16, torch.bfloat16):
        bound = bound + ref.double().abs().cpu() * 2.0 ** -7
    err = ((mine.double() - ref.cpu().double()).abs() / bound).max().item()
    fns = [(ours, lib.tensor_release), (eager, None), (compiled, None), (floor, None)]
    if ours_b is not None:
        rb = ours_b()
        mine_b = tt_ctypes.to_torch(lib_of_b, rb, ref.shape)
        lib_of_b.tensor_release(rb)
        err_b = ((mine_b.double() - ref.cpu().double()).abs() / bound).max().item()
        fns.append((ours_b, lib_of_b.tensor_release))
    t_ours, t_eager, t_comp, t_floor, *t_b = timing.alternate(timer, fns, reps, warm=warm)
    nbytes = a.numel() * a.element_size() + b.numel() * b.element_size() + ref.numel() * ref.element_size()
    row = {"name": name, "a": list(a.shape), "b": list(b.shape), "dim": dim, "dtype": str(dt).replace("torch.", ""),
           "ours_ms": t_ours, "eager_ms": t_eager, "compile_ms": t_comp, "floor_ms": t_floor,
           "vs_eager": t_eager / t_ours, "vs_compile": t_comp / t_ours, "floor_ratio": t_ours / t_floor,
           "GBps": nbytes / t_ours / 1e6, "check": err <= 1.0, "err_ratio": err}
    if t_b:
        row.update({"ab": ab or "build " + b_build, "ours_b_ms": t_b[0], "b_vs_a": t_ours / t_b[0],
                    "check_b": err_b <= 1.0, "err_ratio_b": err_b})
    rows.append(row)
    print(json.dumps(row), flush=True)
    lib.tensor_release(va)
    lib.tensor_release(vb)
    if lib_b is not None:
        lib_b.tensor_release(va_b)
        lib_b.tensor_release(vb_b)
    del a, b, buf, ref

gpu = torch.cuda.get_device_name()
lines = [f"# tensor_vecdot vs torch ({gpu}, torch {torch.__version__}, {reps} reps, median ms, 256 MiB fill_ "
         "flush, CUDA events)", "",
         "| case | ours ms | eager (a*b).sum ms | torch.compile ms | floor ms | vs eager | vs compile | ours / floor "
         "| GB/s | check |", "|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    lines.append(f"| {r['name']} | {r['ours_ms']:.4f} | {r['eager_ms']:.4f} | {r['compile_ms']:.4f} | "
                 f"{r['floor_ms']:.4f} | {r['vs_eager']:.2f}x | {r['vs_compile']:.2f}x | {r['floor_ratio']:.3f} | "
                 f"{r['GBps']:.0f} | {'ok' if r['check'] else 'MISMATCH'} |"
                 + (f" B ({r['ab']}): {r['ours_b_ms']:.4f} ms, {r['b_vs_a']:.3f}x"
                    f"{'' if r['check_b'] else ', B MISMATCH'} |" if "ab" in r else ""))
open(os.path.join(out_dir, "bench_vecdot.md"), "w").write("\n".join(lines) + "\n")
json.dump({"gpu": gpu, "torch": torch.__version__, "reps": reps, "cases": rows},
          open(os.path.join(out_dir, "bench_vecdot.json"), "w"), indent=1)
print("\n".join(lines))

#!/usr/bin/env python3
"""tinytensor's fused tensor_vecdot (sum(a * b) over a dim, one pass) on the H100 next to
PyTorch's eager (a * b).sum(dim) (a product written to memory, then a sum) and torch.compile of
the same expression (Inductor fuses it into one Triton reduction), in one process on the same
memory, and next to the floor: torch's full float32 sum of a contiguous buffer of the same input
bytes (reading each input once, nothing else).

Method (as bench/cuda/run.py): CUDA events around the call, a 256 MiB fill_ before every timed
call to flush the L2, 5 warm-up rounds, median of REPS; the calls rotate which goes first. Ours
is the C API (tensor_vecdot) on views of torch's tensors (tensor_from_blob), through ctypes.
Each result is checked against torch's. Writes OUT_DIR/bench_vecdot.md and .json.

usage: bench_vecdot.py BUILD_DIR OUT_DIR [REPS]
environment: VECDOT_SET=sweep runs SWEEP (shapes the planner was not tuned on) instead of CASES;
VECDOT_CASES=name,name runs only those of the set."""
import json, os, sys

import torch

import timing
import tt_ctypes

build_dir, out_dir = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 50
dev = torch.device("cuda")
lib = tt_ctypes.load(build_dir)

# name, shape of a, shape of b, dim, dtype
CASES = [
    ("f32_8192sq_dim1", [8192, 8192], [8192, 8192], 1, torch.float32),
    ("f32_4096sq_dim0", [4096, 4096], [4096, 4096], 0, torch.float32),
    ("f32_1Mx32_dim1", [1048576, 32], [1048576, 32], 1, torch.float32),
    ("f32_1000x8192_dim1", [1000, 8192], [1000, 8192], 1, torch.float32),
    ("f32_1000x8192_b8192_dim1", [1000, 8192], [8192], 1, torch.float32),
    ("f32_65536x1024_dim1", [65536, 1024], [65536, 1024], 1, torch.float32),
    ("f32_16384x2048_dim1", [16384, 2048], [16384, 2048], 1, torch.float32),
    ("f32_32768x512_dim1", [32768, 512], [32768, 512], 1, torch.float32),
    ("f32_1024x65536_dim0", [1024, 65536], [1024, 65536], 0, torch.float32),
    ("f16_8192sq_dim1", [8192, 8192], [8192, 8192], 1, torch.float16),
    ("bf16_4096sq_dim0", [4096, 4096], [4096, 4096], 0, torch.bfloat16),
    # one output (a 1-D dot), a few long rows, a middle dim, b broadcast along the reduced dim
    ("f32_16M_dot", [16777216], [16777216], 0, torch.float32),
    ("f32_1M_dot", [1048576], [1048576], 0, torch.float32),
    ("f32_64x1M_dim1", [64, 1048576], [64, 1048576], 1, torch.float32),
    ("f32_64x512x512_dim1", [64, 512, 512], [64, 512, 512], 1, torch.float32),
    ("f32_8192sq_b8192x1_dim1", [8192, 8192], [8192, 1], 1, torch.float32),
    ("f16_4096x8192_b8192_dim1", [4096, 8192], [8192], 1, torch.float16),
    # b constant along the outputs of an outer reduction (a weighted sum of rows)
    ("f32_4096sq_b4096x1_dim0", [4096, 4096], [4096, 1], 0, torch.float32),
    ("f32_64x512x512_b64x512x1_dim1", [64, 512, 512], [64, 512, 1], 1, torch.float32),
    # float64 columns of a width that takes two outputs a load (the OVS 2 kernel)
    ("f64_4096x4098_dim0", [4096, 4098], [4096, 4098], 0, torch.float64),
    ("f64_4096x4098_b4096x1_dim0", [4096, 4098], [4096, 1], 0, torch.float64),
]
# VECDOT_SET=sweep: shapes the planner was not tuned on, to find where it falls behind. A sixth
# field "ta" makes a the transpose of a contiguous tensor of the shape given ("tb": b).
SWEEP = [
    ("s_f32_2048x4096_dim1", [2048, 4096], [2048, 4096], 1, torch.float32),
    ("s_f32_4000x3000_dim1", [4000, 3000], [4000, 3000], 1, torch.float32),
    ("s_f32_100000x100_dim1", [100000, 100], [100000, 100], 1, torch.float32),
    ("s_f32_262144x64_dim1", [262144, 64], [262144, 64], 1, torch.float32),
    ("s_f32_2Mx16_dim1", [2097152, 16], [2097152, 16], 1, torch.float32),
    ("s_bf16_8192x4096_dim1", [8192, 4096], [8192, 4096], 1, torch.bfloat16),
    ("s_f16_16384x1024_dim1", [16384, 1024], [16384, 1024], 1, torch.float16),
    ("s_f32_128x262144_dim1", [128, 262144], [128, 262144], 1, torch.float32),
    ("s_f32_8x2M_dim1", [8, 2097152], [8, 2097152], 1, torch.float32),
    ("s_f32_1000x8192_b1x8192_dim1", [1000, 8192], [1, 8192], -1, torch.float32),
    ("s_bf16_4096x8192_b8192_dim1", [4096, 8192], [8192], 1, torch.bfloat16),
    ("s_f64_4096sq_dim1", [4096, 4096], [4096, 4096], 1, torch.float64),
    ("s_i32_4096sq_dim1", [4096, 4096], [4096, 4096], 1, torch.int32),
    ("s_f32_8192x2048_dim0", [8192, 2048], [8192, 2048], 0, torch.float32),
    ("s_f32_2048x8192_dim0", [2048, 8192], [2048, 8192], 0, torch.float32),
    ("s_f32_65536x256_dim0", [65536, 256], [65536, 256], 0, torch.float32),
    ("s_f16_8192x4096_dim0", [8192, 4096], [8192, 4096], 0, torch.float16),
    ("s_f32_100000x100_dim0", [100000, 100], [100000, 100], 0, torch.float32),
    ("s_f32_4096sq_b4096_dim0", [4096, 4096], [4096], 0, torch.float32),
    ("s_f32_256c_dim1", [256, 256, 256], [256, 256, 256], 1, torch.float32),
    ("s_f32_256c_dim0", [256, 256, 256], [256, 256, 256], 0, torch.float32),
    ("s_f32_32x1024x1024_dim1", [32, 1024, 1024], [32, 1024, 1024], 1, torch.float32),
    ("s_f32_1024x64x256_dim1", [1024, 64, 256], [1024, 64, 256], 1, torch.float32),
    ("s_f32_64x1024x256_dimm1", [64, 1024, 256], [64, 1024, 256], -1, torch.float32),
    ("s_f32_4M_dot", [4194304], [4194304], 0, torch.float32),
    ("s_f32_3M_dot", [3000000], [3000000], 0, torch.float32),
    ("s_bf16_8M_dot", [8388608], [8388608], 0, torch.bfloat16),
    ("s_f32_64K_dot", [65536], [65536], 0, torch.float32),
    ("s_f32_t4096x8192_dim1", [8192, 4096], [4096, 8192], 1, torch.float32, "ta"),
    ("s_bf16_t8192x4096_dim1", [4096, 8192], [8192, 4096], 1, torch.bfloat16, "ta"),
    ("s_f32_4096x8192_tb_dim0", [4096, 8192], [8192, 4096], 0, torch.float32, "tb"),
    ("s_f32_t64x1M_dim1", [1048576, 64], [64, 1048576], 1, torch.float32, "ta"),
    ("s_f32_t3000x5000_dim1", [5000, 3000], [3000, 5000], 1, torch.float32, "ta"),
]
if os.environ.get("VECDOT_SET") == "sweep":
    CASES = SWEEP
only = os.environ.get("VECDOT_CASES")
if only:
    CASES = [c for c in CASES if c[0] in only.split(",")]

timer = timing.Timer(dev)
timed, median = timer.timed, timing.median


def time_rotating(fns):
    """Median ms of each function, the order rotating every round."""
    times = [[] for _ in fns]
    k = len(fns)
    for r in range(-5, reps):
        for j in range(k):
            i = (j + r) % k
            ms, y = timed(fns[i][0], r)
            if fns[i][1] is not None:
                fns[i][1](y)
            if r >= 0:
                times[i].append(ms)
    return [median(t) for t in times]


rows = []
for name, sa, sb, dim, dt, *flags in CASES:
    g = torch.Generator(device=dev).manual_seed(0)
    if dt.is_floating_point:
        a = torch.rand(sa, device=dev, generator=g, dtype=torch.float32).to(dt) - 0.5
        b = torch.rand(sb, device=dev, generator=g, dtype=torch.float32).to(dt) - 0.5
    else:
        a = torch.randint(-8, 8, sa, device=dev, generator=g, dtype=dt)
        b = torch.randint(-8, 8, sb, device=dev, generator=g, dtype=dt)
    if "ta" in flags:
        a = a.t()
    if "tb" in flags:
        b = b.t()
    va, vb = tt_ctypes.view_of(lib, a), tt_ctypes.view_of(lib, b)

    def ours():
        r = lib.tensor_vecdot(va, vb, dim)
        if not r:
            raise RuntimeError("tensor_vecdot: " + lib.tensor_last_error().decode())
        return r

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
    t_ours, t_eager, t_comp, t_floor = time_rotating(
        [(ours, lib.tensor_release), (eager, None), (compiled, None), (floor, None)])
    nbytes = a.numel() * a.element_size() + b.numel() * b.element_size() + ref.numel() * ref.element_size()
    row = {"name": name, "a": list(a.shape), "b": list(b.shape), "dim": dim, "dtype": str(dt).replace("torch.", ""),
           "ours_ms": t_ours, "eager_ms": t_eager, "compile_ms": t_comp, "floor_ms": t_floor,
           "vs_eager": t_eager / t_ours, "vs_compile": t_comp / t_ours, "floor_ratio": t_ours / t_floor,
           "GBps": nbytes / t_ours / 1e6, "check": err <= 1.0, "err_ratio": err}
    rows.append(row)
    print(json.dumps(row), flush=True)
    lib.tensor_release(va)
    lib.tensor_release(vb)
    del a, b, buf, ref

gpu = torch.cuda.get_device_name()
lines = [f"# tensor_vecdot vs torch ({gpu}, torch {torch.__version__}, {reps} reps, median ms, 256 MiB fill_ "
         "flush, CUDA events)", "",
         "| case | ours ms | eager (a*b).sum ms | torch.compile ms | floor ms | vs eager | vs compile | ours / floor "
         "| GB/s | check |", "|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    lines.append(f"| {r['name']} | {r['ours_ms']:.4f} | {r['eager_ms']:.4f} | {r['compile_ms']:.4f} | "
                 f"{r['floor_ms']:.4f} | {r['vs_eager']:.2f}x | {r['vs_compile']:.2f}x | {r['floor_ratio']:.3f} | "
                 f"{r['GBps']:.0f} | {'ok' if r['check'] else 'MISMATCH'} |")
open(os.path.join(out_dir, "bench_vecdot.md"), "w").write("\n".join(lines) + "\n")
json.dump({"gpu": gpu, "torch": torch.__version__, "reps": reps, "cases": rows},
          open(os.path.join(out_dir, "bench_vecdot.json"), "w"), indent=1)
print("\n".join(lines))

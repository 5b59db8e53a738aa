#!/usr/bin/env python3
"""CPU benchmark of tinytensor's fused tensor_vecdot against numpy, on the shapes below (the
GPU benchmark's vecdot cases, scaled to at most 256 MiB of input).

    python3 bench/run_cpu_vecdot.py [--build-dir build-bench] [--min-time 1.0] [--no-build] [--sweep | --rows]

It builds bench/bench_cpu_vecdot in a Release tree (unless --no-build), runs it (ours with 1
thread and with all threads), then times numpy on the same shapes, dtypes and dims in the same
way (a 64 MiB read-modify-write between calls to evict the caches, the median of N calls):
np.vecdot (numpy >= 2: one pass, no product array) and (a * b).sum(axis) (the product written,
then summed). numpy is single-threaded here (the BLAS thread variables are set to 1 before it
loads), so the comparison that matters is ours with one thread. Prints a markdown table.
--sweep runs SWEEP instead: shapes and dtypes the CPU paths were not tuned on, to find where
they fall behind; --rows runs ROWS: rows of 1500 to 12000 elements. Requires numpy.

--inprocess LIB times ours and numpy in this one process instead, on the same arrays: ours
through ctypes on LIB (a shared libtinytensor, e.g. a Release build's libtinytensor.so) with one
thread, on views of numpy's memory (tensor_from_blob), np.vecdot and (a * b).sum beside it;
every round flushes (the same 64 MiB write) before each of the three, the order rotating,
median of the rounds.
The VM's speed drifts between the C program's run and numpy's by up to 30%, which the separate
runs put in the ratio; this mode does not. Cases whose dtype numpy lacks are left out."""
import argparse
import os
import statistics
import subprocess
import sys
import time

OUR_ENV = dict(os.environ)  # the C program runs with the caller's environment (all threads)
for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(v, "1")
import numpy as np  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# a shape, b shape, dim, dtype; a shape "tRxC" is the transpose of a contiguous [C, R]
CASES = [
    ([1000, 8192], [1000, 8192], 1, "float32"),
    ([1000, 8192], [8192], 1, "float32"),
    ([4096, 4096], [4096, 4096], 0, "float32"),
    ([524288, 32], [524288, 32], 1, "float32"),
    ([2048, 8192], [2048, 1], 1, "float32"),
    ([16777216], [16777216], 0, "float32"),
    ([64, 512, 512], [64, 512, 512], 1, "float32"),
    ([1000, 4096], [1000, 4096], 1, "float64"),
    ([2048, 4096], [2048, 4096], 1, "float16"),
    ([1000, 8192], [1000, 8192], 1, "int32"),
    # a transposed beside a contiguous b (inputs of two layouts)
    ("t4096x8192", [4096, 8192], 1, "float32"),
    # rounded products over dim 0 (fold_columns of the rounded forms), and beside a transposed a
    ([2048, 4096], [2048, 4096], 0, "float16"),
    ([2048, 4096], [2048, 4096], 0, "int32"),
    ("t2048x4096", [2048, 4096], 1, "float16"),
]

# --sweep: other shapes, dims and dtypes (at most 256 MiB of input each)
SWEEP = [
    ([100000, 100], [100000, 100], 1, "float32"),
    ([100000, 100], [100000, 100], 0, "float32"),
    ([256, 256, 256], [256, 256, 256], 1, "float32"),
    ([256, 256, 256], [256, 256, 256], 0, "float32"),
    ([64, 1024, 256], [64, 1024, 256], 2, "float32"),
    ([8, 2097152], [8, 2097152], 1, "float32"),
    ([3000000], [3000000], 0, "float32"),
    ([4096, 4096], [4096], 0, "float32"),
    ("t3000x5000", [3000, 5000], 1, "float32"),
    ([2048, 2048], [2048, 2048], 0, "float64"),
    ([1000, 8192], [8192], 1, "float16"),
    ([1000, 4096], [1000, 4096], 1, "int64"),
    ([4096, 4096], [4096, 4096], 1, "int8"),
    ([4096, 4096], [4096, 4096], 0, "uint8"),
    ([1048576, 16], [1048576, 16], 1, "float32"),
]

# --rows: rows of 1500 to 12000 elements (the GPU benchmark's `rows` set), plain, times a
# broadcast row, and of odd lengths
ROWS = [
    ([8000, 1500], [8000, 1500], 1, "float32"),
    ([2500, 5000], [2500, 5000], 1, "float32"),
    ([1000, 12000], [1000, 12000], 1, "float32"),
    ([3000, 4000], [4000], 1, "float32"),
    ([1000, 8191], [8191], 1, "float32"),
    ([3000, 3001], [3000, 3001], 1, "float32"),
    ([2000, 6000], [2000, 6000], 1, "float64"),
    ([4000, 5001], [5001], 1, "float16"),
    ([4000, 3000], [4000, 3000], 1, "int32"),
    ([6000, 3000], [6000, 3000], 1, "int16"),
]


def shape_str(s):
    return s if isinstance(s, str) else "x".join(str(d) for d in s)


def make(rng, s, dt):
    """numpy's input of shape s (a "tRxC" string: a transposed view, as the C program makes)."""
    if isinstance(s, str):
        r, c = (int(x) for x in s[1:].split("x"))
        return rng.random([c, r], dtype=np.float64).astype(dt).T
    return rng.random(s, dtype=np.float64).astype(dt)


def build(build_dir):
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        subprocess.run(["cmake", "-S", REPO, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DTENSOR_CUDA=OFF",
                        "-DTENSOR_BUILD_TESTS=OFF", "-DTENSOR_BUILD_EXAMPLES=OFF"], check=True)
    subprocess.run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2), "--target", "bench_cpu_vecdot"],
                   check=True)


def time_numpy(f, min_time):
    flush = np.zeros(64 << 20, np.uint8)
    t, want = [], 5
    while len(t) < want:
        flush[::64] += 1
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
        if len(t) == 1:
            want = max(5, min(200, int(min_time / max(t[0], 1e-9))))
    return statistics.median(t)


# tensor_dtype values (runtime/dtype.h; fixed forever)
DTYPE_CODES = {"uint8": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5, "float16": 6, "float32": 8, "float64": 9}


def inprocess(lib_path, cases, min_time):
    import ctypes

    lib = ctypes.CDLL(lib_path)
    vp, i64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)

    class Device(ctypes.Structure):
        _fields_ = [("type", ctypes.c_int), ("index", ctypes.c_int)]

    lib.tensor_from_blob.restype = vp
    lib.tensor_from_blob.argtypes = [vp, ctypes.c_int, i64p, i64p, ctypes.c_int, Device, vp, vp]
    lib.tensor_vecdot.restype = vp
    lib.tensor_vecdot.argtypes = [vp, vp, ctypes.c_int]
    lib.tensor_release.argtypes = [vp]
    lib.tensor_last_error.restype = ctypes.c_char_p
    lib.tensor_set_num_threads.argtypes = [ctypes.c_int]
    lib.tensor_set_num_threads(1)

    def view(x):
        n = x.ndim
        sizes = (ctypes.c_int64 * n)(*x.shape)
        strides = (ctypes.c_int64 * n)(*(st // x.itemsize for st in x.strides))
        t = lib.tensor_from_blob(x.ctypes.data, n, sizes, strides, DTYPE_CODES[str(x.dtype)], Device(0, 0), None, None)
        if not t:
            raise RuntimeError(lib.tensor_last_error().decode())
        return t

    rng = np.random.default_rng(0)
    flush = np.zeros(64 << 20, np.uint8)
    print("| case (a x b, dim) | MB | ours ms (1 thread) | np.vecdot ms | (a * b).sum ms | ours vs numpy's best |")
    print("|---|---:|---:|---:|---:|---:|")
    for sa, sb, dim, dt in cases:
        if dt not in DTYPE_CODES:
            continue
        a, b = make(rng, sa, dt), make(rng, sb, dt)
        va, vb = view(a), view(b)

        def ours():
            r = lib.tensor_vecdot(va, vb, dim)
            if not r:
                raise RuntimeError(lib.tensor_last_error().decode())
            lib.tensor_release(r)

        # as main(): numpy's axis counted from the end of the broadcast shape, a size-1 input
        # given as a stride-0 view of the full shape
        full = np.broadcast_shapes(a.shape, b.shape)
        ax = dim - len(full)
        na = a if a.ndim == len(full) and a.shape[ax] == full[ax] else np.broadcast_to(a, full)
        nb = b if b.ndim == len(full) and b.shape[ax] == full[ax] else np.broadcast_to(b, full)

        fns = [ours, lambda: np.vecdot(na, nb, axis=ax), lambda: (a * b).sum(axis=ax)]

        def timed(f):
            flush[::64] += 1
            t0 = time.perf_counter()
            f()
            return time.perf_counter() - t0

        times, rounds, r = [[], [], []], 5, 0
        while r < rounds:
            for j in range(3):  # the order rotates every round
                i = (j + r) % 3
                times[i].append(timed(fns[i]))
            if r == 0:
                rounds = max(5, min(200, int(min_time / max(sum(t[0] for t in times), 1e-9))))
            r += 1
        lib.tensor_release(va)
        lib.tensor_release(vb)
        mo, mv, ms = (statistics.median(t) * 1e3 for t in times)
        a_name = ("a.T " + sa[1:]) if isinstance(sa, str) else str(list(sa))
        name = f"{dt} {a_name} x {list(sb)}, {dim}"
        print(f"| {name} | {(a.nbytes + b.nbytes) / 1e6:.0f} | {mo:.3f} | {mv:.3f} | {ms:.3f} | {min(mv, ms) / mo:.2f}x |",
              flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build-bench"))
    ap.add_argument("--min-time", type=float, default=1.0)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--sweep", action="store_true", help="the SWEEP shapes instead of CASES")
    ap.add_argument("--rows", action="store_true", help="the ROWS shapes instead of CASES")
    ap.add_argument("--inprocess", metavar="LIB", help="time ours through ctypes on LIB, in this process")
    args = ap.parse_args()
    cases = ROWS if args.rows else SWEEP if args.sweep else CASES
    if args.inprocess:
        return inprocess(args.inprocess, cases, args.min_time)
    if not args.no_build:
        build(args.build_dir)
    exe = os.path.join(args.build_dir, "bench", "bench_cpu_vecdot")
    argv = [exe, "--min-time", str(args.min_time)]
    for sa, sb, dim, dt in cases:
        argv += [shape_str(sa), shape_str(sb), str(dim), dt]
    out = subprocess.run(argv, check=True, capture_output=True, text=True, env=OUR_ENV).stdout
    ours = {}
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "case":
            ours[(f[1], f[2], int(f[3]), f[4])] = (int(f[5]), float(f[6]), float(f[7]), int(f[8]))
    rng = np.random.default_rng(0)
    rows = []
    for sa, sb, dim, dt in cases:
        nbytes, ms1, msn, threads = ours[(shape_str(sa), shape_str(sb), dim, dt)]
        a = make(rng, sa, dt)
        b = make(rng, sb, dt)
        # numpy's vecdot takes the axis of the broadcast shape, counted from the end
        ax = dim - len(np.broadcast_shapes(a.shape, b.shape))
        # np.vecdot does not broadcast the reduced dim itself: a size-1 b is given as a
        # stride-0 view of the full shape (no copy)
        full = np.broadcast_shapes(a.shape, b.shape)
        va = a if a.ndim == len(full) and a.shape[ax] == full[ax] else np.broadcast_to(a, full)
        vb = b if b.ndim == len(full) and b.shape[ax] == full[ax] else np.broadcast_to(b, full)
        t_vd = time_numpy(lambda: np.vecdot(va, vb, axis=ax), args.min_time) * 1e3
        t_ms = time_numpy(lambda: (a * b).sum(axis=ax), args.min_time) * 1e3
        best = min(t_vd, t_ms)
        name_a = f"a.T [{sa[1:].replace('x', ', ')}]" if isinstance(sa, str) else str(sa)
        rows.append(f"| {dt} {name_a} x {'same' if sa == sb else sb}, {dim} | {nbytes / 1e6:.0f} | {ms1:.3f} | "
                    f"{msn:.3f} | {nbytes / ms1 / 1e6:.1f} | {t_vd:.3f} | {t_ms:.3f} | {best / ms1:.2f}x |")
        print(rows[-1], flush=True)
    print()
    print(f"CPU: {os.cpu_count()} cores seen, ours with 1 and {threads} threads; numpy {np.__version__}, "
          f"Python {sys.version.split()[0]}")
    print("| case (a x b, dim) | MB | ours ms (1 thread) | ours ms (all) | ours GB/s (1 thread) | np.vecdot ms | "
          "(a * b).sum ms | ours vs numpy's best (1 thread) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()

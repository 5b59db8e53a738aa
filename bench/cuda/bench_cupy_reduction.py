"""CuPy's ReductionKernel, the comparison for tinytensor's JIT user reductions (bench_jit.c):
the same user sum and abs-sum over rows, columns and everything of an [8192, 8192] float32
array. Prints the first call of the process (compile or CuPy's disk cache, per CUPY_CACHE_DIR)
and the steady state (median of REPS, synchronised, host clock, as bench_jit.c times).
usage: CUPY_CACHE_DIR=DIR python3 bench_cupy_reduction.py [REPS]   (run twice on one DIR)"""
import statistics
import sys
import time

import cupy as cp

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
x = cp.random.rand(8192, 8192, dtype=cp.float32)
cp.cuda.Device().synchronize()
usum = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "user_sum")
uabs = cp.ReductionKernel("T x", "T y", "abs(x)", "a + b", "y = a", "0", "user_abs")


def timed(f, *a, **k):
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    f(*a, **k)
    cp.cuda.Device().synchronize()
    return (time.perf_counter() - t0) * 1e3


print(f"first call, user sum float32 (CuPy ReductionKernel, over dim 1): {timed(usum, x, axis=1):.1f} ms")
print("| case | CuPy ms | cupy.sum ms |\n|---|---:|---:|")
for name, k, builtin in (("sum", usum, lambda a, axis: a.sum(axis=axis)),
                         ("abs-sum", uabs, lambda a, axis: cp.abs(a).sum(axis=axis))):
    for axis in (1, 0, None):
        timed(k, x, axis=axis)
        timed(builtin, x, axis)
        u = statistics.median(timed(k, x, axis=axis) for _ in range(reps))
        b = statistics.median(timed(builtin, x, axis) for _ in range(reps))
        print(f"| {name} float32 over {'all' if axis is None else f'dim {axis}'} | {u:.3f} | {b:.3f} |")

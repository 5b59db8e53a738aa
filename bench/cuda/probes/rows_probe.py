#!/usr/bin/env python3
"""Tuning probe for the fused dot product of many short float32 rows, sum(a * b) over dim 1 of
contiguous [R, N] a and b: hand-written kernels where a group of G lanes folds a row, compiled
with NVRTC through CuPy and timed beside torch.compile's kernel of the same expression (and the
library's tensor_vecdot when BUILD names a build) in one process, by bench/cuda/timing.py's
method (256 MiB fill_ before each call, CUDA events, BENCH_HIDE_HOST, median).

A variant is a set of macros for one kernel source:
  T        threads per CTA
  G        lanes per row (a power of two up to 32); each lane loads V = N / (4 G) vectors per
           input of its row
  K        rows a thread loads before its first add (a CTA step covers K * T / G rows, the
           k-th of them T / G consecutive rows of the whole CTA, so that each load instruction
           of a CTA reads one contiguous stretch)
  PERSIST  0: one step per CTA; 1: as many CTAs as are resident, striding over the steps;
           2: as 1, with the next step's loads issued before this step is folded
  MINB     __launch_bounds__ minimum blocks per SM
  HINT     0 plain loads, 1 L1 evict-first and an L2 evict-first policy

usage: rows_probe.py OUT_DIR [REPS]  (env: SHAPES=1048576x32,65536x1024 VARIANTS=a,b ROUNDS=2
BUILD=build dir)"""
import json, os, sys

import cupy as cp
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402
import vecdot_probe  # noqa: E402  (its timing against torch.compile)

SRC = r"""
__device__ __forceinline__ unsigned long long pol() {
    unsigned long long p;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
    return p;
}
__device__ __forceinline__ float4 ld(const float4 *ptr, unsigned long long p) {
    float4 v;
#if P_HINT == 1
    asm("ld.global.L1::evict_first.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(ptr), "l"(p));
#elif P_HINT == 2
    asm("ld.global.L1::evict_first.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(ptr));
#elif P_HINT == 3
    asm("ld.global.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(ptr), "l"(p));
#else
    v = *ptr;
#endif
    return v;
}
#define P_V (P_NV / P_G)
#ifndef P_U
#define P_U P_V
#endif
#define P_RPS ((P_T / P_G) * P_K)
struct Step { float4 a[P_K][P_U], b[P_K][P_U]; };
__device__ __forceinline__ void load_step(Step &s, const float4 *A, const float4 *B, long long base, long long rows,
                                          unsigned long long p, int c = 0) {
    const int g = threadIdx.x / P_G, l = threadIdx.x % P_G;
    #pragma unroll
    for (int k = 0; k < P_K; k++) {
        const long long row = base + k * (P_T / P_G) + g;
        #pragma unroll
        for (int v = 0; v < P_U; v++) {
            const long long at = row * P_NV + l + (c * P_U + v) * P_G;
            if (row < rows) { s.a[k][v] = ld(A + at, p); s.b[k][v] = ld(B + at, p); }
            else { s.a[k][v] = make_float4(0.f, 0.f, 0.f, 0.f); s.b[k][v] = s.a[k][v]; }
        }
    }
}
struct Acc { float c[P_K][4]; };
__device__ __forceinline__ void acc_step(Acc &acc, const Step &s) {
    #pragma unroll
    for (int k = 0; k < P_K; k++) {
        #pragma unroll
        for (int v = 0; v < P_U; v++) {
            acc.c[k][0] += s.a[k][v].x * s.b[k][v].x; acc.c[k][1] += s.a[k][v].y * s.b[k][v].y;
            acc.c[k][2] += s.a[k][v].z * s.b[k][v].z; acc.c[k][3] += s.a[k][v].w * s.b[k][v].w;
        }
    }
}
__device__ __forceinline__ void store_step(Acc &acc, float *out, long long base, long long rows) {
    const int g = threadIdx.x / P_G, l = threadIdx.x % P_G;
    #pragma unroll
    for (int k = 0; k < P_K; k++) {
        float x = (acc.c[k][0] + acc.c[k][1]) + (acc.c[k][2] + acc.c[k][3]);
        #pragma unroll
        for (int off = P_G / 2; off > 0; off >>= 1) x += __shfl_xor_sync(0xffffffffu, x, off);
        const long long row = base + k * (P_T / P_G) + g;
        if (l == 0 && row < rows) out[row] = x;
        acc.c[k][0] = acc.c[k][1] = acc.c[k][2] = acc.c[k][3] = 0.f;
    }
}
extern "C" __global__ void __launch_bounds__(P_T, P_MINB)
rdot(const float *a, const float *b, float *out, long long rows) {
    const unsigned long long p = pol();
    const float4 *A = reinterpret_cast<const float4 *>(a), *B = reinterpret_cast<const float4 *>(b);
    const long long stride = (long long)gridDim.x * P_RPS;
    long long base = (long long)blockIdx.x * P_RPS;
    Acc acc = {};
#if P_PERSIST == 2
    Step cur;
    load_step(cur, A, B, base, rows, p);
    for (; base < rows; base += stride) {
        Step nxt;
        if (base + stride < rows) load_step(nxt, A, B, base + stride, rows, p);
        acc_step(acc, cur);
        store_step(acc, out, base, rows);
        cur = nxt;
    }
#else
    for (; base < rows; base += stride) {
        #pragma unroll 1
        for (int c = 0; c < P_V / P_U; c++) {
            Step s;
            load_step(s, A, B, base, rows, p, c);
            acc_step(acc, s);
        }
        store_step(acc, out, base, rows);
    }
#endif
}
"""

# name -> macros (NV, vectors per row, comes from the shape)
VARIANTS = {
    "g8_k4": dict(T=256, G=8, K=4, PERSIST=0, MINB=1, HINT=1),
    "g8_k8": dict(T=256, G=8, K=8, PERSIST=0, MINB=1, HINT=1),
    "g8_k2_t512": dict(T=512, G=8, K=2, PERSIST=0, MINB=1, HINT=1),
    "g4_k4": dict(T=256, G=4, K=4, PERSIST=0, MINB=1, HINT=1),
    "g8_k4_p1": dict(T=256, G=8, K=4, PERSIST=1, MINB=1, HINT=1),
    "g8_k4_p2": dict(T=256, G=8, K=4, PERSIST=2, MINB=1, HINT=1),
    "g8_k2_p2": dict(T=256, G=8, K=2, PERSIST=2, MINB=1, HINT=1),
    "g8_k4_plain": dict(T=256, G=8, K=4, PERSIST=0, MINB=1, HINT=0),
    "g32_k1": dict(T=256, G=32, K=1, PERSIST=0, MINB=1, HINT=1),
    "g32_k2": dict(T=256, G=32, K=2, PERSIST=0, MINB=1, HINT=1),
    "g32_k1_t512": dict(T=512, G=32, K=1, PERSIST=0, MINB=1, HINT=1),
    "g32_k1_p1": dict(T=256, G=32, K=1, PERSIST=1, MINB=1, HINT=1),
    "g32_k1_p2": dict(T=256, G=32, K=1, PERSIST=2, MINB=1, HINT=1),
    "g32_k1_plain": dict(T=256, G=32, K=1, PERSIST=0, MINB=1, HINT=0),
    "g8_k4_l1": dict(T=256, G=8, K=4, PERSIST=0, MINB=1, HINT=2),
    "g8_k4_l2": dict(T=256, G=8, K=4, PERSIST=0, MINB=1, HINT=3),
    "g8_k4_m2": dict(T=256, G=8, K=4, PERSIST=0, MINB=2, HINT=1),
    "g8_k4_t128": dict(T=128, G=8, K=4, PERSIST=0, MINB=1, HINT=1),
    "g32_k1_l1": dict(T=256, G=32, K=1, PERSIST=0, MINB=1, HINT=2),
    "g32_k1_l2": dict(T=256, G=32, K=1, PERSIST=0, MINB=1, HINT=3),
    "g32_u4_plain": dict(T=256, G=32, K=1, U=4, PERSIST=0, MINB=1, HINT=0),
    "g32_u4_m4_plain": dict(T=256, G=32, K=1, U=4, PERSIST=0, MINB=4, HINT=0),
    "g32_k1_m4_plain": dict(T=256, G=32, K=1, PERSIST=0, MINB=4, HINT=0),
    "g32_k2_plain": dict(T=256, G=32, K=2, PERSIST=0, MINB=1, HINT=0),
    "g32_k1_t128_plain": dict(T=128, G=32, K=1, PERSIST=0, MINB=1, HINT=0),
    "g32_k1_t512_plain": dict(T=512, G=32, K=1, PERSIST=0, MINB=1, HINT=0),
    "g16_u8_plain": dict(T=256, G=16, K=1, U=8, PERSIST=0, MINB=1, HINT=0),
}


def main():
    out_dir = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    os.makedirs(out_dir, exist_ok=True)
    dev = torch.device("cuda")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    lib = None
    if os.environ.get("BUILD"):
        import tt_ctypes
        lib = tt_ctypes.load(os.environ["BUILD"])
    timer = timing.Timer(dev)
    results = {}
    for shape in os.environ.get("SHAPES", "1048576x32,65536x1024").split(","):
        R, N = (int(x) for x in shape.split("x"))
        nv = N // 4
        g = torch.Generator(device=dev).manual_seed(0)
        a = torch.rand([R, N], device=dev, generator=g) - 0.5
        b = torch.rand([R, N], device=dev, generator=g) - 0.5
        ref = (a.double() * b.double()).sum(1)
        scale = (a.abs().double() * b.abs().double()).sum(1).max()
        out = torch.empty(R, device=dev)
        fns, labels = [], []
        names = os.environ.get("VARIANTS")
        names = names.split(",") if names else list(VARIANTS)
        for nm in names:
            m = VARIANTS[nm]
            if nv % m["G"] or nv // m["G"] > 16 and "U" not in m or nv // m["G"] % m.get("U", 1):
                continue
            opts = tuple("-DP_%s=%d" % kv for kv in m.items()) + ("-DP_NV=%d" % nv, "-arch=sm_90", "-std=c++17")
            k = cp.RawModule(code=SRC, options=opts).get_function("rdot")
            T = m["T"]
            rps = T // m["G"] * m["K"]
            steps = (R + rps - 1) // rps
            if m["PERSIST"]:
                regs = (k.num_regs + 7) // 8 * 8
                grid = min(steps, sms * min(65536 // (regs * T), 2048 // T))
            else:
                grid = steps

            def f(k=k, T=T, grid=grid):
                k((grid,), (T,), (cp.uint64(a.data_ptr()), cp.uint64(b.data_ptr()), cp.uint64(out.data_ptr()),
                                   cp.int64(R)))
                return out
            f()
            torch.cuda.synchronize()
            err = ((out.double() - ref).abs().max() / scale).item()
            fns.append((f, None))
            labels.append(f"{nm}(regs {k.num_regs}, grid {grid}, err {err:.1e}{' BAD' if err > 1e-5 else ''})")
        vecdot_probe.time_against_compile(timer, fns, labels, a, b, lib, shape, reps, results, 55)
        del a, b, ref, out
    json.dump(results, open(os.path.join(out_dir, "rows_probe.json"), "w"), indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Tuning probe for the fused dot product of inputs of two layouts with few outputs: out[m] =
sum_k a[m, k] * b[m, k] where a is a.t() of a contiguous [K, M] (contiguous along the outputs)
and b a contiguous [M, K] (contiguous along the reduced dim), float32, M small, K long. The
library's outer two-layout plan read these at 0.79-0.87x torch.compile ([64, 1048576]); this
probe measured the scheme its tile plan (docs/cuda_reduce.md) now follows.
Inductor splits them into two kernels: 3-D tiles (outputs x chunks x elements) that write one
partial per output and chunk, then a reduction over the partials. This probe times that
scheme, hand-written, beside torch.compile's kernels and the library's tensor_vecdot (BUILD)
in one process, by bench/cuda/timing.py's method (256 MiB fill_ before each call, CUDA events,
BENCH_HIDE_HOST, median).

Kernel 1, a CTA of T threads per (chunk of L reduced elements, YB outputs): for each tile of
RB = 32 S reduced elements it loads a's tile (RB rows of YB consecutive floats: coalesced)
into shared memory, rows padded to YB + 1 floats, and each warp takes YB / (T / 32) outputs,
lane l the elements l, l + 32, ... of the tile: b's loads are 128 contiguous bytes per warp
instruction, a's values come from shared memory without bank conflicts. With PIPE the next
tile's loads are issued before the current tile is folded. Kernel 2: one warp per output over
its K / L partials, in order (deterministic).

A variant is a set of macros: YB, L, T, S, PIPE, MINB (__launch_bounds__'s minimum CTAs per SM).

usage: tlayout_probe.py OUT_DIR [REPS]  (env: SHAPES=64x1048576,16x4194304 (M x K) VARIANTS=a,b
ROUNDS=2 BUILD=build dir)"""
import json, os, sys

import cupy as cp
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402
import vecdot_probe  # noqa: E402  (its timing against torch.compile)

SRC = r"""
#ifndef P_MINB
#define P_MINB 1
#endif
#define P_RB (32 * P_S)
#define P_W (P_T / 32)
#define P_OPW (P_YB / P_W)
#define P_NA (P_RB * P_YB / P_T)
struct Regs { float a[P_NA]; float b[P_OPW][P_S]; };
// pa: this thread's element of a's tile row 0 (T % YB == 0: its j-th element is T / YB rows on);
// pb[i]: row m0 + w + W i of b at this lane's first element.
__device__ __forceinline__ void load_tile(Regs &r, const float *pa, const float *const (&pb)[P_OPW], long long kb) {
    #pragma unroll
    for (int j = 0; j < P_NA; j++) r.a[j] = pa[(kb + j * (P_T / P_YB)) * P_M];
    #pragma unroll
    for (int i = 0; i < P_OPW; i++)
        #pragma unroll
        for (int s = 0; s < P_S; s++) r.b[i][s] = pb[i][kb + 32 * s];
}
extern "C" __global__ void __launch_bounds__(P_T, P_MINB) tl_part(const float *a, const float *b, float *part) {
    __shared__ float as[P_RB][P_YB + 1];
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    const long long k0 = (long long)blockIdx.x * P_L;
    const int m0 = blockIdx.y * P_YB;
    float acc[P_OPW];
    #pragma unroll
    for (int i = 0; i < P_OPW; i++) acc[i] = 0.f;
    static_assert(P_T % P_YB == 0, "a's tile: whole rows per pass of the CTA");
    const float *pa = a + (long long)(threadIdx.x / P_YB) * P_M + m0 + threadIdx.x % P_YB;
    const float *pb[P_OPW];
    #pragma unroll
    for (int i = 0; i < P_OPW; i++) pb[i] = b + (long long)(m0 + w + P_W * i) * P_K + lane;
    Regs r;
    load_tile(r, pa, pb, k0);
    #pragma unroll 1
    for (long long kb = k0; kb < k0 + P_L; kb += P_RB) {
        __syncthreads(); // the previous tile's readers are done
        #pragma unroll
        for (int j = 0; j < P_NA; j++) {
            const int e = threadIdx.x + j * P_T;
            as[e / P_YB][e % P_YB] = r.a[j];
        }
        __syncthreads();
        float cb[P_OPW][P_S];
        #pragma unroll
        for (int i = 0; i < P_OPW; i++)
            #pragma unroll
            for (int s = 0; s < P_S; s++) cb[i][s] = r.b[i][s];
#if P_PIPE
        if (kb + P_RB < k0 + P_L) load_tile(r, pa, pb, kb + P_RB);
#endif
        #pragma unroll
        for (int i = 0; i < P_OPW; i++)
            #pragma unroll
            for (int s = 0; s < P_S; s++) acc[i] += as[lane + 32 * s][w + P_W * i] * cb[i][s];
#if !P_PIPE
        if (kb + P_RB < k0 + P_L) load_tile(r, pa, pb, kb + P_RB);
#endif
    }
    #pragma unroll
    for (int i = 0; i < P_OPW; i++) {
        float v = acc[i];
        #pragma unroll
        for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
        if (lane == 0) part[(long long)(m0 + w + P_W * i) * gridDim.x + blockIdx.x] = v;
    }
}
extern "C" __global__ void tl_final(const float *part, float *out, int chunks) {
    const int m = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (m >= P_M) return;
    float v = 0.f;
    for (int c = lane; c < chunks; c += 32) v += part[(long long)m * chunks + c];
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (lane == 0) out[m] = v;
}
"""

# name -> macros (M and K come from the shape)
VARIANTS = {
    "y32_l1024_t256_s4": dict(YB=32, L=1024, T=256, S=4, PIPE=1),
    "y32_l1024_t256_s4_np": dict(YB=32, L=1024, T=256, S=4, PIPE=0),
    "y32_l2048_t256_s4": dict(YB=32, L=2048, T=256, S=4, PIPE=1),
    "y32_l512_t256_s4": dict(YB=32, L=512, T=256, S=4, PIPE=1),
    "y32_l4096_t256_s4": dict(YB=32, L=4096, T=256, S=4, PIPE=1),
    "y64_l1024_t256_s2": dict(YB=64, L=1024, T=256, S=2, PIPE=1),
    "y64_l2048_t512_s2": dict(YB=64, L=2048, T=512, S=2, PIPE=1),
    "y16_l1024_t128_s4": dict(YB=16, L=1024, T=128, S=4, PIPE=1),
    "y16_l1024_t256_s4": dict(YB=16, L=1024, T=256, S=4, PIPE=1),
    "y32_l1024_t256_s4_m4": dict(YB=32, L=1024, T=256, S=4, PIPE=1, MINB=4),
    "y32_l2048_t256_s4_m4": dict(YB=32, L=2048, T=256, S=4, PIPE=1, MINB=4),
    "y64_l1024_t256_s2_m4": dict(YB=64, L=1024, T=256, S=2, PIPE=1, MINB=4),
    "y32_l1024_t256_s2_m4": dict(YB=32, L=1024, T=256, S=2, PIPE=1, MINB=4),
    "y32_l1024_t256_s2": dict(YB=32, L=1024, T=256, S=2, PIPE=1),
    "y32_l2048_t512_s4": dict(YB=32, L=2048, T=512, S=4, PIPE=1),
}


def main():
    out_dir = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    os.makedirs(out_dir, exist_ok=True)
    dev = torch.device("cuda")
    lib = None
    if os.environ.get("BUILD"):
        import tt_ctypes
        lib = tt_ctypes.load(os.environ["BUILD"])
    timer = timing.Timer(dev)
    results = {}
    for shape in os.environ.get("SHAPES", "64x1048576,16x4194304,128x524288,256x262144").split(","):
        M, K = (int(x) for x in shape.split("x"))
        g = torch.Generator(device=dev).manual_seed(0)
        at = torch.rand([K, M], device=dev, generator=g) - 0.5  # a = at.t(): [M, K], contiguous along M
        b = torch.rand([M, K], device=dev, generator=g) - 0.5
        a = at.t()
        ref = (a.double() * b.double()).sum(1)
        scale = (a.abs().double() * b.abs().double()).sum(1).max()
        out = torch.empty(M, device=dev)
        fns, labels = [], []
        names = os.environ.get("VARIANTS")
        names = names.split(",") if names else list(VARIANTS)
        for nm in names:
            m = VARIANTS[nm]
            W = m["T"] // 32
            if M % m["YB"] or m["YB"] % W or K % m["L"] or m["L"] % (32 * m["S"]) or m["T"] % m["YB"]:
                continue
            opts = tuple("-DP_%s=%d" % kv for kv in m.items()) + ("-DP_M=%d" % M, "-DP_K=%d" % K, "-arch=sm_90",
                                                                 "-std=c++17")
            mod = cp.RawModule(code=SRC, options=opts)
            k1, k2 = mod.get_function("tl_part"), mod.get_function("tl_final")
            chunks = K // m["L"]
            part = torch.empty(M * chunks, device=dev)

            def f(k1=k1, k2=k2, m=m, chunks=chunks, part=part):
                k1((chunks, M // m["YB"]), (m["T"],), (cp.uint64(at.data_ptr()), cp.uint64(b.data_ptr()),
                                                      cp.uint64(part.data_ptr())))
                k2(((M + 7) // 8,), (256,), (cp.uint64(part.data_ptr()), cp.uint64(out.data_ptr()), cp.int32(chunks)))
                return out
            f()
            torch.cuda.synchronize()
            err = ((out.double() - ref).abs().max() / scale).item()
            fns.append((f, None))
            labels.append(f"{nm}(regs {k1.num_regs}, grid {chunks}x{M // m['YB']}, err {err:.1e}"
                          f"{' BAD' if err > 1e-5 else ''})")
        vecdot_probe.time_against_compile(timer, fns, labels, a, b, lib, shape, reps, results, 62)
        del a, at, b, ref, out
    json.dump(results, open(os.path.join(out_dir, "tlayout_probe.json"), "w"), indent=1)


if __name__ == "__main__":
    main()

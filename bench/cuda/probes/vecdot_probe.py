#!/usr/bin/env python3
"""Tuning probe for the fused row dot product, sum(a * b) over dim 1 of float32 [R, N] rows (b
either [R, N] or one [N] row broadcast): hand-written kernel shapes, compiled with NVRTC
through CuPy, timed beside torch.compile's kernel of the same expression (and the library's
tensor_vecdot when BUILD names a build) in one process, by bench/cuda/timing.py's method (256
MiB fill_ before each call, CUDA events, BENCH_HIDE_HOST to keep host work out, median).

A variant is a set of macros for one kernel source:
  T      threads per CTA (one CTA per row, or persistent CTAs striding over rows)
  L      16-byte loads per input per thread per round (a round covers T * L * 4 elements)
  RED    0: a tree over the warps in shared memory, then shuffles (the library's order for a
         block whose x and y both split the row); 1: shuffles in each warp first, then one
         warp folds the warps' partials (one barrier)
  HINT   0: plain loads; 1: L1 evict-first and an L2 policy (evict-first for inputs read once,
         evict-last for the broadcast row)
  MINB   __launch_bounds__ minimum blocks per SM (the register cap)
  PERSIST 0: one CTA per row; 1: grid of resident CTAs, each row's loads issued before the
         previous row is reduced (needs N == T * L * 4); 2: as 1 with b's row (broadcast
         only) loaded once into registers; 3: as 2 without the early loads of the next row
  SETUP  extra integer divisions before the first load (the cost of a general index path)
  CHAIN  dependent reads of a __constant__ table before the first load (SPREAD: 64 B apart)
  FMUL_RN products through __fmul_rn, added separately (the library's Dot: no FFMA)
  PAD    more 8-byte kernel parameters (the library passes its plan, ~1.3 KB, by value)
  SPLIT  (kernel vdot_split) equal ranges of the flattened rows' vectors, one per CTA of a grid
         of SPLIT x the resident CTAs; a row shared by CTAs is added up by the last to arrive
  GRID   (SPLIT kernels) the grid, in place of SPLIT x the resident CTAs (ROWS=1: a 1-D dot)
  SPLAT  b is [R, 1] (CASES=splat): one element of b a row, repeated in every vector
  CH, ST, CPS (kernel vdot_tma) the same equal ranges, streamed by bulk copies (cp.async.bulk)
         into ST shared-memory stages of up to CH vectors per input, CPS CTAs an SM

usage: vecdot_probe.py OUT_DIR [REPS]   (env: BUILD=build dir for tensor_vecdot, VARIANTS=a,b,
CASES=same,bcast,splat (default same,bcast), ROUNDS=2, ROWS and COLS for another shape)"""
import json, os, sys

import cupy as cp
import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import timing  # noqa: E402

import cuda_snippets  # noqa: E402 (beside this file)

SRC = r"""
#ifndef P_SETUP
#define P_SETUP 0
#endif
#ifndef P_CHAIN
#define P_CHAIN 0
#endif
#ifndef P_PAD
#define P_PAD 0
#endif
#ifndef P_FMUL_RN
#define P_FMUL_RN 0
#endif
#ifndef P_SPLAT
#define P_SPLAT 0
#endif
#if P_FMUL_RN
#define MULADD(acc, x, y) acc = acc + __fmul_rn(x, y)
#else
#define MULADD(acc, x, y) acc += (x) * (y)
#endif
// P_CHAIN dependent reads of a constant table before the first load: the table says whether
// they fall in one 64-byte line or each in its own (set from the host)
__constant__ int ctab[1024];
"""+ cuda_snippets.L2_POLICY + r"""__device__ __forceinline__ float4 ld(const float4 *ptr, unsigned long long p) {
#if P_HINT
    float4 v;
    asm("ld.global.L1::evict_first.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(ptr), "l"(p));
    return v;
#else
    return *ptr;
#endif
}
#if P_RED == 0
__device__ __forceinline__ float block_sum(float v, float *sh) {
    const int warp = threadIdx.x >> 5;
    // warps as y: a tree over warps in shared memory, two barriers a level, then the lanes
    sh[threadIdx.x] = v;
    for (int off = (P_T / 32) / 2; off > 0; off >>= 1) {
        __syncthreads();
        if (warp < off) v += sh[threadIdx.x + off * 32];
        __syncthreads();
        if (warp < off) sh[threadIdx.x] = v;
    }
    for (int off = 1; off < 32; off <<= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}
#else
"""+ cuda_snippets.BLOCK_SUM_SHFL + r"""#endif
// One round of the row at p: P_L vectors, thread t's at t, t + P_T, ...
__device__ __forceinline__ void load_round(float4 (&v)[P_L], const float *p, unsigned long long pol) {
    const float4 *P = reinterpret_cast<const float4 *>(p);
    #pragma unroll
    for (int u = 0; u < P_L; u++) v[u] = ld(P + threadIdx.x + u * P_T, pol);
}
// A thread's products of one round, in four sums folded at the end
__device__ __forceinline__ float dot_round(const float4 (&x)[P_L], const float4 (&y)[P_L]) {
    float acc0 = 0.f, acc1 = 0.f, acc2 = 0.f, acc3 = 0.f;
    #pragma unroll
    for (int u = 0; u < P_L; u++) {
        acc0 += x[u].x * y[u].x; acc1 += x[u].y * y[u].y; acc2 += x[u].z * y[u].z; acc3 += x[u].w * y[u].w;
    }
    return (acc0 + acc1) + (acc2 + acc3);
}
extern "C" __global__ void __launch_bounds__(P_T, P_MINB)
vdot(const float *a, const float *b, float *out, int n, int rows, long long b_row_stride, int d0, int d1
     /*PAD_PARAMS*/) {
#if P_PAD
    if (/*PAD_LAST*/ == 12345) out[0] = 0.f;  // keeps the padding parameters alive
#endif
    __shared__ float sh[P_T];
    const unsigned long long pa = pol(false), pb = pol(b_row_stride == 0);
#if P_PERSIST == 0
    const int nv = n / 4;
    int row = blockIdx.x;
#if P_CHAIN
    {
        int j = ctab[0];
        #pragma unroll
        for (int k = 1; k < P_CHAIN; k++) j = ctab[j];
        row += ctab[1023] * j;  // ctab[1023] == 0
    }
#endif
#if P_SETUP
    // stand-in for an offset calculator: a few dependent divisions by run-time values
    unsigned r = row;
    unsigned o = 0;
    #pragma unroll
    for (int k = 0; k < P_SETUP; k++) { unsigned q = r / (unsigned)(d0 + k); o += (r - q * (unsigned)(d0 + k)) * (unsigned)d1; r = q; }
    row = (int)(o + r * (unsigned)d1);  // d1 = 1, d0 large: row unchanged
#endif
    const float4 *A = reinterpret_cast<const float4 *>(a + (long long)row * n);
    const float4 *B = reinterpret_cast<const float4 *>(b + (long long)row * b_row_stride);
    float acc0 = 0.f, acc1 = 0.f, acc2 = 0.f, acc3 = 0.f;
#if P_SPLAT
    const float bs = b[(long long)row * b_row_stride];  // b [R, 1]: one element a row
#endif
    int i = threadIdx.x;
    #pragma unroll 1
    for (; i + (P_L - 1) * P_T < nv; i += P_T * P_L) {
        float4 va[P_L], vb[P_L];
        #pragma unroll
        for (int u = 0; u < P_L; u++) {
            va[u] = ld(A + i + u * P_T, pa);
#if P_SPLAT
            vb[u] = make_float4(bs, bs, bs, bs);
#else
            vb[u] = ld(B + i + u * P_T, pb);
#endif
        }
        #pragma unroll
        for (int u = 0; u < P_L; u++) {
            MULADD(acc0, va[u].x, vb[u].x); MULADD(acc1, va[u].y, vb[u].y); MULADD(acc2, va[u].z, vb[u].z); MULADD(acc3, va[u].w, vb[u].w);
        }
    }
    for (; i < nv; i += P_T) {
#if P_SPLAT
        const float4 x = ld(A + i, pa), y = make_float4(bs, bs, bs, bs);
#else
        const float4 x = ld(A + i, pa), y = ld(B + i, pb);
#endif
        acc0 += x.x * y.x; acc1 += x.y * y.y; acc2 += x.z * y.z; acc3 += x.w * y.w;
    }
    float v = block_sum((acc0 + acc1) + (acc2 + acc3), sh);
    if (threadIdx.x == 0) out[row] = v;
#elif P_PERSIST >= 2
    // persistent CTAs with b's row (broadcast: b_row_stride 0) loaded once into registers; a's
    // rows stream, and with PERSIST 2 the next row's loads are issued before this row is folded
    float4 va[P_L], vb[P_L];
    load_round(vb, b, pb);
    int row = blockIdx.x;
    if (row < rows) load_round(va, a + (long long)row * n, pa);
    for (; row < rows; row += gridDim.x) {
        const int next = row + gridDim.x;
        float4 na[P_L];
        if (P_PERSIST == 2 && next < rows) load_round(na, a + (long long)next * n, pa);
        float v = block_sum(dot_round(va, vb), sh);
        if (threadIdx.x == 0) out[row] = v;
        __syncthreads();
        if (P_PERSIST == 3 && next < rows) load_round(na, a + (long long)next * n, pa);
        #pragma unroll
        for (int u = 0; u < P_L; u++) va[u] = na[u];
    }
#else
    int row = blockIdx.x;
    float4 va[P_L], vb[P_L];
    if (row < rows) {
        const float4 *A = reinterpret_cast<const float4 *>(a + (long long)row * n);
        const float4 *B = reinterpret_cast<const float4 *>(b + (long long)row * b_row_stride);
        #pragma unroll
        for (int u = 0; u < P_L; u++) { va[u] = ld(A + threadIdx.x + u * P_T, pa); vb[u] = ld(B + threadIdx.x + u * P_T, pb); }
    }
    for (; row < rows; row += gridDim.x) {
        const int next = row + gridDim.x;
        float4 na[P_L], nb[P_L];
        if (next < rows) {
            const float4 *A = reinterpret_cast<const float4 *>(a + (long long)next * n);
            const float4 *B = reinterpret_cast<const float4 *>(b + (long long)next * b_row_stride);
            #pragma unroll
            for (int u = 0; u < P_L; u++) { na[u] = ld(A + threadIdx.x + u * P_T, pa); nb[u] = ld(B + threadIdx.x + u * P_T, pb); }
        }
        float v = block_sum(dot_round(va, vb), sh);
        if (threadIdx.x == 0) out[row] = v;
        __syncthreads();  // sh reused by the next row
        #pragma unroll
        for (int u = 0; u < P_L; u++) { va[u] = na[u]; vb[u] = nb[u]; }
    }
#endif
}
// Balanced split (SPLIT variants): the R x N/4 vectors of the rows, flattened, cut into gridDim.x
// equal ranges, one a resident CTA. A CTA folds each row piece it holds; a row that is not whole
// in one CTA leaves one partial per CTA in part[row * maxp + k], and the last of its CTAs to
// arrive (a counter per row, put back to 0 by that CTA) adds them in k order, so the bits do not
// depend on which CTA comes last.
__device__ __forceinline__ long long cta_of(long long c, long long V, long long G) { return ((c + 1) * G - 1) / V; }
// This CTA's sum v of its piece of row (every thread calls it): the output if the row is whole in
// this CTA, else its partial, and the row's sum from the last of its CTAs to arrive.
__device__ void store_piece(float v, float *out, float *part, unsigned *cnt, long long row, long long nv,
                            long long V, long long G, long long g, int maxp, bool *last) {
    const long long gf = cta_of(row * nv, V, G), gl = cta_of(row * nv + nv - 1, V, G);
    if (gf == gl) {
        if (threadIdx.x == 0) out[row] = v;
        return;
    }
    if (threadIdx.x == 0) {
        part[row * maxp + (g - gf)] = v;
        __threadfence();
        *last = atomicAdd(cnt + row, 1u) == (unsigned)(gl - gf);
    }
    __syncthreads();
    if (*last && threadIdx.x == 0) {
        __threadfence();
        float t = 0.f;
        for (int k = 0; k <= (int)(gl - gf); k++) t += __ldcg(part + row * maxp + k);
        out[row] = t;
        cnt[row] = 0;
    }
}
extern "C" __global__ void __launch_bounds__(P_T, P_MINB)
vdot_split(const float *a, const float *b, float *out, float *part, unsigned *cnt, int n, int rows,
           long long b_row_stride, int maxp) {
    __shared__ float sh[P_T];
    __shared__ bool last;
    const unsigned long long pa = pol(false), pb = pol(b_row_stride == 0);
    const long long nv = n / 4, V = (long long)rows * nv, G = gridDim.x, g = blockIdx.x;
    long long s = V * g / G;
    const long long e = V * (g + 1) / G;
    while (s < e) {
        const long long row = s / nv, rs = row * nv, re = min(e, rs + nv);
        const float4 *A = reinterpret_cast<const float4 *>(a) + rs;
        const float4 *B = reinterpret_cast<const float4 *>(b + row * b_row_stride);
        float acc0 = 0.f, acc1 = 0.f, acc2 = 0.f, acc3 = 0.f;
        const int jend = (int)(re - rs);
        #pragma unroll 1
        for (int j = (int)(s - rs) + threadIdx.x; j < jend; j += P_T * P_L) {
            float4 va[P_L], vb[P_L];
            #pragma unroll
            for (int u = 0; u < P_L; u++) {
                if (j + u * P_T < jend) { va[u] = ld(A + j + u * P_T, pa); vb[u] = ld(B + j + u * P_T, pb); }
                else { va[u] = make_float4(0.f, 0.f, 0.f, 0.f); vb[u] = va[u]; }
            }
            #pragma unroll
            for (int u = 0; u < P_L; u++) {
                acc0 += va[u].x * vb[u].x; acc1 += va[u].y * vb[u].y; acc2 += va[u].z * vb[u].z; acc3 += va[u].w * vb[u].w;
            }
        }
        const float v = block_sum((acc0 + acc1) + (acc2 + acc3), sh);
        store_piece(v, out, part, cnt, row, nv, V, G, g, maxp, &last);
        __syncthreads();  // sh and last reused by the next piece
        s = re;
    }
}
#ifdef P_ST
// TMA variants: persistent CTAs (P_CPS an SM), each with an equal range of the flattened rows'
// vectors, streamed through a ring of P_ST shared-memory stages of up to P_CH vectors per input
// by bulk copies (one thread issues them; an mbarrier per stage counts the bytes in). A chunk
// ends at its row's end and at the range's end, so a CTA reads exactly its share.
__device__ __forceinline__ unsigned sm32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mb_wait(unsigned addr, unsigned phase) {
    unsigned ok = 0;
    while (!ok)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(ok) : "r"(addr), "r"(phase) : "memory");
}
__device__ __forceinline__ long long chunk_end(long long p, long long nv, long long e) {
    return min(min(p + P_CH, (p / nv + 1) * nv), e);
}
extern "C" __global__ void __launch_bounds__(P_T, 1)
vdot_tma(const float *a, const float *b, float *out, float *part, unsigned *cnt, int n, int rows,
         long long b_row_stride, int maxp) {
    extern __shared__ __align__(128) unsigned char smem[];
    float4 *bufa = reinterpret_cast<float4 *>(smem), *bufb = bufa + P_ST * P_CH;
    unsigned long long *full = reinterpret_cast<unsigned long long *>(bufb + P_ST * P_CH);
    __shared__ float sh[P_T];
    __shared__ bool last;
    const long long nv = n / 4, V = (long long)rows * nv, G = gridDim.x, g = blockIdx.x;
    const long long s0 = V * g / G, e = V * (g + 1) / G;
    if (threadIdx.x == 0) {
        for (int s = 0; s < P_ST; s++) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sm32(full + s)));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    long long pp = s0;  // the producer's cursor (thread 0)
    int ps = 0;
    auto issue = [&]() {
        const long long ce = chunk_end(pp, nv, e), row = pp / nv;
        const unsigned bytes = (unsigned)(ce - pp) * 16u;
        const float4 *A = reinterpret_cast<const float4 *>(a) + pp;
        const float4 *B = reinterpret_cast<const float4 *>(b + row * b_row_stride) + (pp - row * nv);
        const unsigned bar = sm32(full + ps);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(2u * bytes) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(sm32(bufa + ps * P_CH)), "l"(A), "r"(bytes), "r"(bar) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(sm32(bufb + ps * P_CH)), "l"(B), "r"(bytes), "r"(bar) : "memory");
        pp = ce;
        ps = ps + 1 == P_ST ? 0 : ps + 1;
    };
    if (threadIdx.x == 0)
        for (int k = 0; k < P_ST && pp < e; k++) issue();
    float acc0 = 0.f, acc1 = 0.f, acc2 = 0.f, acc3 = 0.f;
    long long p = s0;
    int s = 0;
    unsigned phase = 0;
    while (p < e) {
        const long long ce = chunk_end(p, nv, e), row = p / nv;
        const int len = (int)(ce - p);
        mb_wait(sm32(full + s), phase);
        const float4 *X = bufa + s * P_CH, *Y = bufb + s * P_CH;
        #pragma unroll 4
        for (int j = threadIdx.x; j < len; j += P_T) {
            const float4 x = X[j], y = Y[j];
            acc0 += x.x * y.x; acc1 += x.y * y.y; acc2 += x.z * y.z; acc3 += x.w * y.w;
        }
        __syncthreads();  // stage s read by every thread: thread 0 may refill it
        if (threadIdx.x == 0 && pp < e) issue();
        p = ce;
        if (++s == P_ST) { s = 0; phase ^= 1; }
        if (p == e || p == (row + 1) * nv) {  // the end of this CTA's piece of the row
            const float v = block_sum((acc0 + acc1) + (acc2 + acc3), sh);
            acc0 = acc1 = acc2 = acc3 = 0.f;
            store_piece(v, out, part, cnt, row, nv, V, G, g, maxp, &last);
            __syncthreads();
        }
    }
}
#endif
"""

# name -> macros
VARIANTS = {
    "lib_shape": dict(T=256, L=4, RED=0, HINT=1, MINB=4, PERSIST=0),
    "lib_shape_setup8": dict(T=256, L=4, RED=0, HINT=1, MINB=4, PERSIST=0, SETUP=8),
    "lib_shape_shfl": dict(T=256, L=4, RED=1, HINT=1, MINB=4, PERSIST=0),
    "lib_shape_plain": dict(T=256, L=4, RED=0, HINT=0, MINB=4, PERSIST=0),
    "t256_l8": dict(T=256, L=8, RED=1, HINT=1, MINB=2, PERSIST=0),
    "t512_l4_tree": dict(T=512, L=4, RED=0, HINT=1, MINB=2, PERSIST=0),
    "t512_l4_shfl": dict(T=512, L=4, RED=1, HINT=1, MINB=2, PERSIST=0),
    "inductor_like": dict(T=512, L=4, RED=1, HINT=1, MINB=3, PERSIST=0),
    "inductor_like_plain": dict(T=512, L=4, RED=1, HINT=0, MINB=3, PERSIST=0),
    "t1024_l2": dict(T=1024, L=2, RED=1, HINT=1, MINB=1, PERSIST=0),
    "t128_l16": dict(T=128, L=16, RED=1, HINT=1, MINB=4, PERSIST=0),
    "lib_shape_chain8_spread": dict(T=256, L=4, RED=0, HINT=1, MINB=4, PERSIST=0, CHAIN=8, SPREAD=1),
    "lib_shape_chain8_line": dict(T=256, L=4, RED=0, HINT=1, MINB=4, PERSIST=0, CHAIN=8, SPREAD=0),
    "lib_shape_pad160": dict(T=256, L=4, RED=0, HINT=1, MINB=4, PERSIST=0, PAD=160),
    "t512_l4_tree_pad160": dict(T=512, L=4, RED=0, HINT=1, MINB=2, PERSIST=0, PAD=160),
    "lib_shape_fmulrn": dict(T=256, L=4, RED=0, HINT=1, MINB=4, PERSIST=0, FMUL_RN=1),
    "t512_l4_tree_fmulrn": dict(T=512, L=4, RED=0, HINT=1, MINB=2, PERSIST=0, FMUL_RN=1),
    "t512_l4_tree_chain8": dict(T=512, L=4, RED=0, HINT=1, MINB=2, PERSIST=0, CHAIN=8),
    "persist512": dict(T=512, L=4, RED=1, HINT=1, MINB=1, PERSIST=1),
    "persist256_l8": dict(T=256, L=8, RED=1, HINT=1, MINB=1, PERSIST=1),
    # Inductor's launch on these rows (ncu): 512 threads, 32 registers, four CTAs per SM
    "t512_l1_m4": dict(T=512, L=1, RED=1, HINT=1, MINB=4, PERSIST=0),
    "t512_l2_m4": dict(T=512, L=2, RED=1, HINT=1, MINB=4, PERSIST=0),
    "t512_l4_m4": dict(T=512, L=4, RED=1, HINT=1, MINB=4, PERSIST=0),
    "t256_l4_m8": dict(T=256, L=4, RED=1, HINT=1, MINB=8, PERSIST=0),
    # many rows of a few thousand elements (ROWS=16384 COLS=2048, or 65536 x 1024), plain loads
    # as the library's calls past 256 MiB: a CTA per row of T threads, L loads per round
    "t64_l4_plain": dict(T=64, L=4, RED=1, HINT=0, MINB=1, PERSIST=0),
    "t128_l4_plain": dict(T=128, L=4, RED=1, HINT=0, MINB=1, PERSIST=0),
    "t128_l2_plain": dict(T=128, L=2, RED=1, HINT=0, MINB=1, PERSIST=0),
    "t256_l2_plain": dict(T=256, L=2, RED=1, HINT=0, MINB=1, PERSIST=0),
    "t256_l1_plain": dict(T=256, L=1, RED=1, HINT=0, MINB=1, PERSIST=0),
    "t512_l1_plain": dict(T=512, L=1, RED=1, HINT=0, MINB=1, PERSIST=0),
    "t128_l4_m4_plain": dict(T=128, L=4, RED=1, HINT=0, MINB=8, PERSIST=0),
    # broadcast rows only (CASES=bcast): b's row held in registers by persistent CTAs
    "bcast_regs512": dict(T=512, L=4, RED=1, HINT=1, MINB=1, PERSIST=2),
    "bcast_regs512_m2": dict(T=512, L=4, RED=1, HINT=1, MINB=2, PERSIST=2),
    "bcast_regs256_l8": dict(T=256, L=8, RED=1, HINT=1, MINB=1, PERSIST=2),
    "bcast_regs512_noprefetch": dict(T=512, L=4, RED=1, HINT=1, MINB=2, PERSIST=3),
    "bcast_regs256_l8_noprefetch": dict(T=256, L=8, RED=1, HINT=1, MINB=2, PERSIST=3),
    # balanced split: equal ranges of the flattened rows, one a resident CTA (grid = SMs x the
    # CTAs an SM holds, times SPLIT), partial rows added by the last CTA of each row
    "split512_l4": dict(T=512, L=4, RED=1, HINT=1, MINB=2, PERSIST=0, SPLIT=1),
    "split512_l2": dict(T=512, L=2, RED=1, HINT=1, MINB=4, PERSIST=0, SPLIT=1),
    "split256_l4": dict(T=256, L=4, RED=1, HINT=1, MINB=4, PERSIST=0, SPLIT=1),
    "split256_l2": dict(T=256, L=2, RED=1, HINT=1, MINB=8, PERSIST=0, SPLIT=1),
    "split1024_l2": dict(T=1024, L=2, RED=1, HINT=1, MINB=1, PERSIST=0, SPLIT=1),
    "split512_l4_x2": dict(T=512, L=4, RED=1, HINT=1, MINB=2, PERSIST=0, SPLIT=2),
    "split256_l4_x2": dict(T=256, L=4, RED=1, HINT=1, MINB=4, PERSIST=0, SPLIT=2),
    # bulk copies through shared memory: T threads, CPS CTAs an SM, ST stages of CH vectors
    # b [R, 1] (CASES=splat): one element of b a row, a's row streamed; plain loads as the
    # library's calls past 256 MiB, hinted for comparison
    "splat_t512_l4": dict(T=512, L=4, RED=1, HINT=0, MINB=2, PERSIST=0, SPLAT=1),
    "splat_t256_l8": dict(T=256, L=8, RED=1, HINT=0, MINB=2, PERSIST=0, SPLAT=1),
    "splat_t256_l8_m4": dict(T=256, L=8, RED=1, HINT=0, MINB=4, PERSIST=0, SPLAT=1),
    "splat_t128_l16": dict(T=128, L=16, RED=1, HINT=0, MINB=4, PERSIST=0, SPLAT=1),
    "splat_t512_l4_m4": dict(T=512, L=4, RED=1, HINT=0, MINB=4, PERSIST=0, SPLAT=1),
    "splat_t256_l8_hint": dict(T=256, L=8, RED=1, HINT=1, MINB=2, PERSIST=0, SPLAT=1),
    "splat_t512_l4_hint": dict(T=512, L=4, RED=1, HINT=1, MINB=2, PERSIST=0, SPLAT=1),
    # one row (ROWS=1: a 1-D dot): the split kernel on GRID CTAs
    "dot_t256_l4_g132": dict(T=256, L=4, RED=1, HINT=1, MINB=4, PERSIST=0, SPLIT=1, GRID=132),
    "dot_t256_l4_g264": dict(T=256, L=4, RED=1, HINT=1, MINB=4, PERSIST=0, SPLIT=1, GRID=264),
    "dot_t256_l4_g528": dict(T=256, L=4, RED=1, HINT=1, MINB=4, PERSIST=0, SPLIT=1, GRID=528),
    "dot_t512_l4_g132": dict(T=512, L=4, RED=1, HINT=1, MINB=2, PERSIST=0, SPLIT=1, GRID=132),
    "dot_t512_l4_g264": dict(T=512, L=4, RED=1, HINT=1, MINB=2, PERSIST=0, SPLIT=1, GRID=264),
    "dot_t1024_l2_g132": dict(T=1024, L=2, RED=1, HINT=1, MINB=1, PERSIST=0, SPLIT=1, GRID=132),
    "dot_t128_l4_g528": dict(T=128, L=4, RED=1, HINT=1, MINB=8, PERSIST=0, SPLIT=1, GRID=528),
    "dot_t256_l2_g528": dict(T=256, L=2, RED=1, HINT=1, MINB=4, PERSIST=0, SPLIT=1, GRID=528),
    "dot_t256_l4_g1056": dict(T=256, L=4, RED=1, HINT=1, MINB=4, PERSIST=0, SPLIT=1, GRID=1056),
    "tma_t256_ch1024_st4": dict(T=256, L=1, RED=1, HINT=0, MINB=1, PERSIST=0, CH=1024, ST=4, CPS=1),
    "tma_t256_ch512_st8": dict(T=256, L=1, RED=1, HINT=0, MINB=1, PERSIST=0, CH=512, ST=8, CPS=1),
    "tma_t512_ch1024_st6": dict(T=512, L=1, RED=1, HINT=0, MINB=1, PERSIST=0, CH=1024, ST=6, CPS=1),
    "tma_t256_ch512_st4_c2": dict(T=256, L=1, RED=1, HINT=0, MINB=1, PERSIST=0, CH=512, ST=4, CPS=2),
    "tma_t128_ch256_st6_c4": dict(T=128, L=1, RED=1, HINT=0, MINB=1, PERSIST=0, CH=256, ST=6, CPS=4),
    "tma_t256_ch256_st12": dict(T=256, L=1, RED=1, HINT=0, MINB=1, PERSIST=0, CH=256, ST=12, CPS=1),
}


def time_against_compile(timer, fns, labels, a, b, lib, tag, reps, results, width, warm=False):
    """Adds torch.compile of sum(a * b) over dim 1 (and the library's tensor_vecdot when lib is
    loaded) to fns and labels, then times them all in ROUNDS rounds (timing.alternate; warm: each
    timed call after an untimed one of its own), printing each against torch.compile and
    appending the milliseconds to results[tag][label]."""
    torch._dynamo.reset()
    comp = torch.compile(lambda x, y: (x * y).sum(1), dynamic=False)
    comp(a, b)
    fns.append((lambda: comp(a, b), None))
    labels.append("torch.compile")
    if lib is not None:
        import tt_ctypes
        va, vb = tt_ctypes.view_of(lib, a), tt_ctypes.view_of(lib, b)
        fns.append((lambda: lib.tensor_vecdot(va, vb, 1), lib.tensor_release))
        labels.append("tensor_vecdot")
    for rnd in range(int(os.environ.get("ROUNDS", 2))):
        ms = timing.alternate(timer, fns, reps, warm=warm)
        anchor = ms[labels.index("torch.compile")]
        for lab, t in zip(labels, ms):
            print(f"{tag} round {rnd}: {lab:{width}s} {t * 1000:8.2f} us  vs compile {anchor / t:5.3f}x", flush=True)
            results.setdefault(tag, {}).setdefault(lab, []).append(t)
    if lib is not None:
        lib.tensor_release(va)
        lib.tensor_release(vb)


def main():
    out_dir = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    os.makedirs(out_dir, exist_ok=True)
    dev = torch.device("cuda")
    names = os.environ.get("VARIANTS")
    names = names.split(",") if names else list(VARIANTS)
    R, N = int(os.environ.get("ROWS", 1000)), int(os.environ.get("COLS", 8192))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    kernels = {}
    for nm in names:
        m = VARIANTS[nm]
        opts = tuple("-DP_%s=%d" % kv for kv in m.items() if kv[0] not in ("SPREAD", "SPLIT", "CPS", "GRID")) + ("-arch=sm_90", "-std=c++17")
        pad = m.get("PAD", 0)
        code = SRC  # PAD more 8-byte parameters (the library's plan is a 1.3 KB parameter)
        if pad:
            code = code.replace("/*PAD_PARAMS*/", "".join(", long long pad%d" % i for i in range(pad)))
            code = code.replace("/*PAD_LAST*/", "pad%d" % (pad - 1))
        mod = cp.RawModule(code=code, options=opts)
        k = mod.get_function("vdot_tma" if m.get("ST") else "vdot_split" if m.get("SPLIT") else "vdot")
        if m.get("ST"):
            k.max_dynamic_shared_size_bytes = m["ST"] * m["CH"] * 32 + m["ST"] * 8
        # the chain's table: 0 -> 16 -> 32 ... (64 bytes apart) or 0 -> 1 -> 2 ...
        step = 16 if m.get("SPREAD") else 1
        tab = np.zeros(1024, np.int32)
        for i in range(0, 1000, step):
            tab[i] = i + step if i + step < 1000 else 0
        tab[1023] = 0
        g = mod.get_global("ctab")
        g.copy_from_host(tab.ctypes.data, tab.nbytes)
        kernels[nm] = (k, m)
        print(nm, "regs", k.num_regs, "local", k.local_size_bytes, flush=True)
    lib = None
    if os.environ.get("BUILD"):
        import tt_ctypes
        lib = tt_ctypes.load(os.environ["BUILD"])
    timer = timing.Timer(dev)
    results = {}
    only = os.environ.get("CASES", "same,bcast").split(",")
    for case, bshape in (("same", [R, N]), ("bcast", [N]), ("splat", [R, 1])):
        if case not in only:
            continue
        g = torch.Generator(device=dev).manual_seed(0)
        a = torch.rand([R, N], device=dev, generator=g) - 0.5
        b = torch.rand(bshape, device=dev, generator=g) - 0.5
        ref = (a.double() * b.double()).sum(1)
        out = torch.empty(R, device=dev)
        bstride = 0 if len(bshape) == 1 else bshape[1]
        fns, labels = [], []
        for nm, (k, m) in kernels.items():
            T = m["T"]
            pads = tuple(cp.int64(i) for i in range(m.get("PAD", 0)))
            if m.get("ST"):
                grid = sms * m["CPS"]
            elif m["PERSIST"] or m.get("SPLIT"):
                regs = (k.num_regs + 7) // 8 * 8
                per_sm = min(65536 // (regs * T), 2048 // T)
                grid = min(R, sms * per_sm) if m["PERSIST"] else m.get("GRID", sms * per_sm * m["SPLIT"])
            else:
                grid = R

            if m.get("SPLIT") or m.get("ST"):
                per = R * (N // 4) // grid
                maxp = (N // 4) // max(per, 1) + 2
                part = torch.zeros(R * maxp, device=dev)
                cnt = torch.zeros(R, dtype=torch.int32, device=dev)

                smem = m["ST"] * m["CH"] * 32 + m["ST"] * 8 if m.get("ST") else 0

                def f(k=k, T=T, grid=grid, part=part, cnt=cnt, maxp=maxp, smem=smem):
                    k((grid,), (T,), (cp.uint64(a.data_ptr()), cp.uint64(b.data_ptr()), cp.uint64(out.data_ptr()),
                                       cp.uint64(part.data_ptr()), cp.uint64(cnt.data_ptr()), cp.int32(N), cp.int32(R),
                                       cp.int64(bstride), cp.int32(maxp)), shared_mem=smem)
                    return out
            else:
                def f(k=k, T=T, grid=grid, pads=pads):
                    k((grid,), (T,), (cp.uint64(a.data_ptr()), cp.uint64(b.data_ptr()), cp.uint64(out.data_ptr()),
                                       cp.int32(N), cp.int32(R), cp.int64(bstride), cp.int32(1 << 30), cp.int32(1)) + pads)
                    return out
            f()
            torch.cuda.synchronize()
            err = ((out.double() - ref).abs().max() / (a.abs().double() * b.abs().double()).sum(1).max()).item()
            fns.append((f, None))
            labels.append(f"{nm}(grid {grid}, err {err:.1e}{' BAD' if err > 1e-5 else ''})")
        time_against_compile(timer, fns, labels, a, b, lib, case, reps, results, 60)
    json.dump(results, open(os.path.join(out_dir, "vecdot_probe.json"), "w"), indent=1)


if __name__ == "__main__":
    main()

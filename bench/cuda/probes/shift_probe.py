#!/usr/bin/env python3
"""Tuning probe for row dot products whose two inputs do not start alike modulo 16 bytes,
sum(a * b) over dim 1: `a` one element into its buffer beside an aligned b ("off1"), or rows of
odd length times one aligned broadcast row ("bcast"). b is read in 16-byte vectors. The
question is how to read a, whose elements for one of b's vectors straddle two of a's aligned
vectors at a shift s (the same for every row of off1, different row to row for bcast):
  MODE elem  each of a's elements loaded alone (what the library and Inductor do now)
  MODE shfl  a's aligned vectors, one 16-byte load each; the straddled one comes from the next
             lane by shuffles (lane 31 loads it itself), then the shift is a selection
  MODE pair  a's aligned vectors k and k + 1 loaded by each lane: the second read mostly hits
             the L1 lines the warp's first load brought in
Kernels are compiled with NVRTC through CuPy and timed beside torch.compile's kernel of the
same expression (and the library's tensor_vecdot when BUILD names a build) in one process, by
bench/cuda/timing.py's method (256 MiB fill_ before each call, CUDA events, BENCH_HIDE_HOST,
median). One CTA a row; products as the library's (float32: a rounded product, then the add;
bfloat16: the product rounded to bfloat16, then added in float32).

Variant macros: T threads a CTA, L of b's vectors a thread loads a round, MINB the
__launch_bounds__ minimum of CTAs an SM (4 at 512 threads: 32 registers), MODE as above.

usage: shift_probe.py OUT_DIR [REPS]
env: BUILD (a build dir for tensor_vecdot), VARIANTS=a,b (default all), CASES (default all of
CASE_LIST's names), ROUNDS (default 2)."""
import json, os, sys

import cupy as cp
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import timing  # noqa: E402

import cuda_snippets  # noqa: E402 (beside this file)
import vecdot_probe  # noqa: E402 (beside this file: its timing against torch.compile)

SRC = r"""
#define MODE_ELEM 0
#define MODE_SHFL 1
#define MODE_PAIR 2
#if P_BF16
typedef unsigned short elem_t;  // bfloat16's bits: no header needed under NVRTC
#else
typedef float elem_t;
#endif
// elements a 16-byte vector and a 32-bit word hold
#define VEC (16 / (int)sizeof(elem_t))
#define EPW (4 / (int)sizeof(elem_t))
"""+ cuda_snippets.L2_POLICY + r"""__device__ __forceinline__ uint4 ldv(const uint4 *p, unsigned long long pl) {
    uint4 v;
    asm("ld.global.L1::evict_first.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(pl));
    return v;
}
// one element alone, as its bits in the low half of a word for 16-bit ones
__device__ __forceinline__ unsigned lde(const elem_t *p, unsigned long long pl) {
#if P_BF16
    unsigned short h;
    asm("ld.global.L1::evict_first.L2::cache_hint.b16 %0, [%1], %2;" : "=h"(h) : "l"(p), "l"(pl));
    return h;
#else
    unsigned w;
    asm("ld.global.L1::evict_first.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(w) : "l"(p), "l"(pl));
    return w;
#endif
}
__device__ __forceinline__ float lo_f(unsigned w) { return __uint_as_float(w << 16); }
__device__ __forceinline__ float hi_f(unsigned w) { return __uint_as_float(w & 0xffff0000u); }
// two bfloat16 products at once, each rounded to bfloat16
__device__ __forceinline__ unsigned mul_bf16x2(unsigned x, unsigned y) {
    unsigned d;
    asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y));
    return d;
}
// a word of x times the same word of y, added to acc (two elements for 16-bit ones)
__device__ __forceinline__ void mac(float &acc, unsigned x, unsigned y) {
#if P_BF16
    const unsigned w = mul_bf16x2(x, y);
    acc += lo_f(w);
    acc += hi_f(w);
#else
    acc += __fmul_rn(__uint_as_float(x), __uint_as_float(y));
#endif
}
// words j..j+3 of the pair (v, w) from element S on: word Q = S / EPW, and for 16-bit
// elements at an odd S the halves of two neighbouring words. S is a template argument (the
// kernel picks the loop of its row's shift), so this is register moves, not selections.
template <int S>
__device__ __forceinline__ uint4 funnel(const uint4 v, const uint4 w) {
    constexpr int Q = S / EPW;
    constexpr bool ODD = (S % EPW) != 0;
    const unsigned c[8] = {v.x, v.y, v.z, v.w, w.x, w.y, w.z, w.w};
    unsigned r[4];
    #pragma unroll
    for (int j = 0; j < 4; j++) r[j] = ODD ? __byte_perm(c[j + Q], c[j + Q + 1], 0x5432) : c[j + Q];
    return make_uint4(r[0], r[1], r[2], r[3]);
}
"""+ cuda_snippets.BLOCK_SUM_SHFL + r"""// A thread's share of the row's nv whole vectors, a's row starting S elements past the 16-byte
// boundary A (ar = A + S elements).
template <int S>
__device__ __forceinline__ float row_part(const elem_t *ar, const uint4 *A, const uint4 *B, int nv,
                                          unsigned long long pa, unsigned long long pb) {
    [[maybe_unused]] constexpr int NEED = S == 0 ? 0 : (S + EPW - 1) / EPW;  // words from the next vector
    const int lane = threadIdx.x & 31;
    float acc0 = 0.f, acc1 = 0.f, acc2 = 0.f, acc3 = 0.f;
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
    // rounds of L vectors; the condition is the warp's (its first lane's k), so every lane
    // takes part in the shuffles and lanes past the row load nothing
    #pragma unroll 1
    for (int i = threadIdx.x; i - lane < nv; i += P_T * P_L) {
        uint4 x[P_L], y[P_L];
        #pragma unroll
        for (int u = 0; u < P_L; u++) {
            const int k = i + u * P_T;
            y[u] = k < nv ? ldv(B + k, pb) : zero;
#if P_MODE == MODE_ELEM
            if (k < nv) {
                const elem_t *e = ar + (long long)k * VEC;
                unsigned w[4];
                #pragma unroll
                for (int j = 0; j < 4; j++) {
#if P_BF16
                    w[j] = lde(e + 2 * j, pa) | (lde(e + 2 * j + 1, pa) << 16);
#else
                    w[j] = lde(e + j, pa);
#endif
                }
                x[u] = make_uint4(w[0], w[1], w[2], w[3]);
            } else {
                x[u] = zero;
            }
#else
            // A[nv] holds the row's last S elements: lanes up to k == nv load theirs
            const uint4 v = k <= nv ? ldv(A + k, pa) : zero;
            uint4 w = zero;
            if constexpr (NEED > 0) {
#if P_MODE == MODE_SHFL
                w.x = __shfl_down_sync(0xffffffffu, v.x, 1);
                if constexpr (NEED > 1) w.y = __shfl_down_sync(0xffffffffu, v.y, 1);
                if constexpr (NEED > 2) w.z = __shfl_down_sync(0xffffffffu, v.z, 1);
                if constexpr (NEED > 3) w.w = __shfl_down_sync(0xffffffffu, v.w, 1);
                if (lane == 31) w = k + 1 <= nv ? ldv(A + k + 1, pa) : zero;
#else
                w = k + 1 <= nv ? ldv(A + k + 1, pa) : zero;
#endif
            }
            x[u] = k >= nv ? zero : funnel<S>(v, w);
#endif
        }
        #pragma unroll
        for (int u = 0; u < P_L; u++) {
            mac(acc0, x[u].x, y[u].x); mac(acc1, x[u].y, y[u].y); mac(acc2, x[u].z, y[u].z); mac(acc3, x[u].w, y[u].w);
        }
    }
    return (acc0 + acc1) + (acc2 + acc3);
}
extern "C" __global__ void __launch_bounds__(P_T, P_MINB)
vdot_shift(const elem_t *a, const elem_t *b, float *out, int n, long long a_row_stride, long long b_row_stride) {
    __shared__ float sh[P_T / 32];
    const unsigned long long pa = pol(false), pb = pol(b_row_stride == 0);
    const int row = blockIdx.x, nv = n / VEC;
    const elem_t *ar = a + (long long)row * a_row_stride;
    const uint4 *B = reinterpret_cast<const uint4 *>(b + (long long)row * b_row_stride);
    // a's row starts s elements past a 16-byte boundary; A is that boundary
    const int s = (int)((reinterpret_cast<unsigned long long>(ar) & 15) / sizeof(elem_t));
    const uint4 *A = reinterpret_cast<const uint4 *>(ar - s);
    float part = 0.f;
#if P_MODE == MODE_ELEM
    part = row_part<0>(ar, A, B, nv, pa, pb);
#else
    switch (s) {
    case 0: part = row_part<0>(ar, A, B, nv, pa, pb); break;
    case 1: part = row_part<1>(ar, A, B, nv, pa, pb); break;
    case 2: part = row_part<2>(ar, A, B, nv, pa, pb); break;
    case 3: part = row_part<3>(ar, A, B, nv, pa, pb); break;
#if P_BF16
    case 4: part = row_part<4>(ar, A, B, nv, pa, pb); break;
    case 5: part = row_part<5>(ar, A, B, nv, pa, pb); break;
    case 6: part = row_part<6>(ar, A, B, nv, pa, pb); break;
    case 7: part = row_part<7>(ar, A, B, nv, pa, pb); break;
#endif
    }
#endif
    // the row's last n % VEC elements, one a thread
    if (threadIdx.x < n - nv * VEC) {
        const int j = nv * VEC + threadIdx.x;
        const unsigned x = lde(ar + j, pa), y = lde(b + (long long)row * b_row_stride + j, pb);
#if P_BF16
        part += lo_f(mul_bf16x2(x, y));  // the high halves are zero
#else
        part += __fmul_rn(__uint_as_float(x), __uint_as_float(y));
#endif
    }
    const float v = block_sum(part, sh);
    if (threadIdx.x == 0) out[row] = v;
}
"""

VARIANTS = {}
for mode in ("elem", "shfl", "pair"):
    for t, l, minb in ((512, 1, 4), (512, 2, 4), (512, 2, 3), (384, 2, 5), (256, 2, 6), (256, 4, 4), (128, 4, 8)):
        VARIANTS[f"{mode}_t{t}_l{l}_m{minb}"] = dict(MODE=("elem", "shfl", "pair").index(mode), T=t, L=l, MINB=minb)

# name -> (dtype, rows, cols, layout): off1 = a one element into its buffer, b [rows, cols]
# aligned; bcast = b one [cols] row (cols odd: a's rows start at every shift in turn); same =
# a and b [rows, cols], both aligned
CASE_LIST = {
    "f32_4000x4000_off1": ("float32", 4000, 4000, "off1"),
    "bf16_4000x4000_off1": ("bfloat16", 4000, 4000, "off1"),
    "f32_4000x2001_b2001": ("float32", 4000, 2001, "bcast"),
    "bf16_8000x1001_b1001": ("bfloat16", 8000, 1001, "bcast"),
    "bf16_2000x7003_b7003": ("bfloat16", 2000, 7003, "bcast"),
    # aligned rows (every shift 0): shfl and pair are then plain vector loads of T threads and
    # L vectors a round, beside the library's lean rows (384 threads, two vectors, 31 registers)
    "bf16_4000x6000_b6000": ("bfloat16", 4000, 6000, "bcast"),
    "f32_4000x3000": ("float32", 4000, 3000, "same"),
}


def make_case(dev, dt, R, N, layout):
    g = torch.Generator(device=dev).manual_seed(0)
    src = torch.rand([R, N], device=dev, generator=g, dtype=torch.float32) - 0.5
    # 64 spare elements at the end: the aligned reads of the last row's last vector stay in
    # the buffer (the library would read that vector by elements)
    buf = torch.zeros(R * N + 64, device=dev, dtype=dt)
    off = 1 if layout == "off1" else 0
    buf[off:off + R * N].copy_(src.reshape(-1))
    a = buf[off:off + R * N].view(R, N)
    bshape = [N] if layout == "bcast" else [R, N]
    b = (torch.rand(bshape, device=dev, generator=g, dtype=torch.float32) - 0.5).to(dt)
    return a, b


def main():
    out_dir = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    os.makedirs(out_dir, exist_ok=True)
    dev = torch.device("cuda")
    names = os.environ.get("VARIANTS")
    names = names.split(",") if names else list(VARIANTS)
    cases = os.environ.get("CASES")
    cases = cases.split(",") if cases else list(CASE_LIST)
    lib = None
    if os.environ.get("BUILD"):
        import tt_ctypes
        lib = tt_ctypes.load(os.environ["BUILD"])
    timer = timing.Timer(dev)
    results = {}
    kernels = {}
    for bf16 in (0, 1):
        if not any((CASE_LIST[c][0] == "bfloat16") == bool(bf16) for c in cases):
            continue
        for nm in names:
            m = VARIANTS[nm]
            opts = tuple("-DP_%s=%d" % kv for kv in m.items()) + ("-DP_BF16=%d" % bf16, "-arch=sm_90", "-std=c++17")
            k = cp.RawModule(code=SRC, options=opts).get_function("vdot_shift")
            kernels[(nm, bf16)] = (k, m)
            print(f"{nm} {'bf16' if bf16 else 'f32'}: regs {k.num_regs} local {k.local_size_bytes}", flush=True)
    for case in cases:
        dts, R, N, layout = CASE_LIST[case]
        dt = getattr(torch, dts)
        bf16 = int(dt == torch.bfloat16)
        if layout != "bcast" and N * (2 if bf16 else 4) % 16 != 0:
            sys.exit(f"shift_probe: {case}: b's rows must start on 16-byte boundaries (the kernel reads them as vectors)")
        a, b = make_case(dev, dt, R, N, layout)
        # the library's products: rounded to the inputs' type, then added in float64 here
        ref = (a * b).double().sum(1)
        scale = (a.double().abs() * b.double().abs()).sum(1).max()
        out = torch.empty(R, device=dev)
        bstride = 0 if layout == "bcast" else N
        fns, labels = [], []
        for nm in names:
            k, m = kernels[(nm, bf16)]

            def f(k=k, T=m["T"]):
                k((R,), (T,), (cp.uint64(a.data_ptr()), cp.uint64(b.data_ptr()), cp.uint64(out.data_ptr()),
                               cp.int32(N), cp.int64(N), cp.int64(bstride)))
                return out
            out.fill_(float("nan"))
            f()
            torch.cuda.synchronize()
            err = ((out.double() - ref).abs().max() / scale).item()
            fns.append((f, None))
            labels.append(f"{nm} (err {err:.1e}{' BAD' if not err <= 1e-5 else ''})")
        vecdot_probe.time_against_compile(timer, fns, labels, a, b, lib, case, reps, results, 40, warm=True)
    json.dump(results, open(os.path.join(out_dir, "shift_probe.json"), "w"), indent=1)


if __name__ == "__main__":
    main()

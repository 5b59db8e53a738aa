// Probe: does an evict-first L2 policy on streaming reads avoid writing back the dirty lines a
// preceding write flush leaves in L2? Read-sum of N bytes as float4, several load flavours,
// after a 256 MiB write flush (dirty L2) and after a 256 MiB read flush (clean L2).
// Not part of the build: on the device machine,
//     nvcc -arch=sm_90 -O3 bench/cuda/probes/l2_evict_first.cu -o /tmp/evict && /tmp/evict
// Result on an H100 (2026-11-22) and why the engine does not use it: docs/cuda_reduce.md,
// "Tried and not kept".
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

template <int MODE> __device__ __forceinline__ float4 ld(const float4 *p, uint64_t pol) {
    float4 v;
    if constexpr (MODE == 0) v = *p;
    else if constexpr (MODE == 1) v = __ldcs(p);
    else if constexpr (MODE == 2) {
        asm volatile("ld.global.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
    } else if constexpr (MODE == 3) v = __ldg(p);
    else if constexpr (MODE == 4) {
        asm volatile("ld.global.L1::no_allocate.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
    } else if constexpr (MODE == 5) {
        asm volatile("ld.global.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    }
    return v;
}

template <int MODE> __global__ void __launch_bounds__(512) sum_k(const float4 *x, size_t n4, float *out, float frac) {
    uint64_t pol = 0;
    if (MODE == 2 || MODE == 4) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, %1;" : "=l"(pol) : "f"(frac));
    float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, st = (size_t)gridDim.x * blockDim.x;
    for (; i + 3 * st < n4; i += 4 * st) {
        float4 v0 = ld<MODE>(x + i, pol), v1 = ld<MODE>(x + i + st, pol), v2 = ld<MODE>(x + i + 2 * st, pol), v3 = ld<MODE>(x + i + 3 * st, pol);
        a0 += v0.x + v0.y + v0.z + v0.w; a1 += v1.x + v1.y + v1.z + v1.w;
        a2 += v2.x + v2.y + v2.z + v2.w; a3 += v3.x + v3.y + v3.z + v3.w;
    }
    for (; i < n4; i += st) { float4 v = ld<MODE>(x + i, pol); a0 += v.x + v.y + v.z + v.w; }
    float s = a0 + a1 + a2 + a3;
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}
__global__ void read_flush(const float4 *x, size_t n4, float *out) {
    float s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) { float4 v = x[i]; s += v.x; }
    if (s == 12345.f) *out = s;
}
__global__ void write_flush(float4 *x, size_t n4, float val) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) x[i] = make_float4(val, val, val, val);
}

int main() {
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const size_t fbytes = 256ull << 20, maxb = 1ull << 30;
    float4 *fl, *x; float *out;
    cudaMalloc(&fl, fbytes); cudaMalloc(&x, maxb); cudaMalloc(&out, 4);
    cudaMemset(x, 0, maxb);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    const size_t sizes[] = {16ull << 20, 32ull << 20, 48ull << 20, 64ull << 20, 256ull << 20, 512ull << 20, 1ull << 30};
    const char *names[] = {"plain", "ldcs", "hint_ef", "ldg", "noL1_hint_ef", "noL1"};
    for (int flush = 0; flush < 2; flush++) {
        printf("\n== %s flush ==\n%-10s", flush ? "read(clean)" : "write(dirty)", "MB");
        for (auto n : names) printf(" %16s", n);
        printf("\n");
        for (size_t b : sizes) {
            size_t n4 = b / 16;
            printf("%-10zu", b >> 20);
            for (int m = 0; m < 6; m++) {
                std::vector<float> t;
                for (int r = 0; r < 35; r++) {
                    if (flush) read_flush<<<sms * 4, 512>>>(fl, fbytes / 16, out);
                    else write_flush<<<sms * 4, 512>>>(fl, fbytes / 16, (float)r);
                    cudaEventRecord(e0);
                    int grid = sms * 4;
                    switch (m) {
                    case 0: sum_k<0><<<grid, 512>>>(x, n4, out, 1.f); break;
                    case 1: sum_k<1><<<grid, 512>>>(x, n4, out, 1.f); break;
                    case 2: sum_k<2><<<grid, 512>>>(x, n4, out, 1.f); break;
                    case 3: sum_k<3><<<grid, 512>>>(x, n4, out, 1.f); break;
                    case 4: sum_k<4><<<grid, 512>>>(x, n4, out, 1.f); break;
                    case 5: sum_k<5><<<grid, 512>>>(x, n4, out, 1.f); break;
                    }
                    cudaEventRecord(e1); cudaEventSynchronize(e1);
                    float ms; cudaEventElapsedTime(&ms, e0, e1);
                    if (r >= 5) t.push_back(ms);
                }
                std::sort(t.begin(), t.end());
                float med = t[t.size() / 2];
                printf(" %8.4f %5.0f  ", med, b / med / 1e6);
            }
            printf("\n");
        }
    }
    cudaError_t e = cudaGetLastError();
    printf("err: %s\n", cudaGetErrorString(e));
}

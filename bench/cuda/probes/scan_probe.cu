// Tuning probe for the contiguous scan kernel: cumsum of 256M float32 (and 256M - 5, a short
// last tile) and of 256M int8 into int64, one line each, every output checked against the
// closed form of an (i % 7) - 3 input, timed with events (median of 20) beside a kernel that reads and
// converts every element once (the floor; it is tuned for float32 only, so compare the int64
// scan's times between settings, not with its floor). Build one binary per setting, e.g.
//   gcc -O2 -c -I. -Iinclude -Ibuild/device/generated [-D...] cuda/scan_config.c -o sc.o
//   nvcc -O3 -arch=sm_90 --expt-relaxed-constexpr -std=c++17 -I. -Iinclude -Ibuild/device/generated
//        -DTENSOR_HAVE_CUDA=1 [-D...] bench/cuda/probes/scan_probe.cu sc.o -o probe
// with the same -D settings (TT_SCAN_ITEMS, TT_SCAN_BLOCK, TT_SCAN_MIN_BLOCKS, TT_SCAN_P_PACKED)
// for both: the plan and the kernel must agree on the tile. The library functions the scan
// code calls are stood in for at the end, so the probe needs no library build.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <vector>

#include "cuda/scan_run.cuh"

using namespace tt_scan;

template <typename F> static float median_ms(F f) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t;
    for (int r = 0; r < 23; r++) {
        cudaEventRecord(a);
        f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        if (r >= 3) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// The floor: every element read once and written once, converted, 16 input bytes per thread.
template <typename InS, typename OutS> __global__ void convert(const InS *in, OutS *out, int64_t n) {
    constexpr int V = 16 / sizeof(InS);
    for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * V; i < n; i += (int64_t)gridDim.x * blockDim.x * V) {
        const Pack<InS, V> p = *reinterpret_cast<const Pack<InS, V> *>(in + i);
        constexpr int W = 16 / sizeof(OutS) < V ? 16 / sizeof(OutS) : V;
#pragma unroll
        for (int j = 0; j < V; j += W) {
            Pack<OutS, W> q;
#pragma unroll
            for (int w = 0; w < W; w++) q.v[w] = (OutS)p.v[j + w];
            *reinterpret_cast<Pack<OutS, W> *>(out + i + j) = q;
        }
    }
}

// Input (i % 7) - 3: every prefix is small and exact in any dtype, known in closed form.
template <typename InS> __global__ void fill(InS *in, int64_t n) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        in[i] = (InS)((int)(i % 7) - 3);
}
template <typename OutS> __global__ void check(const OutS *out, int64_t n, unsigned long long *bad) {
    const int partial[7] = {-3, -5, -6, -6, -5, -3, 0};
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        if (out[i] != (OutS)partial[i % 7]) atomicAdd(bad, 1ull);
}

template <typename InS, typename OutS, class Op = ArithOp<OutS, false>> static void one(const char *what, int64_t n) {
    char *in, *out;
    cudaMalloc(&in, n * sizeof(InS));
    cudaMalloc(&out, n * sizeof(OutS));
    fill<<<132 * 8, 256>>>(reinterpret_cast<InS *>(in), n);
    tt_scan_job job;
    memset(&job, 0, sizeof job);
    job.kind = TENSOR_SCAN_CUMSUM;
    job.in = in;
    job.out = out;
    job.in_arg = 1;
    job.nlines = 1;
    job.len = n;
    job.dense = 1;
    job.func = "probe";
#ifdef TT_SCAN_STATS
    unsigned long long zero[4] = {0, 0, 0, 0}, stats[4];
    cudaMemcpyToSymbol(tt_scan_stats, zero, sizeof zero);
#endif
    const float scan = median_ms([&] { run<Op, InS, OutS>(&job, Op{}); });
    unsigned long long *bad, nbad = 0;
    cudaMalloc(&bad, sizeof *bad);
    cudaMemset(bad, 0, sizeof *bad);
    check<<<132 * 8, 256>>>(reinterpret_cast<const OutS *>(out), n, bad);
    cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost);
    cudaFree(bad);
    printf("%-16s %llu wrong elements\n", what, nbad);
#ifdef TT_SCAN_STATS
    cudaMemcpyFromSymbol(stats, tt_scan_stats, sizeof stats);
    const double lb = stats[0] > 0 ? (double)stats[0] : 1.0;
    printf("%-16s per look-back: %.1f aggregates folded, %.2f windows read, %.2f polls waited (%llu look-backs)\n",
           what, stats[1] / lb, stats[2] / lb, stats[3] / lb, stats[0]);
#endif
    // the floor: read n InS and write n OutS (two copies of those sizes)
    const float copy = median_ms([&] {
        convert<InS, OutS><<<132 * 8, 256>>>(reinterpret_cast<const InS *>(in), reinterpret_cast<OutS *>(out), n);
    });
    const double bytes = (double)n * (sizeof(InS) + sizeof(OutS));
    printf("%-16s scan %.3f ms (%.0f GB/s), copy floor %.3f ms (%.0f GB/s): %.0f%% of the floor  [%s]\n", what, scan,
           bytes / scan / 1e6, copy, bytes / copy / 1e6, 100.0 * copy / scan, cudaGetErrorString(cudaGetLastError()));
    cudaFree(in);
    cudaFree(out);
}

int main() {
    one<float, float>("f32 256M", 256ll << 20);
    one<float, float>("f32 256M-5", (256ll << 20) - 5);
    one<int8_t, int64_t>("int8->int64 256M", 256ll << 20);
    one<int8_t, int64_t, NarrowSumOp<int8_t>>("int8->int64 int32 items", 256ll << 20);
    return 0;
}

// Stand-ins for the library functions the scan code calls, so the probe links alone.
extern "C" {
tensor_status tensor_error(tensor_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}
tensor_status tensor_last_status(void) { return TENSOR_ERR_CUDA; }
tensor_status tensor_cuda_error(cudaError_t e, const char *func) {
    return e == cudaSuccess ? TENSOR_OK : tensor_error(TENSOR_ERR_CUDA, "%s: %s", func, cudaGetErrorString(e));
}
// One state block kept for the probe's life, as the library's caching allocator keeps it, so
// the timed calls hold no cudaMalloc (the calls run in order on one stream).
tensor_status tensor_cuda_alloc(int, size_t n, void **p, void **h, const char *) {
    static void *block = nullptr;
    static size_t have = 0;
    if (n > have) {
        cudaDeviceSynchronize();
        cudaFree(block);
        block = nullptr;
        have = 0;
        if (cudaMalloc(&block, n) != cudaSuccess) return TENSOR_ERR_OUT_OF_MEMORY;
        have = n;
    }
    *p = *h = block;
    return TENSOR_OK;
}
void tensor_cuda_free(void *) {}
const char *tensor_dtype_name(tensor_dtype) { return "?"; }
}

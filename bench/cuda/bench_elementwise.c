/* GPU benchmark of the CUDA elementwise engine (cuda/loops.cuh); bench/cuda/bench_elementwise.py
 * runs it and times the same cases with torch in the same run.
 *
 * Usage: bench_elementwise [REPS]
 * Prints one line per case: "name median_ms min_ms gbps", GB/s = bytes read + written / median.
 *
 * Cases (float32 unless noted):
 *   memcpy_d2d_1g     cudaMemcpyAsync device -> device, 1 GiB: the copy-bandwidth anchor
 *   add_256m          a + b, two contiguous 256 MB tensors (64 Mi elements)
 *   add_row_8192      [8192, 8192] + [8192] (a row vector broadcast over the rows)
 *   copy_transposed   contiguous() of an [8192, 8192] tensor's transpose
 *   cast_bf16_256m    float32 -> bfloat16 (tensor_to_dtype), 256 MB in
 *   gelu_256m         gelu (erf form), 256 MB
 *
 * The elementwise ops are run the way ops/elementwise.c runs them (an iterator with an allocated
 * output, the dispatch table's CUDA kernel), so the host work of a call is in the time; copies
 * and casts go through the public tensor_contiguous / tensor_to_dtype.
 * Method: CUDA events on the default stream around the call, a 256 MiB memset
 * between runs flushes the L2, 5 warm-up runs, median of REPS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "iterator/iterator.h"
#include "contract/dispatch.h"
#include "ops/elementwise.h"
#include "tinytensor.h"

#define CHECK_CUDA(x)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static tensor_t *must(tensor_t *t, const char *what) {
    if (t == NULL) {
        fprintf(stderr, "%s: %s\n", what, tensor_last_error());
        exit(1);
    }
    return t;
}

/* An elementwise op as ops/ runs it: out allocated by the iterator (dtype out_dt), then the
 * CUDA kernel of the slot. Returns the output (new reference). */
static tensor_t *ew(tensor_op slot, tensor_ew_op op, tensor_dtype out_dt, const tensor_t *a, const tensor_t *b) {
    tensor_iter_config *cfg = tensor_iter_config_new("bench");
    tensor_iter_config_disable(cfg, TENSOR_ITER_SAME_DTYPE);
    tensor_iter_config_add_output_dtype(cfg, NULL, out_dt);
    tensor_iter_config_add_input(cfg, a);
    if (b) tensor_iter_config_add_input(cfg, b);
    tensor_iter_t *it = tensor_iter_build(cfg);
    tensor_iter_config_free(cfg);
    if (it == NULL) return NULL;
    tensor_kernel_params p;
    memset(&p, 0, sizeof p);
    p.ew_op = op;
    p.ew_dtype = out_dt;
    p.scalar = 1.0;
    p.scalar_i = 1;
    tensor_kernel_fn fn = tensor_dispatch_get(slot, TENSOR_DEVICE_CUDA, "bench");
    tensor_t *out = NULL;
    if (fn && fn(it, &p) == TENSOR_OK) out = tensor_iter_output(it, 0);
    tensor_iter_free(it);
    return out;
}

typedef enum { C_MEMCPY, C_ADD, C_ADD_ROW, C_TRANSPOSED, C_CAST, C_GELU, C_NUM } case_id;
static const char *const names[] = {"memcpy_d2d_1g", "add_256m", "add_row_8192", "copy_transposed", "cast_bf16_256m",
                                    "gelu_256m"};

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 50;
    if (reps < 1) reps = 1;
    void *flush = NULL;
    const size_t flush_bytes = (size_t)256 << 20;
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    float *times = malloc(sizeof(float) * (size_t)reps);
    const int64_t n = INT64_C(64) << 20, side = 8192;
    const tensor_device dev = tensor_cuda(0);
    tensor_t *a = must(tensor_rand(1, &n, 1, TENSOR_FLOAT32, dev), "rand a");
    tensor_t *b = must(tensor_rand(1, &n, 2, TENSOR_FLOAT32, dev), "rand b");
    const int64_t sq[2] = {side, side};
    tensor_t *m = must(tensor_rand(2, sq, 3, TENSOR_FLOAT32, dev), "rand m");
    tensor_t *row = must(tensor_rand(1, &side, 4, TENSOR_FLOAT32, dev), "rand row");
    tensor_t *mt = must(tensor_transpose(m, 0, 1), "transpose");
    void *big_src = NULL, *big_dst = NULL;
    const size_t big = (size_t)1 << 30;
    CHECK_CUDA(cudaMalloc(&big_src, big));
    CHECK_CUDA(cudaMalloc(&big_dst, big));
    CHECK_CUDA(cudaMemset(big_src, 1, big));
    for (int c = 0; c < C_NUM; c++) {
        double bytes = 0;
        for (int r = -5; r < reps; r++) {
            CHECK_CUDA(cudaMemsetAsync(flush, r & 0xff, flush_bytes, 0));
            CHECK_CUDA(cudaEventRecord(e0, 0));
            tensor_t *out = NULL;
            switch (c) {
            case C_MEMCPY:
                CHECK_CUDA(cudaMemcpyAsync(big_dst, big_src, big, cudaMemcpyDeviceToDevice, 0));
                bytes = 2.0 * (double)big;
                break;
            case C_ADD:
                out = ew(TENSOR_OP_EW_BINARY, TENSOR_EW_ADD, TENSOR_FLOAT32, a, b);
                bytes = 3.0 * 4.0 * (double)n;
                break;
            case C_ADD_ROW:
                out = ew(TENSOR_OP_EW_BINARY, TENSOR_EW_ADD, TENSOR_FLOAT32, m, row);
                bytes = 4.0 * (2.0 * (double)side * (double)side + (double)side);
                break;
            case C_TRANSPOSED:
                out = tensor_contiguous(mt);
                bytes = 2.0 * 4.0 * (double)side * (double)side;
                break;
            case C_CAST:
                out = tensor_to_dtype(a, TENSOR_BFLOAT16);
                bytes = (4.0 + 2.0) * (double)n;
                break;
            case C_GELU:
                out = ew(TENSOR_OP_EW_UNARY, TENSOR_EW_GELU, TENSOR_FLOAT32, a, NULL);
                bytes = 2.0 * 4.0 * (double)n;
                break;
            }
            CHECK_CUDA(cudaEventRecord(e1, 0));
            CHECK_CUDA(cudaEventSynchronize(e1));
            if (c != C_MEMCPY && out == NULL) {
                printf("%s FAILED %s\n", names[c], tensor_last_error());
                break;
            }
            tensor_release(out);
            float ms;
            CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 0) times[r] = ms;
            if (r == reps - 1) {
                qsort(times, (size_t)reps, sizeof(float), cmp_float);
                double med = times[reps / 2];
                printf("%s %.5f %.5f %.1f\n", names[c], med, (double)times[0], bytes / (med * 1e-3) / 1e9);
            }
        }
        fflush(stdout);
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    tensor_release(a);
    tensor_release(b);
    tensor_release(m);
    tensor_release(row);
    tensor_release(mt);
    cudaFree(big_src);
    cudaFree(big_dst);
    cudaFree(flush);
    free(times);
    return 0;
}

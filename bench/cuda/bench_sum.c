/* GPU benchmark of tinytensor's tensor_sum on CUDA (bench/cuda/run.py drives it and times
 * torch.sum on the same cases in the same run).
 *
 * Usage: bench_sum CASES_FILE [REPS]
 *   CASES_FILE: one case per line: name dtype transposed(0/1) keepdim(0/1) ndim s0 .. sN-1
 *               ndims d0 .. (ndims 0 = all dims)
 * Prints one line per case: "name median_ms min_ms gbps" (GB/s = input + output bytes / median).
 *
 * Method: CUDA events around the call on the current (default) stream, so the
 * host work of the call (iterator build, output allocation) is inside the measured time, as it
 * is for torch.sum; a 256 MiB memset between runs flushes the L2 (50 MB on an H100); warm-up
 * runs first; median of REPS runs. Inputs hold random values (never zeros).
 *
 * FLUSH=read in the environment flushes by READING 256 MiB instead (a full tensor_sum of a
 * 256 MiB float32 tensor): the L2 then holds clean lines, and the timed call does not pay for
 * writing back the memset's dirty lines it evicts (run.py's "clean flush" table). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "tinytensor.h"

#define CHECK_CUDA(x)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static uint64_t rng(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static tensor_dtype parse_dtype(const char *s) {
    for (int d = 0; d < TENSOR_NUM_DTYPES; d++)
        if (strcmp(tensor_dtype_name((tensor_dtype)d), s) == 0) return (tensor_dtype)d;
    fprintf(stderr, "unknown dtype %s\n", s);
    exit(1);
}

static tensor_t *random_cuda(int ndim, const int64_t *sizes, tensor_dtype dt) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    size_t es = tensor_dtype_size(dt);
    unsigned char *buf = malloc((size_t)n * es);
    if (!buf) exit(1);
    uint64_t seed = 12345;
    if (tensor_dtype_is_floating(dt)) {
        for (int64_t i = 0; i < n; i++)
            tensor_dtype_store_double(dt, buf + (size_t)i * es, (double)(rng(&seed) >> 11) / 9007199254740992.0 * 2 - 1);
    } else {
        for (int64_t i = 0; i < n; i++) {
            uint64_t r = rng(&seed);
            memcpy(buf + (size_t)i * es, &r, es);
            if (dt == TENSOR_BOOL) buf[i] &= 1;
        }
    }
    tensor_t *t = tensor_from_buffer(buf, ndim, sizes, dt, tensor_cuda(0));
    free(buf);
    if (!t) {
        fprintf(stderr, "from_buffer: %s\n", tensor_last_error());
        exit(1);
    }
    return t;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s CASES_FILE [REPS]\n", argv[0]);
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 50;
    FILE *f = fopen(argv[1], "r");
    if (!f) return 2;
    void *flush = NULL;
    const size_t flush_bytes = (size_t)256 << 20;
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    const char *flush_mode = getenv("FLUSH");
    const int read_flush = flush_mode != NULL && strcmp(flush_mode, "read") == 0;
    tensor_t *flush_t = NULL;
    if (read_flush) {
        int64_t nf = (int64_t)(flush_bytes / 4);
        flush_t = tensor_empty(1, &nf, TENSOR_FLOAT32, tensor_cuda(0));
        if (!flush_t) return 1;
        CHECK_CUDA(cudaMemset(tensor_data(flush_t), 0x3c, flush_bytes)); /* finite floats */
    }
    float *times = malloc(sizeof(float) * (size_t)reps);
    char name[128], dts[32];
    int transposed, keepdim, ndim, ndims;
    while (fscanf(f, "%127s %31s %d %d %d", name, dts, &transposed, &keepdim, &ndim) == 5) {
        int64_t sizes[TENSOR_MAX_DIMS];
        int dims[TENSOR_MAX_DIMS];
        for (int d = 0; d < ndim; d++) {
            long long v;
            if (fscanf(f, "%lld", &v) != 1) return 2;
            sizes[d] = v;
        }
        if (fscanf(f, "%d", &ndims) != 1) return 2;
        for (int d = 0; d < ndims; d++)
            if (fscanf(f, "%d", &dims[d]) != 1) return 2;
        tensor_dtype dt = parse_dtype(dts);
        tensor_t *base = random_cuda(ndim, sizes, dt);
        tensor_t *x = transposed ? tensor_transpose(base, 0, 1) : tensor_retain(base);
        tensor_t *out = NULL;
        int ok = 1;
        for (int r = -5; r < reps && ok; r++) {
            if (read_flush) {
                tensor_t *fr = tensor_sum_dims(flush_t, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
                if (!fr) return 1;
                tensor_release(fr);
            } else {
                CHECK_CUDA(cudaMemsetAsync(flush, r & 0xff, flush_bytes, 0));
            }
            CHECK_CUDA(cudaEventRecord(e0, 0));
            out = tensor_sum_dims(x, ndims ? dims : NULL, ndims, keepdim != 0, TENSOR_DTYPE_DEFAULT);
            CHECK_CUDA(cudaEventRecord(e1, 0));
            CHECK_CUDA(cudaEventSynchronize(e1));
            if (!out) {
                printf("%s FAILED %s\n", name, tensor_last_error());
                ok = 0;
                break;
            }
            float ms;
            CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 0) times[r] = ms;
            if (r < reps - 1) tensor_release(out);
        }
        if (ok) {
            qsort(times, (size_t)reps, sizeof(float), cmp_float);
            double bytes = (double)tensor_numel(x) * (double)tensor_dtype_size(dt) +
                           (double)tensor_numel(out) * (double)tensor_dtype_size(tensor_get_dtype(out));
            double med = times[reps / 2];
            printf("%s %.5f %.5f %.1f\n", name, med, (double)times[0], bytes / (med * 1e-3) / 1e9);
            tensor_release(out);
        }
        fflush(stdout);
        tensor_release(x);
        tensor_release(base);
    }
    fclose(f);
    tensor_release(flush_t);
    free(times);
    cudaFree(flush);
    return 0;
}

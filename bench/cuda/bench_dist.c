/* GPU benchmark of the dist module (bench/cuda/bench_dist.sh drives it and runs torch's
 * all-reduce on the same GPUs in the same run).
 *
 *   bench_dist allreduce MIB [ITERS BATCHES]  one rank per process, under scripts/dist-launch.sh
 *                                             (tensor_comm_init_env); rank 0 prints the result
 *   bench_dist allreduce-local MIB [...]      one process driving every GPU (tensor_comm_init_all)
 *   bench_dist sum LOG2N [REPS]               sum of 2^LOG2N float32: one GPU, then sharded in
 *                                             halves over 2 GPUs (tensor_dist_sum, all dims)
 *   bench_dist mean ROWS COLS [REPS]          mean over dim 1 of [ROWS, COLS] float32: one GPU,
 *                                             then sharded on dim 0 over 2 GPUs (no gather)
 * Each prints JSON lines: {"case": ..., "ms": ..., ...}.
 *
 * Method. All-reduce: float32 in place on each device's default stream; warm-up, then BATCHES
 * batches of ITERS back-to-back calls, each batch ended by a device synchronise; the median
 * batch's time per call. Bus bandwidth: bytes / time * 2 (n - 1) / n, the bytes each link of a
 * ring carries (bench_dist_torch.py computes the same for torch.distributed.all_reduce). Sums and means: each
 * call timed from before the call to after every GPU it used has synchronised (so the all-gather
 * and the fold are inside), median of REPS after warm-up; the inputs are generated on the GPUs. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "tinytensor.h"

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        if ((x) != TENSOR_OK) {                                                                    \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, tensor_last_error());               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CHECK_PTR(p)                                                                               \
    do {                                                                                           \
        if ((p) == NULL) {                                                                         \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, tensor_last_error());               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void sync_devices(int n) {
    for (int d = 0; d < n; d++) {
        if (cudaSetDevice(d) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
            fprintf(stderr, "cuda sync failed on %d\n", d);
            exit(1);
        }
    }
    (void)cudaSetDevice(0);
}

/* ---- all-reduce ---- */

static void allreduce(bool local, double mib, int iters, int batches) {
    tensor_comm_t *c = NULL;
    if (local) CHECK(tensor_comm_init_all(tensor_cuda_device_count(), NULL, &c));
    else CHECK(tensor_comm_init_env(&c));
    int n = tensor_comm_local_count(c), nranks = tensor_comm_size(c), rank0 = tensor_comm_rank(c, 0);
    int64_t count = (int64_t)(mib * 1024 * 1024 / 4);
    tensor_t *ts[16], *flags[16];
    int64_t one = 1;
    for (int i = 0; i < n; i++) {
        int dev = tensor_comm_device(c, i);
        CHECK_PTR(ts[i] = tensor_rand(1, &count, (uint64_t)i, TENSOR_FLOAT32, tensor_cuda(dev)));
        CHECK_PTR(flags[i] = tensor_ones(1, &one, TENSOR_FLOAT32, tensor_cuda(dev)));
    }
    for (int w = 0; w < 5; w++) CHECK(tensor_dist_all_reduce(c, ts, TENSOR_DIST_SUM));
    double *per_call = malloc((size_t)batches * sizeof *per_call);
    for (int b = 0; b < batches; b++) {
        /* A barrier: a one-element all-reduce, waited for, so the ranks start the batch together. */
        CHECK(tensor_dist_all_reduce(c, flags, TENSOR_DIST_MAX));
        for (int i = 0; i < n; i++) {
            cudaSetDevice(tensor_comm_device(c, i));
            cudaDeviceSynchronize();
        }
        double t0 = now_ms();
        for (int it = 0; it < iters; it++) CHECK(tensor_dist_all_reduce(c, ts, TENSOR_DIST_SUM));
        for (int i = 0; i < n; i++) {
            cudaSetDevice(tensor_comm_device(c, i));
            cudaDeviceSynchronize();
        }
        per_call[b] = (now_ms() - t0) / iters;
    }
    double ms = median(per_call, batches);
    double bytes = (double)count * 4, algbw = bytes / (ms * 1e-3) / 1e9;
    double busbw = algbw * 2.0 * (nranks - 1) / nranks;
    if (rank0 == 0)
        printf("{\"case\": \"allreduce\", \"impl\": \"tinytensor\", \"mode\": \"%s\", \"nranks\": %d, \"bytes\": %.0f, "
               "\"ms\": %.4f, \"algbw\": %.2f, \"busbw\": %.2f}\n",
               local ? "one process" : "one rank per process", nranks, bytes, ms, algbw, busbw);
    free(per_call);
    for (int i = 0; i < n; i++) {
        tensor_release(ts[i]);
        tensor_release(flags[i]);
    }
    tensor_comm_release(c);
}

/* ---- sharded reductions against one GPU ---- */

typedef tensor_t *(*one_fn)(const tensor_t *t);
typedef tensor_dtensor_t *(*dist_fn)(const tensor_dtensor_t *x);

static tensor_t *sum_one(const tensor_t *t) { return tensor_sum_dims(t, NULL, 0, false, TENSOR_DTYPE_DEFAULT); }
static tensor_dtensor_t *sum_dist(const tensor_dtensor_t *x) {
    return tensor_dist_sum(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
}
static tensor_t *mean_one(const tensor_t *t) {
    int d1 = 1;
    return tensor_mean(t, &d1, 1, false, TENSOR_DTYPE_DEFAULT);
}
static tensor_dtensor_t *mean_dist(const tensor_dtensor_t *x) {
    int d1 = 1;
    return tensor_dist_mean(x, &d1, 1, false, TENSOR_DTYPE_DEFAULT);
}

static void compare(const char *name, int ndim, const int64_t *sizes, one_fn one, dist_fn dist, int reps) {
    if (tensor_cuda_device_count() < 2) {
        fprintf(stderr, "bench_dist %s: needs 2 GPUs\n", name);
        exit(77);
    }
    double *t = malloc((size_t)reps * sizeof *t);
    /* One GPU: the whole tensor on cuda:0. */
    tensor_t *whole = tensor_rand(ndim, sizes, 1, TENSOR_FLOAT32, tensor_cuda(0));
    CHECK_PTR(whole);
    for (int r = -3; r < reps; r++) {
        sync_devices(1);
        double t0 = now_ms();
        tensor_t *y = one(whole);
        CHECK_PTR(y);
        sync_devices(1);
        if (r >= 0) t[r] = now_ms() - t0;
        tensor_release(y);
    }
    double ms_one = median(t, reps);
    tensor_release(whole);
    tensor_cuda_empty_cache();

    /* Two GPUs: halves along dim 0, one process. */
    tensor_comm_t *c = NULL;
    int devs[2] = {0, 1};
    CHECK(tensor_comm_init_all(2, devs, &c));
    int64_t half[TENSOR_MAX_DIMS];
    memcpy(half, sizes, (size_t)ndim * sizeof *half);
    half[0] = sizes[0] / 2;
    tensor_t *shards[2];
    for (int i = 0; i < 2; i++) CHECK_PTR(shards[i] = tensor_rand(ndim, half, 2 + (uint64_t)i, TENSOR_FLOAT32, tensor_cuda(i)));
    tensor_dtensor_t *x = NULL;
    CHECK(tensor_dtensor_new(c, shards, 0, NULL, &x));
    for (int r = -3; r < reps; r++) {
        sync_devices(2);
        double t0 = now_ms();
        tensor_dtensor_t *y = dist(x);
        CHECK_PTR(y);
        sync_devices(2);
        if (r >= 0) t[r] = now_ms() - t0;
        tensor_dtensor_release(y);
    }
    double ms_two = median(t, reps);
    double bytes = 4.0;
    for (int d = 0; d < ndim; d++) bytes *= (double)sizes[d];
    printf("{\"case\": \"%s\", \"shape\": \"", name);
    for (int d = 0; d < ndim; d++) printf("%s%lld", d ? "x" : "", (long long)sizes[d]);
    printf("\", \"ms_one_gpu\": %.4f, \"ms_two_gpus\": %.4f, \"speedup\": %.3f, \"gbps_one\": %.1f, \"gbps_two\": %.1f}\n",
           ms_one, ms_two, ms_one / ms_two, bytes / (ms_one * 1e6), bytes / (ms_two * 1e6));
    tensor_dtensor_release(x);
    tensor_release(shards[0]);
    tensor_release(shards[1]);
    tensor_cuda_synchronize();
    tensor_comm_release(c);
    free(t);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_dist allreduce|allreduce-local MIB [ITERS BATCHES] | sum LOG2N [REPS] | "
                        "mean ROWS COLS [REPS]\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(argv[1], "allreduce") == 0 || strcmp(argv[1], "allreduce-local") == 0) {
        double mib = argc > 2 ? atof(argv[2]) : 256;
        int iters = argc > 3 ? atoi(argv[3]) : 20, batches = argc > 4 ? atoi(argv[4]) : 10;
        allreduce(strcmp(argv[1], "allreduce-local") == 0, mib, iters, batches);
    } else if (strcmp(argv[1], "sum") == 0) {
        int64_t n = (int64_t)1 << (argc > 2 ? atoi(argv[2]) : 30);
        compare("sum", 1, &n, sum_one, sum_dist, argc > 3 ? atoi(argv[3]) : 20);
    } else if (strcmp(argv[1], "mean") == 0) {
        int64_t sizes[2] = {argc > 2 ? atoll(argv[2]) : 65536, argc > 3 ? atoll(argv[3]) : 16384};
        compare("mean", 2, sizes, mean_one, mean_dist, argc > 4 ? atoi(argv[4]) : 20);
    } else {
        fprintf(stderr, "bench_dist: unknown case %s\n", argv[1]);
        return 2;
    }
    return 0;
}

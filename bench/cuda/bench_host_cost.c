/* Host cost of an asynchronous tensor_sum on a tiny CUDA tensor (target: <= 3 us per call;
 * libtorch's C++ x.sum(1) takes ~7.4 us on the project's H100 host, bench/cuda/cases.json).
 *
 * Usage: bench_host_cost [BATCHES]
 * Prints "what us_per_call" lines: the median over BATCHES batches of the host time of
 * BATCH back-to-back calls (no synchronisation inside a batch; the device is synchronised
 * between batches, outside the timed region). A batch stays well below the launch queue's
 * depth, so the host never waits for the GPU: this is the cost of the call, not of the kernel.
 *
 * Rows: the full call (sum of a [2,3,4,5] float32 tensor over dim 1, keepdim, output
 * released), then pieces of it for the profile: the same call on a CPU tensor (iterator,
 * dispatch and a 120-element CPU loop, no CUDA), allocating + releasing the CUDA output alone
 * (tensor struct + caching allocator), the reduction iterator alone (build + free), the CUDA
 * kernel entry on a prebuilt iterator (plan + launch), the plan alone, and two CUDA runtime
 * calls as yardsticks (cudaMemsetAsync of 4 bytes: one enqueue of a driver kernel;
 * cudaEventRecord). Internal headers: the pieces are internal functions of the static library. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "tinytensor.h"
#include "cuda/cuda_backend.h"
#include "cuda/reduce_host.h"
#include "cuda/reduce_ops.h"

#define BATCH 256

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef int (*step_fn)(void *ctx);

static int sum_step(void *ctx) {
    static const int dim = 1;
    tensor_t *r = tensor_sum_dims((const tensor_t *)ctx, &dim, 1, true, TENSOR_DTYPE_DEFAULT);
    if (r == NULL) return 1;
    tensor_release(r);
    return 0;
}

/* A user sum (run-time compiled on CUDA) doing tensor_sum's math, for the generic entry's cost. */
#include "user_functors.h"
static tensor_reduction *user_sum;

static int user_step(void *ctx) {
    static const int dim = 1;
    const tensor_t *in[1] = {(const tensor_t *)ctx};
    tensor_t *r = tensor_reduce(user_sum, in, 1, &dim, 1, true, TENSOR_DTYPE_DEFAULT);
    if (r == NULL) return 1;
    tensor_release(r);
    return 0;
}

static int empty_step(void *ctx) {
    (void)ctx;
    static const int64_t sizes[4] = {2, 1, 4, 5};
    tensor_t *r = tensor_empty(4, sizes, TENSOR_FLOAT32, tensor_cuda(0));
    if (r == NULL) return 1;
    tensor_release(r);
    return 0;
}

typedef struct {
    tensor_t *out, *in;
    tensor_iter_t *iter;
} iter_ctx;

static int iter_step(void *ctx) {
    iter_ctx *c = ctx;
    static const int dim = 1;
    tensor_iter_t *it = tensor_iter_reduce_new("bench", c->out, c->in, &dim, 1, true, TENSOR_FLOAT32);
    if (it == NULL) return 1;
    tensor_iter_free(it);
    return 0;
}

static int entry_step(void *ctx) { return tensor_cuda_sum_kernel(((iter_ctx *)ctx)->iter, NULL) != TENSOR_OK; }

static int plan_step(void *ctx) {
    tensor_cuda_reduce_kind kind = {4, 4, NULL, NULL, 0, 1};
    tensor_cuda_reduce_plan plan;
    void *staging = NULL;
    if (tensor_cuda_reduce_plan_make(((iter_ctx *)ctx)->iter, kind, &plan, &staging, "bench") != TENSOR_OK) return 1;
    tensor_cuda_free(staging);
    return 0;
}

static int memset_step(void *ctx) { return cudaMemsetAsync(ctx, 0, 4, 0) != cudaSuccess; }

static int event_step(void *ctx) { return cudaEventRecord((cudaEvent_t)ctx, 0) != cudaSuccess; }

static void measure(const char *what, step_fn f, void *ctx, int batches) {
    double *t = malloc(sizeof(double) * (size_t)batches);
    if (t == NULL) exit(1);
    for (int w = 0; w < 20; w++)
        if (f(ctx)) goto failed;
    cudaDeviceSynchronize();
    for (int b = 0; b < batches; b++) {
        double t0 = now_us();
        for (int i = 0; i < BATCH; i++)
            if (f(ctx)) goto failed;
        t[b] = (now_us() - t0) / BATCH;
        if (cudaDeviceSynchronize() != cudaSuccess) goto failed;
    }
    qsort(t, (size_t)batches, sizeof(double), cmp_double);
    printf("%-28s %.3f us/call (min %.3f, batch of %d, median of %d batches)\n", what, t[batches / 2], t[0], BATCH,
           batches);
    free(t);
    return;
failed:
    printf("%-28s FAILED: %s\n", what, tensor_last_error());
    free(t);
}

int main(int argc, char **argv) {
    int batches = argc > 1 ? atoi(argv[1]) : 200;
    if (batches < 1) batches = 1;
    static const int64_t sizes[4] = {2, 3, 4, 5};
    float host[120];
    for (int i = 0; i < 120; i++) host[i] = (float)(i % 7) - 3.0f;
    tensor_t *g = tensor_from_buffer(host, 4, sizes, TENSOR_FLOAT32, tensor_cuda(0));
    tensor_t *c = tensor_from_buffer(host, 4, sizes, TENSOR_FLOAT32, tensor_cpu());
    if (g == NULL || c == NULL) {
        fprintf(stderr, "setup: %s\n", tensor_last_error());
        return 1;
    }
    void *scratch = NULL;
    cudaEvent_t ev;
    if (cudaMalloc(&scratch, 64) != cudaSuccess || cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess)
        return 1;
    tensor_reduction_def def = {"host_cost_sum", 1, sizeof(float), TENSOR_REDUCTION_DTYPE_FLOAT, true, {{0}}, NULL};
    def.fns[TENSOR_REDUCTION_F32] = sum_fns;
    user_sum = tensor_reduction_register(&def);
    measure("tensor_sum cuda (async)", sum_step, g, batches);
    measure("user sum cuda (JIT, async)", user_step, g, batches);
    measure("user sum cpu", user_step, c, batches);
    measure("tensor_sum cpu", sum_step, c, batches);
    measure("tensor_empty+release cuda", empty_step, NULL, batches);
    static const int64_t osz[4] = {2, 1, 4, 5};
    iter_ctx ic = {tensor_empty(4, osz, TENSOR_FLOAT32, tensor_cuda(0)), g, NULL};
    static const int dim1 = 1;
    if (ic.out != NULL) ic.iter = tensor_iter_reduce_new("bench", ic.out, g, &dim1, 1, true, TENSOR_FLOAT32);
    if (ic.iter == NULL) {
        fprintf(stderr, "iterator: %s\n", tensor_last_error());
        return 1;
    }
    measure("reduce iterator build+free", iter_step, &ic, batches);
    measure("cuda kernel entry (plan+launch)", entry_step, &ic, batches);
    measure("plan only", plan_step, &ic, batches);
    tensor_iter_free(ic.iter);
    tensor_release(ic.out);
    measure("cudaMemsetAsync 4 B", memset_step, scratch, batches);
    measure("cudaEventRecord", event_step, ev, batches);
    cudaEventDestroy(ev);
    cudaFree(scratch);
    tensor_release(g);
    tensor_release(c);
    return 0;
}

/* Per-call cost of tinytensor's calls replayed from a CUDA graph against the same calls made
 * eagerly: CALLS x (tensor_sum over dim 1 of a small [2, 3, 4, 5] float32 tensor, then
 * tensor_mul of the result by itself) on a user stream. Eager: the host time of the CALLS pairs
 * plus a stream synchronize; graph: the host time of one cudaGraphLaunch of the captured pairs
 * plus a synchronize. Median of REPS, per pair of calls.
 * usage: bench_graph [REPS] */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "tinytensor.h"

#define CALLS 100

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 50;
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return 1;
    tensor_cuda_set_stream(0, s);
    int64_t shape[4] = {2, 3, 4, 5};
    tensor_t *x = tensor_rand(4, shape, 1, TENSOR_FLOAT32, tensor_cuda(0));
    tensor_t *y[CALLS], *z[CALLS];
    double *eager = malloc(sizeof(double) * (size_t)reps), *graph = malloc(sizeof(double) * (size_t)reps);
    for (int r = -3; r < reps; r++) {
        double t0 = now_us();
        for (int i = 0; i < CALLS; i++) {
            y[i] = tensor_sum(x, 1, false);
            z[i] = tensor_mul(y[i], y[i]);
        }
        cudaStreamSynchronize(s);
        double t1 = now_us();
        for (int i = 0; i < CALLS; i++) {
            tensor_release(y[i]);
            tensor_release(z[i]);
        }
        if (r >= 0) eager[r] = (t1 - t0) / CALLS;
    }
    cudaGraph_t g;
    cudaGraphExec_t exec;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    for (int i = 0; i < CALLS; i++) {
        y[i] = tensor_sum(x, 1, false);
        z[i] = y[i] ? tensor_mul(y[i], y[i]) : NULL;
    }
    if (cudaStreamEndCapture(s, &g) != cudaSuccess || z[CALLS - 1] == NULL) {
        fprintf(stderr, "capture failed: %s\n", tensor_last_error());
        return 1;
    }
    cudaGraphInstantiate(&exec, g, 0);
    for (int r = -3; r < reps; r++) {
        double t0 = now_us();
        cudaGraphLaunch(exec, s);
        cudaStreamSynchronize(s);
        double t1 = now_us();
        if (r >= 0) graph[r] = (t1 - t0) / CALLS;
    }
    qsort(eager, (size_t)reps, sizeof *eager, cmp);
    qsort(graph, (size_t)reps, sizeof *graph, cmp);
    printf("per (sum + mul) pair, %d pairs, median of %d: eager %.2f us, graph replay %.2f us (%.1fx)\n", CALLS, reps,
           eager[reps / 2], graph[reps / 2], eager[reps / 2] / graph[reps / 2]);
    for (int i = 0; i < CALLS; i++) {
        tensor_release(y[i]);
        tensor_release(z[i]);
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(g);
    tensor_release(x);
    cudaStreamSynchronize(s);
    tensor_cuda_set_stream(0, NULL);
    cudaStreamDestroy(s);
    free(eager);
    free(graph);
    return 0;
}

/* User reductions on CUDA compiled at run time, against the built-ins doing the same math, in
 * one process on one GPU: a user sum vs tensor_sum, a user abs-sum vs tensor_norm(p = 1), over
 * rows, columns and everything of [8192, 8192] float32 and float16; and the first call's cost:
 * compiled now, or loaded from the disk cache (run the program twice with the same
 * TENSOR_JIT_CACHE_DIR; the second run's first call reads the cache).
 * Timing: cudaDeviceSynchronize around each call, host clock, calls alternating, median of REPS.
 * usage: bench_jit [REPS] */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "tinytensor.h"
#include "ops/reduction_kit.h"

#define FUNCTORS                                                                                   \
    static float bz(void) { return 0.0f; }                                                         \
    static float bfirst(const float *x) { return x[0]; }                                           \
    static float babs(const float *x) { return fabsf(x[0]); }                                      \
    static float badd(float a, float b) { return a + b; }                                          \
    static float bdone(float a, int64_t n) { return (void)n, a; }
FUNCTORS
#define STR_(...) #__VA_ARGS__
#define STR(...) STR_(__VA_ARGS__)
static const char src[] = STR(FUNCTORS);
TENSOR_REDUCTION_FNS_SOURCE(sum_fns, 1, float, float, bz, bfirst, badd, badd, bdone, src)
TENSOR_REDUCTION_FNS_SOURCE(abs_fns, 1, float, float, bz, babs, badd, badd, bdone, src)

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct {
    tensor_reduction *r; /* NULL: the built-in */
    int builtin;         /* 0 sum, 1 norm1 */
} call_t;

static double one_call(call_t c, const tensor_t *x, const int *dims, int nd) {
    cudaDeviceSynchronize();
    double t0 = now_ms();
    const tensor_t *in[1] = {x};
    tensor_t *y = c.r != NULL ? tensor_reduce(c.r, in, 1, dims, nd, false, TENSOR_DTYPE_DEFAULT)
                  : c.builtin == 0 ? tensor_sum_dims(x, dims, nd, false, TENSOR_DTYPE_DEFAULT)
                                   : tensor_norm(x, 1.0, dims, nd, false);
    cudaDeviceSynchronize();
    double t1 = now_ms();
    if (y == NULL) {
        fprintf(stderr, "%s\n", tensor_last_error());
        exit(1);
    }
    tensor_release(y);
    return t1 - t0;
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 30;
    tensor_reduction_def d = {"bench_jit_sum", 1, sizeof(float), TENSOR_REDUCTION_DTYPE_FLOAT, true, {{0}}, NULL};
    d.fns[TENSOR_REDUCTION_F32] = sum_fns;
    tensor_reduction *sum = tensor_reduction_register(&d);
    d.name = "bench_jit_abs";
    d.fns[TENSOR_REDUCTION_F32] = abs_fns;
    tensor_reduction *abss = tensor_reduction_register(&d);
    int64_t shape[2] = {8192, 8192};
    tensor_t *c32 = tensor_rand(2, shape, 1, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *x32 = tensor_to_device(c32, tensor_cuda(0));
    tensor_t *x16 = tensor_to_dtype(x32, TENSOR_FLOAT16);
    char dir[512];
    tensor_jit_cache_dir(dir, sizeof dir);
    /* The first call of each user reduction: compile or disk. */
    int d1 = 1;
    double first_sum = one_call((call_t){sum, 0}, x32, &d1, 1);
    printf("first call, user sum float32 (cache dir '%s'): %.1f ms\n", dir, first_sum);
    char buf[4096];
    const tensor_t *in[1] = {x32};
    tensor_reduction_explain(sum, in, 1, &d1, 1, false, TENSOR_DTYPE_DEFAULT, buf, sizeof buf);
    printf("%s", strstr(buf, "  cuda jit") ? strstr(buf, "  cuda jit") : buf);
    printf("\n| case | user ms | built-in ms | user / built-in |\n|---|---:|---:|---:|\n");
    const char *what[2] = {"sum", "abs-sum vs norm(p=1)"};
    tensor_reduction *user[2] = {sum, abss};
    for (int k = 0; k < 2; k++) {
        for (int t = 0; t < 2; t++) {
            const tensor_t *x = t == 0 ? x32 : x16;
            for (int m = 0; m < 3; m++) {
                int dim = m;
                const int *dims = m == 2 ? NULL : &dim;
                int nd = m == 2 ? 0 : 1;
                one_call((call_t){user[k], 0}, x, dims, nd); /* compile / warm */
                one_call((call_t){NULL, k}, x, dims, nd);
                double *u = malloc(sizeof(double) * reps), *b = malloc(sizeof(double) * reps);
                for (int r = 0; r < reps; r++) {
                    u[r] = one_call((call_t){user[k], 0}, x, dims, nd);
                    b[r] = one_call((call_t){NULL, k}, x, dims, nd);
                }
                qsort(u, reps, sizeof *u, cmp);
                qsort(b, reps, sizeof *b, cmp);
                printf("| %s, %s [8192, 8192] over %s | %.4f | %.4f | %.2f |\n", what[k], t == 0 ? "float32" : "float16",
                       m == 0 ? "dim 0" : m == 1 ? "dim 1" : "all", u[reps / 2], b[reps / 2], u[reps / 2] / b[reps / 2]);
                free(u);
                free(b);
            }
        }
    }
    tensor_release(x16);
    tensor_release(x32);
    tensor_release(c32);
    tensor_reduction_release(sum);
    tensor_reduction_release(abss);
    return 0;
}

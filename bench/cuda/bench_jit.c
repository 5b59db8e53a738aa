/* User reductions on CUDA compiled at run time, against the built-ins doing the same math, in
 * one process on one GPU: a user sum vs tensor_sum, a user abs-sum vs tensor_norm(p = 1), over
 * rows, columns and everything of [8192, 8192] float32 and float16; and the first call's cost:
 * compiled now, or loaded from the disk cache (run the program twice with the same
 * TENSOR_JIT_CACHE_DIR; the second run's first call reads the cache).
 * Timing: cudaDeviceSynchronize around each call, host clock, calls alternating (ABBA), median of REPS.
 * usage: bench_jit [REPS]
 *        bench_jit case REPS DTYPE TRANSPOSED SHAPE DIMS KEEPDIM   (one case, for bench_jit_cases.py;
 *        BENCH_JIT_EXPLAIN=1 prints both plans first, to compare their launches) */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "tinytensor.h"
#include "user_functors.h"

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

static double last_host_ms; /* of the last one_call: until the call returned, before the sync */

static double one_call(call_t c, const tensor_t *x, const int *dims, int nd) {
    cudaDeviceSynchronize();
    double t0 = now_ms();
    const tensor_t *in[1] = {x};
    tensor_t *y = c.r != NULL ? tensor_reduce(c.r, in, 1, dims, nd, false, TENSOR_DTYPE_DEFAULT)
                  : c.builtin == 0 ? tensor_sum_dims(x, dims, nd, false, TENSOR_DTYPE_DEFAULT)
                                   : tensor_norm(x, 1.0, dims, nd, false);
    last_host_ms = now_ms() - t0;
    cudaDeviceSynchronize();
    double t1 = now_ms();
    if (y == NULL) {
        fprintf(stderr, "%s\n", tensor_last_error());
        exit(1);
    }
    tensor_release(y);
    return t1 - t0;
}

/* Steady state: BATCH calls back to back (each output released at once, as a program would),
 * one synchronisation at the end; ms per call. */
#define BATCH 20
static double batched_call(call_t c, const tensor_t *x, const int *dims, int nd) {
    cudaDeviceSynchronize();
    double t0 = now_ms();
    const tensor_t *in[1] = {x};
    for (int i = 0; i < BATCH; i++) {
        tensor_t *y = c.r != NULL ? tensor_reduce(c.r, in, 1, dims, nd, false, TENSOR_DTYPE_DEFAULT)
                      : c.builtin == 0 ? tensor_sum_dims(x, dims, nd, false, TENSOR_DTYPE_DEFAULT)
                                       : tensor_norm(x, 1.0, dims, nd, false);
        if (y == NULL) {
            fprintf(stderr, "%s\n", tensor_last_error());
            exit(1);
        }
        tensor_release(y);
    }
    cudaDeviceSynchronize();
    return (now_ms() - t0) / BATCH;
}

/* Bytes of y (downloaded), for the bitwise comparison. */
static void *bytes_of(const tensor_t *y, size_t *n) {
    *n = (size_t)tensor_numel(y) * tensor_dtype_size(tensor_get_dtype(y));
    void *h = malloc(*n + 1);
    if (h == NULL || tensor_to_buffer(y, h, *n) != TENSOR_OK) exit(1);
    return h;
}

/* One case of bench/cuda/cases.json (bench_jit_cases.py passes them):
 *   bench_jit case REPS DTYPE TRANSPOSED SHAPE DIMS KEEPDIM   (SHAPE, DIMS: comma lists; DIMS "all")
 * prints "case user_sum_ms builtin_sum_ms user_abs_ms norm1_ms bitwise_sum bitwise_abs" (synchronised
 * calls), then the same four calls' host part (until the call returned, before the sync) and
 * their time per call in a batch of BATCH back-to-back calls, median ms. */
static int one_case(tensor_reduction *sum, tensor_reduction *abss, char **argv) {
    const int reps = atoi(argv[2]);
    const tensor_dtype dt = strcmp(argv[3], "bfloat16") == 0 ? TENSOR_BFLOAT16
                            : strcmp(argv[3], "float16") == 0 ? TENSOR_FLOAT16 : TENSOR_FLOAT32;
    const int transposed = atoi(argv[4]);
    int64_t shape[8];
    int nd = 0, dims[8], ndims = 0;
    for (char *p = strtok(argv[5], ","); p != NULL && nd < 8; p = strtok(NULL, ",")) shape[nd++] = atoll(p);
    if (strcmp(argv[6], "all") != 0)
        for (char *p = strtok(argv[6], ","); p != NULL && ndims < 8; p = strtok(NULL, ",")) dims[ndims++] = atoi(p);
    const bool keep = atoi(argv[7]) != 0;
    tensor_t *c = tensor_rand(nd, shape, 7, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *g = c ? tensor_to_device(c, tensor_cuda(0)) : NULL;
    tensor_t *x0 = g ? tensor_to_dtype(g, dt) : NULL;
    /* transposed: the last two dims swapped, so the reduced dim is not the dense one */
    tensor_t *x = x0 != NULL && transposed ? tensor_transpose(x0, nd - 2, nd - 1) : x0 ? tensor_retain(x0) : NULL;
    if (x == NULL) {
        fprintf(stderr, "%s\n", tensor_last_error());
        return 1;
    }
    const int *dp = ndims > 0 ? dims : NULL;
    if (getenv("BENCH_JIT_EXPLAIN") != NULL) { /* both plans, to compare launch configurations */
        char buf[4096];
        const tensor_t *in[1] = {x};
        if (tensor_reduction_explain(sum, in, 1, dp, ndims, keep, TENSOR_DTYPE_DEFAULT, buf, sizeof buf) >= 0)
            printf("user sum:\n%s", buf);
        if (tensor_reduce_explain("sum", x, dp, ndims, keep, TENSOR_DTYPE_DEFAULT, buf, sizeof buf) >= 0) printf("tensor_sum:\n%s", buf);
    }
    double ms[12]; /* per measure: user sum, sum, user abs, norm1 */
    int same[2];
    for (int k = 0; k < 2; k++) {
        tensor_reduction *r = k == 0 ? sum : abss;
        const tensor_t *in[1] = {x};
        tensor_t *yu = tensor_reduce(r, in, 1, dp, ndims, keep, TENSOR_DTYPE_DEFAULT);
        tensor_t *yb = k == 0 ? tensor_sum_dims(x, dp, ndims, keep, TENSOR_DTYPE_DEFAULT) : tensor_norm(x, 1.0, dp, ndims, keep);
        if (yu == NULL || yb == NULL) {
            fprintf(stderr, "%s\n", tensor_last_error());
            return 1;
        }
        size_t nu, nb;
        void *hu = bytes_of(yu, &nu), *hb = bytes_of(yb, &nb);
        same[k] = nu == nb && memcmp(hu, hb, nu) == 0;
        free(hu);
        free(hb);
        tensor_release(yu);
        tensor_release(yb);
        /* three measures, each the median of REPS in ABBA order (neither kind always runs
         * right after the other): a synchronised call, its host part, a call in a batch */
        double *t[6];
        for (int m = 0; m < 6; m++) t[m] = malloc(sizeof(double) * reps);
        for (int i = 0; i < reps; i++)
            for (int j = 0; j < 2; j++) {
                const int user = (i + j) % 2 == 0; /* u b, b u, u b, ... */
                const call_t cl = user ? (call_t){r, 0} : (call_t){NULL, k};
                t[1 - user][i] = one_call(cl, x, dp, ndims);
                t[3 - user][i] = last_host_ms;
            }
        for (int i = 0; i < reps; i++)
            for (int j = 0; j < 2; j++) {
                const int user = (i + j) % 2 == 0;
                t[5 - user][i] = batched_call(user ? (call_t){r, 0} : (call_t){NULL, k}, x, dp, ndims);
            }
        for (int m = 0; m < 6; m++) {
            qsort(t[m], reps, sizeof(double), cmp);
            ms[2 * k + (m % 2) + 4 * (m / 2)] = t[m][reps / 2];
            free(t[m]);
        }
    }
    printf("case %.5f %.5f %.5f %.5f %d %d", ms[0], ms[1], ms[2], ms[3], same[0], same[1]);
    for (int m = 4; m < 12; m++) printf(" %.5f", ms[m]);
    printf("\n");
    tensor_release(x);
    tensor_release(x0);
    tensor_release(g);
    tensor_release(c);
    return 0;
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 30;
    tensor_reduction_def d = {"bench_jit_sum", 1, sizeof(float), TENSOR_REDUCTION_DTYPE_FLOAT, true, {{0}}, NULL};
    d.fns[TENSOR_REDUCTION_F32] = sum_fns;
    tensor_reduction *sum = tensor_reduction_register(&d);
    d.name = "bench_jit_abs";
    d.fns[TENSOR_REDUCTION_F32] = abs_fns;
    tensor_reduction *abss = tensor_reduction_register(&d);
    if (argc == 8 && strcmp(argv[1], "case") == 0) return one_case(sum, abss, argv);
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

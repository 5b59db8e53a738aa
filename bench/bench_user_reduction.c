/* A user reduction against the built-in doing the same math, same process, same input:
 *   abs-sum (ops/reduction_kit.h) vs tensor_norm(p = 1), and a user sum vs tensor_sum,
 * over the inner dim of [rows, cols], every dim, and dim 0 (outputs along the rows: the
 * fold_columns path), float32, bfloat16 and float16, 1 thread and all; then dim 0 of inputs
 * that fold_columns cannot read in place (int32 into a float32 sum, float32 columns two apart,
 * bfloat16 into a float64 sum), whose rows are converted into a buffer first.
 * Prints median milliseconds of REPS rounds (a user call and a built-in call each, ABBA) and
 * the median of the rounds' ratios user / built-in.
 * Usage: bench_user_reduction [REPS] */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tinytensor.h"
#include "ops/reduction_kit.h"

static float zero(void) { return 0.0f; }
static float add(float a, float b) { return a + b; }
static float done(float a, int64_t n) { return (void)n, a; }
static float absval(const float *x) { return fabsf(x[0]); }
static float first(const float *x) { return x[0]; }
TENSOR_REDUCTION_FNS(abs_sum_fns, 1, float, float, zero, absval, add, add, done)
TENSOR_REDUCTION_FNS(sum_fns, 1, float, float, zero, first, add, add, done)
static double zero_d(void) { return 0.0; }
static double add_d(double a, double b) { return a + b; }
static double done_d(double a, int64_t n) { return (void)n, a; }
static double first_d(const double *x) { return x[0]; }
TENSOR_REDUCTION_FNS(sum_d_fns, 1, double, double, zero_d, first_d, add_d, add_d, done_d)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef tensor_t *(*call_fn)(const tensor_t *x, const int *dims, int nd, const void *ctx);
static tensor_t *call_user(const tensor_t *x, const int *dims, int nd, const void *ctx) {
    const tensor_t *in[1] = {x};
    return tensor_reduce(ctx, in, 1, dims, nd, false, TENSOR_DTYPE_DEFAULT);
}
static tensor_t *call_norm1(const tensor_t *x, const int *dims, int nd, const void *ctx) {
    return (void)ctx, tensor_norm(x, 1.0, dims, nd, false);
}
static tensor_t *call_sum(const tensor_t *x, const int *dims, int nd, const void *ctx) {
    return (void)ctx, tensor_sum_dims(x, dims, nd, false, TENSOR_DTYPE_DEFAULT);
}
/* ctx: the result dtype (both calls are given it) */
static tensor_t *call_user_as(const tensor_t *x, const int *dims, int nd, const void *ctx) {
    const tensor_t *in[1] = {x};
    const void *const *r = ctx;
    return tensor_reduce(r[0], in, 1, dims, nd, false, *(const tensor_dtype *)r[1]);
}
static tensor_t *call_sum_as(const tensor_t *x, const int *dims, int nd, const void *ctx) {
    const void *const *r = ctx;
    return tensor_sum_dims(x, dims, nd, false, *(const tensor_dtype *)r[1]);
}

static double timed_call(call_fn f, const tensor_t *x, const int *dims, int nd, const void *ctx) {
    double t0 = now_ms();
    tensor_t *y = f(x, dims, nd, ctx);
    double t1 = now_ms();
    if (y == NULL) {
        fprintf(stderr, "%s\n", tensor_last_error());
        exit(1);
    }
    tensor_release(y);
    return t1 - t0;
}
static double median_of(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    return t[n / 2];
}

/* The user call and the built-in, REPS rounds of one each in ABBA order (the first of a round
 * alternates), after two warm-up rounds: each one's median ms, and the median of the rounds'
 * ratios user / built-in. Pairing the calls keeps the machine's drift (other tenants, clock)
 * out of the ratio; two separate medians taken one after the other did not. */
typedef struct {
    double user, builtin, ratio;
} pair_ms;
static pair_ms median_pair(call_fn fu, const void *cu, call_fn fb, const void *cb, const tensor_t *x, const int *dims,
                           int nd, int reps) {
    double *tu = malloc((size_t)reps * sizeof *tu), *tb = malloc((size_t)reps * sizeof *tb);
    double *r = malloc((size_t)reps * sizeof *r);
    if (tu == NULL || tb == NULL || r == NULL) exit(1);
    for (int k = -2; k < reps; k++) {
        double a, b;
        if (k & 1) {
            a = timed_call(fu, x, dims, nd, cu);
            b = timed_call(fb, x, dims, nd, cb);
        } else {
            b = timed_call(fb, x, dims, nd, cb);
            a = timed_call(fu, x, dims, nd, cu);
        }
        if (k >= 0) {
            tu[k] = a;
            tb[k] = b;
            r[k] = a / b;
        }
    }
    pair_ms m = {median_of(tu, reps), median_of(tb, reps), median_of(r, reps)};
    free(tu);
    free(tb);
    free(r);
    return m;
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 21;
    tensor_reduction_def d = {"bench_abs_sum", 1, sizeof(float), TENSOR_REDUCTION_DTYPE_FLOAT, true, {{0}}, NULL};
    d.fns[TENSOR_REDUCTION_F32] = abs_sum_fns;
    tensor_reduction *abs_sum = tensor_reduction_register(&d);
    d.name = "bench_sum";
    d.fns[TENSOR_REDUCTION_F32] = sum_fns;
    d.fns[TENSOR_REDUCTION_F64] = sum_d_fns;
    tensor_reduction *sum = tensor_reduction_register(&d);
    int64_t shape[2] = {4096, 4096};
    tensor_t *x32 = tensor_rand(2, shape, 1, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *xb = tensor_to_dtype(x32, TENSOR_BFLOAT16), *xh = tensor_to_dtype(x32, TENSOR_FLOAT16);
    const tensor_t *xs[3] = {x32, xb, xh};
    static const char *const dts[3] = {"float32", "bfloat16", "float16"};
    static const char *const overs[3] = {"dim 1", "all", "dim 0"};
    static const int dim_of[3] = {1, 0, 0};
    int all_threads = tensor_get_num_threads();
    printf("| case | threads | user ms | built-in ms | user / built-in (median of rounds) |\n|---|---:|---:|---:|---:|\n");
    for (int th = 0; th < 2; th++) {
        tensor_set_num_threads(th == 0 ? 1 : all_threads);
        for (int k = 0; k < 3; k++) {
            const tensor_t *x = xs[k];
            const char *dt = dts[k];
            for (int o = 0; o < 3; o++) {
                const int *dims = o == 1 ? NULL : &dim_of[o];
                int nd = o == 1 ? 0 : 1;
                pair_ms m = median_pair(call_user, abs_sum, call_norm1, NULL, x, dims, nd, reps);
                printf("| abs-sum vs norm(p=1), %s [4096, 4096] over %s | %d | %.3f | %.3f | %.2f |\n", dt,
                       overs[o], tensor_get_num_threads(), m.user, m.builtin, m.ratio);
                m = median_pair(call_user, sum, call_sum, NULL, x, dims, nd, reps);
                printf("| user sum vs tensor_sum, %s [4096, 4096] over %s | %d | %.3f | %.3f | %.2f |\n", dt,
                       overs[o], tensor_get_num_threads(), m.user, m.builtin, m.ratio);
            }
        }
    }
    /* dim 0 of inputs that are converted on the way (every case one [4096, 4096] view) */
    tensor_t *xk = tensor_mul_scalar(x32, tensor_scalar_float(1000.0));
    tensor_t *xi = tensor_to_dtype(xk, TENSOR_INT32);
    int64_t wide[2] = {4096, 8192};
    tensor_t *xw = tensor_rand(2, wide, 2, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *x2 = tensor_slice(xw, 1, 0, 8192, 2);
    const tensor_t *cx[3] = {xi, x2, xb};
    static const char *const cnames[3] = {"int32 into float32", "float32 columns 2 apart", "bfloat16 into float64"};
    static const tensor_dtype cdt[3] = {TENSOR_FLOAT32, TENSOR_FLOAT32, TENSOR_FLOAT64};
    static const int dim0 = 0;
    for (int th = 0; th < 2; th++) {
        tensor_set_num_threads(th == 0 ? 1 : all_threads);
        for (int k = 0; k < 3; k++) {
            const void *ctx[2] = {sum, &cdt[k]};
            pair_ms m = median_pair(call_user_as, ctx, call_sum_as, ctx, cx[k], &dim0, 1, reps);
            printf("| user sum vs tensor_sum, %s [4096, 4096] over dim 0 | %d | %.3f | %.3f | %.2f |\n", cnames[k],
                   tensor_get_num_threads(), m.user, m.builtin, m.ratio);
        }
    }
    tensor_release(x2);
    tensor_release(xw);
    tensor_release(xi);
    tensor_release(xk);
    tensor_release(xh);
    tensor_release(xb);
    tensor_release(x32);
    tensor_reduction_release(abs_sum);
    tensor_reduction_release(sum);
    return 0;
}

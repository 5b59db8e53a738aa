/* Three reductions defined outside the library, checked against compositions of built-ins:
 *   abs_sum       sum |x|                      (against tensor_norm with p = 1)
 *   softmax_den   sum exp(x - max x)           (a struct accumulator: running max, rescaled sum;
 *                                               against exp(logsumexp(x) - amax(x)))
 *   weighted_sum  sum w * x over two inputs, w broadcast  (against tensor_mul then tensor_sum)
 * on the CPU and, when there is a CUDA device, on the GPU (the functors compiled at run time).
 * Exits 0 when every result matches, 1 otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tinytensor.h"
#include "tinytensor/ops/reduction_kit.h"

/* ---- the functors (functors.h, for the CPU) and their text (for the GPU) ---- */
#include "functors.h"
#include "functors_source.h" /* generated: static const char functors_source[] */

/* ---- the tiled callbacks, generated, each with the functor's source ---- */
TENSOR_REDUCTION_FNS_SOURCE(abs_sum_fns, 1, float, float, zero, absval, add, add, done, functors_source)
TENSOR_REDUCTION_FNS_SOURCE(weighted_sum_fns, 2, float, float, zero, product, add, add, done, functors_source)
TENSOR_REDUCTION_FNS_SOURCE(softmax_fns, 1, float, softmax_acc, softmax_identity, first, softmax_add, softmax_merge,
                            softmax_result, functors_source)

static tensor_reduction *define(const char *name, int ninputs, size_t acc_size, tensor_reduction_fns fns) {
    tensor_reduction_def def = {name, ninputs, acc_size, TENSOR_REDUCTION_DTYPE_FLOAT, true, {{0}}, NULL};
    def.fns[TENSOR_REDUCTION_F32] = fns;
    tensor_reduction *r = tensor_reduction_register(&def);
    if (r == NULL) fprintf(stderr, "%s\n", tensor_last_error());
    return r;
}

/* max |a - b| / (1 + |b|) over every element, or INFINITY on a shape mismatch. */
static double rel_diff(const tensor_t *a, const tensor_t *b) {
    if (a == NULL || b == NULL || tensor_numel(a) != tensor_numel(b)) return INFINITY;
    int64_t n = tensor_numel(a);
    float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double worst = INFINITY;
    if (x && y && tensor_to_buffer(a, x, (size_t)n * sizeof *x) == TENSOR_OK &&
        tensor_to_buffer(b, y, (size_t)n * sizeof *y) == TENSOR_OK) {
        worst = 0.0;
        for (int64_t i = 0; i < n; i++) {
            double d = fabs((double)x[i] - (double)y[i]) / (1.0 + fabs((double)y[i]));
            if (!(d <= worst)) worst = d;
        }
    }
    free(x);
    free(y);
    return worst;
}

static int check(const char *what, tensor_t *got, tensor_t *want) {
    double d = rel_diff(got, want);
    int ok = d <= 1e-4;
    printf("%-14s %s (max relative difference %.2g)\n", what, ok ? "ok" : "MISMATCH", d);
    if (got == NULL) fprintf(stderr, "  %s\n", tensor_last_error());
    tensor_release(got);
    tensor_release(want);
    return ok;
}

/* The three reductions and vecdot on `dev`, against built-ins on the CPU. */
static int run_all(tensor_device dev, tensor_reduction *abs_sum, tensor_reduction *softmax_den,
                   tensor_reduction *weighted_sum) {
    int64_t shape[2] = {64, 1000}, wshape[1] = {1000};
    tensor_t *xc = tensor_rand(2, shape, 1, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *wc = tensor_rand(1, wshape, 2, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *x = xc ? tensor_to_device(xc, dev) : NULL, *w = wc ? tensor_to_device(wc, dev) : NULL;
    if (x == NULL || w == NULL) {
        fprintf(stderr, "%s\n", tensor_last_error());
        return 0;
    }
    int dim = 1, ok = 1;
    const tensor_t *one[1] = {x}, *two[2] = {x, w};
    printf("-- on %s\n", dev.type == TENSOR_DEVICE_CPU ? "the CPU" : "CUDA");

    ok &= check("abs_sum", tensor_reduce(abs_sum, one, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT),
                tensor_norm(xc, 1.0, &dim, 1, false));

    tensor_t *lse = tensor_logsumexp(xc, &dim, 1, false), *mx = tensor_amax(xc, &dim, 1, false);
    tensor_t *diff = tensor_sub(lse, mx, tensor_scalar_int(1));
    ok &= check("softmax_den", tensor_reduce(softmax_den, one, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT),
                tensor_exp(diff));
    tensor_release(diff);
    tensor_release(mx);
    tensor_release(lse);

    tensor_t *prod = tensor_mul(xc, wc);
    ok &= check("weighted_sum", tensor_reduce(weighted_sum, two, 2, &dim, 1, false, TENSOR_DTYPE_DEFAULT),
                tensor_sum_dims(prod, &dim, 1, false, TENSOR_DTYPE_DEFAULT));
    tensor_release(prod);
    ok &= check("vecdot", tensor_vecdot(x, w, -1), tensor_reduce(weighted_sum, two, 2, &dim, 1, false,
                                                                 TENSOR_DTYPE_DEFAULT));
    tensor_release(x);
    tensor_release(w);
    tensor_release(xc);
    tensor_release(wc);
    return ok;
}

int main(void) {
    tensor_reduction *abs_sum = define("abs_sum", 1, sizeof(float), abs_sum_fns);
    tensor_reduction *softmax_den = define("softmax_den", 1, sizeof(softmax_acc), softmax_fns);
    tensor_reduction *weighted_sum = define("weighted_sum", 2, sizeof(float), weighted_sum_fns);
    if (abs_sum == NULL || softmax_den == NULL || weighted_sum == NULL) return 1;
    int ok = run_all(tensor_cpu(), abs_sum, softmax_den, weighted_sum);
    if (tensor_cuda_device_count() > 0) ok &= run_all(tensor_cuda(0), abs_sum, softmax_den, weighted_sum);
    else printf("-- no CUDA device: the GPU half is skipped\n");
    tensor_reduction_release(abs_sum);
    tensor_reduction_release(softmax_den);
    tensor_reduction_release(weighted_sum);
    return ok ? 0 : 1;
}

/* Scans: values against a plain reference (double, sequential), PyTorch's dtype rules, NaN and
 * infinities, ties in cummax/cummin, layouts (negative and middle dims, a transposed input,
 * 0-d and empty), bitwise equality across thread counts, out= forms and every error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "ew_test_util.h"
#include "ops/scan.h"

static void test_cumsum_cumprod_values(void **state) {
    (void)state;
    tensor_t *x = ew_tensor(TENSOR_FLOAT32, 2, (int64_t[]){2, 3}, (double[]){1, 2, 3, 4, 5, 6}, 6);
    tensor_t *r = tensor_cumsum(x, 1, TENSOR_DTYPE_DEFAULT);
    ew_expect(r, TENSOR_FLOAT32, (double[]){1, 3, 6, 4, 9, 15}, 6);
    tensor_release(r);
    r = tensor_cumsum(x, -2, TENSOR_DTYPE_DEFAULT);
    ew_expect(r, TENSOR_FLOAT32, (double[]){1, 2, 3, 5, 7, 9}, 6);
    tensor_release(r);
    r = tensor_cumprod(x, 1, TENSOR_DTYPE_DEFAULT);
    ew_expect(r, TENSOR_FLOAT32, (double[]){1, 2, 6, 4, 20, 120}, 6);
    tensor_release(r);
    r = tensor_cumsum(x, 0, TENSOR_FLOAT64);
    ew_expect(r, TENSOR_FLOAT64, (double[]){1, 2, 3, 5, 7, 9}, 6);
    tensor_release(r);
    tensor_release(x);
    /* Integers and bool widen to int64 (wrapping); dtype= converts each element first. */
    tensor_t *i8 = ew_ivec(TENSOR_INT8, (int64_t[]){100, 100, 100, -128}, 4);
    r = tensor_cumsum(i8, 0, TENSOR_DTYPE_DEFAULT);
    ew_expect_i(r, TENSOR_INT64, (int64_t[]){100, 200, 300, 172}, 4);
    tensor_release(r);
    r = tensor_cumsum(i8, 0, TENSOR_INT8);
    ew_expect_i(r, TENSOR_INT8, (int64_t[]){100, -56, 44, -84}, 4);
    tensor_release(r);
    tensor_release(i8);
    tensor_t *b = ew_ivec(TENSOR_BOOL, (int64_t[]){1, 0, 1, 1}, 4);
    r = tensor_cumsum(b, 0, TENSOR_DTYPE_DEFAULT);
    ew_expect_i(r, TENSOR_INT64, (int64_t[]){1, 1, 2, 3}, 4);
    tensor_release(r);
    r = tensor_cumprod(b, 0, TENSOR_DTYPE_DEFAULT);
    ew_expect_i(r, TENSOR_INT64, (int64_t[]){1, 0, 0, 0}, 4);
    tensor_release(r);
    tensor_release(b);
    /* float16 keeps its dtype and accumulates in float32: 3000 x 0.5 reaches 1500 (a float16
     * accumulator would stall at 1024). */
    tensor_t *h = tensor_full(1, (int64_t[]){3000}, 0.5, TENSOR_FLOAT16, tensor_cpu());
    r = tensor_cumsum(h, 0, TENSOR_DTYPE_DEFAULT);
    assert_int_equal(tensor_get_dtype(r), TENSOR_FLOAT16);
    double *v = ew_values(r);
    assert_true(v[2999] == 1500.0);
    free(v);
    tensor_release(r);
    tensor_release(h);
    /* NaN propagates through a cumsum. */
    tensor_t *n = ew_vec(TENSOR_FLOAT64, (double[]){1, NAN, 2}, 3);
    r = tensor_cumsum(n, 0, TENSOR_DTYPE_DEFAULT);
    v = ew_values(r);
    assert_true(v[0] == 1.0 && isnan(v[1]) && isnan(v[2]));
    free(v);
    tensor_release(r);
    tensor_release(n);
}

static void test_logcumsumexp(void **state) {
    (void)state;
    tensor_t *x = ew_vec(TENSOR_FLOAT64, (double[]){0, 1000, -INFINITY, 2}, 4);
    tensor_t *r = tensor_logcumsumexp(x, 0);
    double *v = ew_values(r);
    assert_true(fabs(v[0] - 0.0) < 1e-12);
    assert_true(fabs(v[1] - 1000.0) < 1e-9); /* no overflow */
    assert_true(fabs(v[2] - 1000.0) < 1e-9);
    assert_true(fabs(v[3] - 1000.0) < 1e-9);
    free(v);
    tensor_release(r);
    tensor_release(x);
    /* All -inf stays -inf; +inf stays +inf (PyTorch's special case). */
    x = ew_vec(TENSOR_FLOAT32, (double[]){-INFINITY, -INFINITY, INFINITY, 1}, 4);
    r = tensor_logcumsumexp(x, 0);
    v = ew_values(r);
    assert_true(v[0] == -INFINITY && v[1] == -INFINITY && v[2] == INFINITY && v[3] == INFINITY);
    free(v);
    tensor_release(r);
    tensor_release(x);
    /* A NaN propagates to every later element, finite ones included. */
    x = ew_vec(TENSOR_FLOAT32, (double[]){1, NAN, 2, -INFINITY}, 4);
    r = tensor_logcumsumexp(x, 0);
    v = ew_values(r);
    assert_true(fabs(v[0] - 1.0) < 1e-6 && isnan(v[1]) && isnan(v[2]) && isnan(v[3]));
    free(v);
    tensor_release(r);
    tensor_release(x);
    /* Against log(cumsum(exp(x))) where that does not overflow. */
    x = ew_vec(TENSOR_FLOAT32, (double[]){0.5, -1.25, 2.0, 0.0, -3.0}, 5);
    r = tensor_logcumsumexp(x, -1);
    v = ew_values(r);
    const double xs[5] = {0.5, -1.25, 2.0, 0.0, -3.0};
    double s = 0;
    for (int i = 0; i < 5; i++) {
        s += exp(xs[i]);
        assert_true(fabs(v[i] - log(s)) < 1e-6);
    }
    free(v);
    tensor_release(r);
    tensor_release(x);
}

static void test_cummax_cummin(void **state) {
    (void)state;
    tensor_t *x = ew_vec(TENSOR_FLOAT32, (double[]){1, 3, 3, 2, 5, 5, 0}, 7);
    tensor_t *v = NULL, *i = NULL;
    assert_int_equal(tensor_cummax(x, 0, &v, &i), TENSOR_OK);
    ew_expect(v, TENSOR_FLOAT32, (double[]){1, 3, 3, 3, 5, 5, 5}, 7);
    ew_expect_i(i, TENSOR_INT64, (int64_t[]){0, 1, 2, 2, 4, 5, 5}, 7); /* ties: the later index */
    tensor_release(v);
    tensor_release(i);
    assert_int_equal(tensor_cummin(x, 0, &v, &i), TENSOR_OK);
    ew_expect(v, TENSOR_FLOAT32, (double[]){1, 1, 1, 1, 1, 1, 0}, 7);
    ew_expect_i(i, TENSOR_INT64, (int64_t[]){0, 0, 0, 0, 0, 0, 6}, 7);
    tensor_release(v);
    tensor_release(i);
    tensor_release(x);
    /* A NaN is the max (and the min) from where it occurs: the latest NaN's index. */
    x = ew_vec(TENSOR_FLOAT64, (double[]){1, NAN, 5, NAN, 7}, 5);
    assert_int_equal(tensor_cummax(x, 0, &v, &i), TENSOR_OK);
    double *vv = ew_values(v);
    assert_true(vv[0] == 1 && isnan(vv[1]) && isnan(vv[2]) && isnan(vv[3]) && isnan(vv[4]));
    free(vv);
    ew_expect_i(i, TENSOR_INT64, (int64_t[]){0, 1, 1, 3, 3}, 5);
    tensor_release(v);
    tensor_release(i);
    tensor_release(x);
    /* Integers and bool keep their dtype. */
    x = ew_ivec(TENSOR_INT16, (int64_t[]){-5, -7, -7, 3}, 4);
    assert_int_equal(tensor_cummin(x, 0, &v, &i), TENSOR_OK);
    ew_expect_i(v, TENSOR_INT16, (int64_t[]){-5, -7, -7, -7}, 4);
    ew_expect_i(i, TENSOR_INT64, (int64_t[]){0, 1, 2, 2}, 4);
    tensor_release(v);
    tensor_release(i);
    tensor_release(x);
}

/* Reference cumsum in double along dim of a contiguous copy's values. */
static void check_layout(const tensor_t *x, int dim) {
    tensor_t *r = tensor_cumsum(x, dim, TENSOR_FLOAT64);
    assert_non_null(r);
    tensor_t *c = tensor_contiguous(x);
    double *in = ew_values(c), *out = ew_values(r);
    const int nd = tensor_ndim(x);
    const int d = dim < 0 ? dim + nd : dim;
    int64_t inner = 1, len = tensor_size(x, d), outer = 1;
    for (int k = d + 1; k < nd; k++) inner *= tensor_size(x, k);
    for (int k = 0; k < d; k++) outer *= tensor_size(x, k);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t q = 0; q < inner; q++) {
            double s = 0;
            for (int64_t k = 0; k < len; k++) {
                const int64_t at = (o * len + k) * inner + q;
                s += in[at];
                if (fabs(out[at] - s) > 1e-9 * (1 + fabs(s))) fail_msg("dim %d at %lld: %g vs %g", dim, (long long)at, out[at], s);
            }
        }
    free(in);
    free(out);
    tensor_release(c);
    tensor_release(r);
}

static void test_layouts_threads_edges(void **state) {
    (void)state;
    tensor_t *x = tensor_rand(3, (int64_t[]){7, 50, 9}, 3, TENSOR_FLOAT64, tensor_cpu());
    for (int d = -3; d < 3; d++) check_layout(x, d);
    tensor_t *t = tensor_transpose(x, 0, 2);
    for (int d = 0; d < 3; d++) check_layout(t, d);
    tensor_release(t);
    tensor_release(x);
    /* Bitwise the same for 1 and 4 threads (many lines, long lines). */
    tensor_t *big = tensor_rand(2, (int64_t[]){3000, 700}, 4, TENSOR_FLOAT32, tensor_cpu());
    const int saved = tensor_get_num_threads();
    for (int d = 0; d < 2; d++) {
        tensor_set_num_threads(1);
        tensor_t *a = tensor_cumsum(big, d, TENSOR_DTYPE_DEFAULT);
        tensor_set_num_threads(4);
        tensor_t *b = tensor_cumsum(big, d, TENSOR_DTYPE_DEFAULT);
        double *va = ew_values(a), *vb = ew_values(b);
        assert_memory_equal(va, vb, sizeof(double) * 3000 * 700);
        free(va);
        free(vb);
        tensor_release(a);
        tensor_release(b);
    }
    tensor_set_num_threads(saved);
    tensor_release(big);
    /* 0-d: one element, dim 0 or -1. */
    tensor_t *z = ew_scalar0d(TENSOR_INT32, 7);
    tensor_t *r = tensor_cumsum(z, -1, TENSOR_DTYPE_DEFAULT);
    assert_int_equal(tensor_ndim(r), 0);
    ew_expect_i(r, TENSOR_INT64, (int64_t[]){7}, 1);
    tensor_release(r);
    assert_null(tensor_cumsum(z, 1, TENSOR_DTYPE_DEFAULT));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INDEX);
    tensor_release(z);
    /* Empty: an empty result of the right dtype. */
    tensor_t *e = tensor_empty(2, (int64_t[]){0, 4}, TENSOR_INT8, tensor_cpu());
    r = tensor_cumprod(e, 1, TENSOR_DTYPE_DEFAULT);
    assert_int_equal(tensor_get_dtype(r), TENSOR_INT64);
    assert_int_equal(tensor_numel(r), 0);
    tensor_release(r);
    tensor_release(e);
}

static void test_out_and_errors(void **state) {
    (void)state;
    tensor_t *x = ew_vec(TENSOR_FLOAT32, (double[]){1, 2, 3}, 3);
    tensor_t *out = tensor_empty(1, (int64_t[]){1}, TENSOR_FLOAT64, tensor_cpu());
    assert_int_equal(tensor_cumsum_out(out, x, 0, TENSOR_DTYPE_DEFAULT), TENSOR_OK); /* out's dtype, resized */
    ew_expect(out, TENSOR_FLOAT64, (double[]){1, 3, 6}, 3);
    assert_int_equal(tensor_cumsum_out(out, x, 0, TENSOR_FLOAT32), TENSOR_ERR_DTYPE);
    tensor_t *vals = tensor_empty(1, (int64_t[]){3}, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *idx = tensor_empty(1, (int64_t[]){3}, TENSOR_INT64, tensor_cpu());
    assert_int_equal(tensor_cummax_out(vals, idx, x, 0), TENSOR_OK);
    ew_expect_i(idx, TENSOR_INT64, (int64_t[]){0, 1, 2}, 3);
    assert_int_equal(tensor_cummin_out(vals, NULL, x, 0), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_logcumsumexp_out(vals, x, 0), TENSOR_OK);
    assert_int_equal(tensor_cumprod_out(NULL, x, 0, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT);
    /* An out that is the input itself: the result is complete before it is written. */
    tensor_t *y = ew_vec(TENSOR_FLOAT32, (double[]){1, 1, 1}, 3);
    assert_int_equal(tensor_cumsum_out(y, y, 0, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    ew_expect(y, TENSOR_FLOAT32, (double[]){1, 2, 3}, 3);
    /* Errors name the function and the argument. */
    assert_null(tensor_cumsum(NULL, 0, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_cumsum: argument 't' is NULL");
    assert_null(tensor_cumprod(x, 3, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INDEX, "tensor_cumprod: Dimension out of range");
    assert_null(tensor_cumsum(x, 0, (tensor_dtype)77));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_DTYPE);
    tensor_t *i32 = ew_ivec(TENSOR_INT32, (int64_t[]){1, 2}, 2);
    assert_null(tensor_logcumsumexp(i32, 0));
    assert_error(TENSOR_ERR_DTYPE, "tensor_logcumsumexp: logcumsumexp needs a floating input");
    tensor_t *a = NULL, *b = NULL;
    assert_int_equal(tensor_cummax(x, 0, NULL, &b), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_cummax: argument 'values' is NULL");
    assert_int_equal(tensor_cummin(x, -2, &a, &b), TENSOR_ERR_INDEX);
    assert_null(a);
    assert_null(b);
    tensor_release(i32);
    tensor_release(y);
    tensor_release(vals);
    tensor_release(idx);
    tensor_release(out);
    tensor_release(x);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cumsum_cumprod_values),
    cmocka_unit_test(test_logcumsumexp),
    cmocka_unit_test(test_cummax_cummin),
    cmocka_unit_test(test_layouts_threads_edges),
    cmocka_unit_test(test_out_and_errors),
};

TENSOR_TEST_GROUP(scan, tests, NULL, NULL)

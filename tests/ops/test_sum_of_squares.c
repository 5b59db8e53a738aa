/* tensor_sum_of_squares: the worked example of docs/functors.md (a new reduction = a functor
 * header, one registration line per backend, one public function, and this test).
 *
 * What a new reduction's test checks: values against a reference accumulated in double over
 * the logical elements; the output dtype and shape rules it inherits from the frontend (here:
 * sum's); every layout the iterator can hand the kernel (contiguous, transposed, sliced,
 * expanded); empty and 0-d inputs; errors; and that the result does not depend on the number
 * of threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

/* A tensor of `dtype` from doubles (converted with the runtime's cast rules). */
static tensor_t *make(int ndim, const int64_t *sizes, tensor_dtype dtype, const double *values) {
    tensor_t *d = tensor_from_buffer(values, ndim, sizes, TENSOR_FLOAT64, tensor_cpu());
    assert_non_null(d);
    tensor_t *t = tensor_to_dtype(d, dtype);
    assert_non_null(t);
    tensor_release(d);
    return t;
}

/* All elements of t, in logical row-major order, as doubles (caller frees). */
static double *values_of(const tensor_t *t) {
    int64_t n = tensor_numel(t);
    tensor_t *d = tensor_to_dtype(t, TENSOR_FLOAT64);
    assert_non_null(d);
    double *v = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    assert_non_null(v);
    assert_int_equal(tensor_to_buffer(d, v, sizeof(double) * (size_t)n), TENSOR_OK);
    tensor_release(d);
    return v;
}

static double item(const tensor_t *t) {
    assert_int_equal(tensor_numel(t), 1);
    double *v = values_of(t);
    double r = v[0];
    free(v);
    return r;
}

static void test_values_and_shapes(void **state) {
    (void)state;
    const double v[] = {1, 2, 3, 4, 5, 6};
    tensor_t *x = make(2, (const int64_t[]){2, 3}, TENSOR_FLOAT32, v);

    tensor_t *all = tensor_sum_of_squares(x, NULL, 0, false);
    assert_non_null(all);
    assert_int_equal(tensor_ndim(all), 0);
    assert_int_equal(tensor_get_dtype(all), TENSOR_FLOAT32);
    assert_true(item(all) == 91.0);
    tensor_release(all);

    int d0 = 0, d1 = -1;
    tensor_t *cols = tensor_sum_of_squares(x, &d0, 1, false);
    assert_non_null(cols);
    assert_int_equal(tensor_ndim(cols), 1);
    assert_int_equal(tensor_size(cols, 0), 3);
    double *c = values_of(cols);
    assert_true(c[0] == 17 && c[1] == 29 && c[2] == 45);
    free(c);
    tensor_release(cols);

    tensor_t *rows = tensor_sum_of_squares(x, &d1, 1, true);
    assert_non_null(rows);
    assert_int_equal(tensor_ndim(rows), 2);
    assert_int_equal(tensor_size(rows, 0), 2);
    assert_int_equal(tensor_size(rows, 1), 1);
    double *r = values_of(rows);
    assert_true(r[0] == 14 && r[1] == 77);
    free(r);
    tensor_release(rows);
    tensor_release(x);
}

static void test_dtypes(void **state) {
    (void)state;
    /* integers widen to int64 before squaring: 100^2 + (-100)^2 + 3^2 */
    tensor_t *i8 = make(1, (const int64_t[]){3}, TENSOR_INT8, (const double[]){100, -100, 3});
    tensor_t *s = tensor_sum_of_squares(i8, NULL, 0, false);
    assert_non_null(s);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT64);
    assert_true(item(s) == 20009);
    tensor_release(s);
    tensor_release(i8);

    /* int32 65536^2 = 2^32 does not overflow the int64 accumulator */
    tensor_t *i32 = make(1, (const int64_t[]){2}, TENSOR_INT32, (const double[]){65536, 65536});
    s = tensor_sum_of_squares(i32, NULL, 0, false);
    assert_true(item(s) == 8589934592.0);
    tensor_release(s);
    tensor_release(i32);

    /* bool counts the true elements */
    tensor_t *b = make(1, (const int64_t[]){4}, TENSOR_BOOL, (const double[]){1, 0, 1, 1});
    s = tensor_sum_of_squares(b, NULL, 0, false);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT64);
    assert_true(item(s) == 3);
    tensor_release(s);
    tensor_release(b);

    /* float16 keeps its dtype but accumulates in float32: 3000 * 0.25 = 750 exactly, where a
     * float16 accumulator would stall at 512 (0.25 is half an ulp there) */
    int64_t n = 3000;
    tensor_t *h = tensor_full(1, &n, 0.5, TENSOR_FLOAT16, tensor_cpu());
    s = tensor_sum_of_squares(h, NULL, 0, false);
    assert_int_equal(tensor_get_dtype(s), TENSOR_FLOAT16);
    assert_true(item(s) == 750.0);
    tensor_release(s);
    tensor_release(h);

    tensor_t *bf = tensor_full(1, &n, -0.5, TENSOR_BFLOAT16, tensor_cpu());
    s = tensor_sum_of_squares(bf, NULL, 0, false);
    assert_int_equal(tensor_get_dtype(s), TENSOR_BFLOAT16);
    assert_true(item(s) == 752.0); /* 750 rounded to bfloat16's 8 bits */
    tensor_release(s);
    tensor_release(bf);

    tensor_t *f64 = make(1, (const int64_t[]){2}, TENSOR_FLOAT64, (const double[]){0.1, 0.2});
    s = tensor_sum_of_squares(f64, NULL, 0, false);
    assert_int_equal(tensor_get_dtype(s), TENSOR_FLOAT64);
    assert_true(item(s) == 0.1 * 0.1 + 0.2 * 0.2);
    tensor_release(s);
    tensor_release(f64);

    /* NaN and inf propagate as in a sum */
    tensor_t *sp = make(1, (const int64_t[]){3}, TENSOR_FLOAT32, (const double[]){1, INFINITY, -2});
    s = tensor_sum_of_squares(sp, NULL, 0, false);
    assert_true(isinf(item(s)) && item(s) > 0);
    tensor_release(s);
    tensor_release(sp);
}

/* Reference over the logical elements: x is [A, B, C] (after any view), reduce dims {0, 2}. */
static void check_layout(const tensor_t *x) {
    const int64_t *sz = tensor_sizes(x);
    double *v = values_of(x);
    int dims[2] = {0, 2};
    tensor_t *s = tensor_sum_of_squares(x, dims, 2, false);
    assert_non_null(s);
    assert_int_equal(tensor_ndim(s), 1);
    assert_int_equal(tensor_size(s, 0), sz[1]);
    double *got = values_of(s);
    for (int64_t j = 0; j < sz[1]; j++) {
        double ref = 0, mag = 0;
        for (int64_t i = 0; i < sz[0]; i++)
            for (int64_t k = 0; k < sz[2]; k++) {
                double e = v[(i * sz[1] + j) * sz[2] + k];
                ref += e * e;
                mag += e * e;
            }
        if (fabs(got[j] - ref) > 1e-5 * mag + 1e-6) fail_msg("column %lld: got %.9g want %.9g", (long long)j, got[j], ref);
    }
    free(got);
    free(v);
    tensor_release(s);
}

static void test_layouts(void **state) {
    (void)state;
    int64_t sizes[3] = {6, 7, 300};
    tensor_t *x = tensor_randn(3, sizes, 42, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(x);
    check_layout(x); /* contiguous: the reduced dims 0 and 2 are not adjacent */

    tensor_t *p = tensor_permute(x, (const int[]){2, 1, 0}); /* [300, 7, 6] transposed */
    check_layout(p);
    tensor_release(p);

    tensor_t *sl = tensor_slice(x, 2, 1, 300, 3); /* [6, 7, 100], stride 3 on the last dim */
    check_layout(sl);
    tensor_release(sl);

    tensor_t *one = tensor_narrow(x, 1, 2, 1); /* [6, 1, 300] expanded to [6, 5, 300] */
    tensor_t *ex = tensor_expand(one, 3, (const int64_t[]){6, 5, 300});
    assert_non_null(ex);
    check_layout(ex);
    tensor_release(ex);
    tensor_release(one);
    tensor_release(x);
}

static void test_empty_and_scalar(void **state) {
    (void)state;
    int64_t sizes[2] = {3, 0};
    tensor_t *e = tensor_zeros(2, sizes, TENSOR_FLOAT32, tensor_cpu());
    int d1 = 1;
    tensor_t *s = tensor_sum_of_squares(e, &d1, 1, false); /* each of the 3 outputs folds nothing */
    assert_non_null(s);
    assert_int_equal(tensor_size(s, 0), 3);
    double *v = values_of(s);
    assert_true(v[0] == 0 && v[1] == 0 && v[2] == 0);
    free(v);
    tensor_release(s);
    int d0 = 0;
    s = tensor_sum_of_squares(e, &d0, 1, false); /* an empty output */
    assert_non_null(s);
    assert_int_equal(tensor_numel(s), 0);
    tensor_release(s);
    tensor_release(e);

    tensor_t *z = make(0, NULL, TENSOR_INT16, (const double[]){-7});
    s = tensor_sum_of_squares(z, &d0, 1, true); /* a 0-d input gives a 0-d result */
    assert_non_null(s);
    assert_int_equal(tensor_ndim(s), 0);
    assert_true(item(s) == 49);
    tensor_release(s);
    tensor_release(z);
}

static void test_errors(void **state) {
    (void)state;
    assert_null(tensor_sum_of_squares(NULL, NULL, 0, false));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_sum_of_squares");
    tensor_t *x = make(1, (const int64_t[]){2}, TENSOR_FLOAT32, (const double[]){1, 2});
    int bad = 1;
    assert_null(tensor_sum_of_squares(x, &bad, 1, false));
    assert_error(TENSOR_ERR_INDEX, "Dimension out of range");
    int dup[2] = {0, -1};
    assert_null(tensor_sum_of_squares(x, dup, 2, false));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "appears multiple times");
    tensor_release(x);
}

/* The CPU backend reduces through the deterministic driver: 1 and N threads give the same bits. */
static void test_threads(void **state) {
    (void)state;
    int64_t sizes[2] = {257, 3001};
    tensor_t *x = tensor_rand(2, sizes, 7, TENSOR_FLOAT32, tensor_cpu());
    const int dims[3][2] = {{0, 0}, {1, 0}, {0, 1}};
    const int nd[3] = {1, 1, 2};
    int saved = tensor_get_num_threads();
    for (int c = 0; c < 3; c++) {
        assert_int_equal(tensor_set_num_threads(1), TENSOR_OK);
        tensor_t *a = tensor_sum_of_squares(x, dims[c], nd[c], false);
        assert_int_equal(tensor_set_num_threads(4), TENSOR_OK);
        tensor_t *b = tensor_sum_of_squares(x, dims[c], nd[c], false);
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(tensor_numel(a), tensor_numel(b));
        size_t bytes = (size_t)tensor_numel(a) * sizeof(float);
        float *va = malloc(bytes), *vb = malloc(bytes);
        assert_int_equal(tensor_to_buffer(a, va, bytes), TENSOR_OK);
        assert_int_equal(tensor_to_buffer(b, vb, bytes), TENSOR_OK);
        assert_memory_equal(va, vb, bytes);
        free(va);
        free(vb);
        tensor_release(a);
        tensor_release(b);
    }
    tensor_set_num_threads(saved);
    tensor_release(x);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_values_and_shapes), cmocka_unit_test(test_dtypes), cmocka_unit_test(test_layouts),
    cmocka_unit_test(test_empty_and_scalar),  cmocka_unit_test(test_errors), cmocka_unit_test(test_threads),
};

TENSOR_TEST_GROUP(sum_of_squares, tests, NULL, NULL)

/* Small reductions, whose accumulators live on the stack (iterator/iter_reduce_run.c:
 * REDUCE_STACK_BYTES = 1024) and, one output further, on the heap: column sums of [7, n] for
 * n around 1024 bytes of accumulators (8 bytes for the float32 and integer sums, 16 for the
 * compensated float64 sum, 24 for var's Welford state), exact with integer values, and the same
 * calls again (the stack buffer is reused without leftovers from the previous call). */
#include "reduce_test_util.h"

/* Column sums of a [7, n] tensor whose element (i, j) is i * n + j - 50: column j sums to
 * 7 * (j - 50) + n * (0 + 1 + ... + 6). */
static void check_column_sums(tensor_dtype dt, int64_t n) {
    double *vals = malloc(sizeof(double) * (size_t)(7 * n));
    assert_non_null(vals);
    for (int64_t i = 0; i < 7 * n; i++) vals[i] = (double)(i - 50);
    tensor_t *x = rt_tensor(2, RT_I64(7, n), dt, vals);
    free(vals);
    for (int round = 0; round < 2; round++) {
        tensor_t *s = tensor_sum(x, 0, false);
        assert_non_null(s);
        assert_int_equal(tensor_numel(s), n);
        double *got = rt_read_f64(s);
        for (int64_t j = 0; j < n; j++)
            if (got[j] != (double)(7 * (j - 50) + 21 * n))
                fail_msg("%s n=%lld column %lld: %g, expected %lld", tensor_dtype_name(dt), (long long)n,
                         (long long)j, got[j], (long long)(7 * (j - 50) + 21 * n));
        free(got);
        tensor_release(s);
    }
    tensor_release(x);
}

static void test_column_sums_around_the_stack_buffer(void **state) {
    (void)state;
    static const int64_t ns[] = {1, 3, 63, 64, 65, 127, 128, 129, 255, 256, 257, 300};
    static const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_INT32, TENSOR_INT64};
    for (int d = 0; d < RT_NELEM(dts); d++)
        for (int k = 0; k < RT_NELEM(ns); k++) check_column_sums(dts[d], ns[k]);
}

/* The mean and the variance keep larger accumulators (count, mean, m2): around the same bound. */
static void test_var_around_the_stack_buffer(void **state) {
    (void)state;
    static const int64_t ns[] = {30, 31, 32, 33, 42, 43, 64, 65};
    for (int k = 0; k < RT_NELEM(ns); k++) {
        const int64_t n = ns[k];
        double *vals = malloc(sizeof(double) * (size_t)(2 * n));
        assert_non_null(vals);
        for (int64_t j = 0; j < n; j++) {
            vals[j] = (double)j;
            vals[n + j] = (double)j + 2.0; /* each column: {j, j + 2}: variance 2 (unbiased) */
        }
        tensor_t *x = rt_tensor(2, RT_I64(2, n), TENSOR_FLOAT64, vals);
        free(vals);
        tensor_t *v = tensor_var(x, 1, RT_INTS(0), 1, false);
        assert_non_null(v);
        double *got = rt_read_f64(v);
        for (int64_t j = 0; j < n; j++)
            if (got[j] != 2.0) fail_msg("var n=%lld column %lld: %g, expected 2", (long long)n, (long long)j, got[j]);
        free(got);
        tensor_release(v);
        tensor_release(x);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_column_sums_around_the_stack_buffer),
    cmocka_unit_test(test_var_around_the_stack_buffer),
};

TENSOR_TEST_GROUP(reduce_small, tests, NULL, NULL)

/* tensor_aminmax: min and max in one pass, bitwise equal to tensor_amin / tensor_amax for every
 * dtype and layout, NaN in both, the empty-input errors, the out= form and bad arguments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reduce_test_util.h"

static void expect_bitwise(const tensor_t *a, const tensor_t *b, const char *what) {
    if (!rt_bitwise_equal(a, b)) fail_msg("%s: aminmax differs from amin/amax", what);
}

static void test_matches_amin_amax(void **state) {
    (void)state;
    const int64_t sizes[3] = {5, 7, 33};
    const int dim_sets[][3] = {{2, 0, 0}, {0, 0, 0}, {0, 2, 0}, {1, 0, 0}, {-1, 0, 0}};
    const int dim_counts[] = {1, 1, 2, 1, 1};
    for (int di = 0; di < RT_NELEM(rt_dtypes); di++) {
        tensor_dtype d = rt_dtypes[di];
        for (int l = 0; l < RT_NUM_LAYOUTS; l++) {
            tensor_t *x = rt_make((rt_layout)l, 3, sizes, d, (l & 1) ? RT_SPECIAL : RT_WIDE, (uint64_t)(di * 10 + l));
            for (int s = -1; s < RT_NELEM(dim_counts); s++) {
                const int *dims = s < 0 ? NULL : dim_sets[s];
                int nd = s < 0 ? 0 : dim_counts[s];
                for (int keep = 0; keep < 2; keep++) {
                    tensor_t *lo = NULL, *hi = NULL;
                    if (tensor_aminmax(x, dims, nd, keep, &lo, &hi) != TENSOR_OK)
                        fail_msg("aminmax %s %s: %s", tensor_dtype_name(d), rt_layout_names[l], tensor_last_error());
                    tensor_t *a = tensor_amin(x, dims, nd, keep), *b = tensor_amax(x, dims, nd, keep);
                    assert_true(a != NULL && b != NULL);
                    char what[96];
                    snprintf(what, sizeof what, "%s %s dims#%d keepdim %d", tensor_dtype_name(d), rt_layout_names[l],
                             s, keep);
                    assert_int_equal(tensor_get_dtype(lo), d);
                    expect_bitwise(lo, a, what);
                    expect_bitwise(hi, b, what);
                    tensor_release(lo);
                    tensor_release(hi);
                    tensor_release(a);
                    tensor_release(b);
                }
            }
            tensor_release(x);
        }
    }
}

static void test_values_nan_and_zero_d(void **state) {
    (void)state;
    for (int i = 0; i < RT_NELEM(rt_float_dtypes); i++) {
        tensor_dtype d = rt_float_dtypes[i];
        tensor_t *x = RT_VEC(d, 3, -2, 5, 0.5), *lo = NULL, *hi = NULL;
        assert_int_equal(tensor_aminmax(x, NULL, 0, false, &lo, &hi), TENSOR_OK);
        assert_true(rt_item(lo) == -2.0 && rt_item(hi) == 5.0);
        assert_int_equal(tensor_ndim(lo), 0);
        tensor_release(lo);
        tensor_release(hi);
        tensor_release(x);
        x = RT_VEC(d, 1, NAN, -INFINITY, 3);
        assert_int_equal(tensor_aminmax(x, RT_INTS(0), 1, true, &lo, &hi), TENSOR_OK);
        assert_true(isnan(rt_item(lo)) && isnan(rt_item(hi)));
        RT_ASSERT_SHAPE(lo, 1);
        tensor_release(lo);
        tensor_release(hi);
        tensor_release(x);
    }
    /* a 0-d input reduces to itself */
    tensor_t *z = tensor_full(0, NULL, 7.0, TENSOR_INT16, tensor_cpu()), *lo = NULL, *hi = NULL;
    assert_non_null(z);
    assert_int_equal(tensor_aminmax(z, NULL, 0, false, &lo, &hi), TENSOR_OK);
    assert_true(rt_item(lo) == 7.0 && rt_item(hi) == 7.0);
    tensor_release(lo);
    tensor_release(hi);
    tensor_release(z);
}

static void test_errors(void **state) {
    (void)state;
    tensor_t *lo = (tensor_t *)1, *hi = (tensor_t *)1;
    assert_int_equal(tensor_aminmax(NULL, NULL, 0, false, &lo, &hi), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_aminmax");
    assert_null(lo);
    assert_null(hi);
    tensor_t *e = tensor_empty(2, RT_I64(3, 0), TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_aminmax(e, NULL, 0, false, &lo, &hi), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "aminmax(): cannot compute aminmax over an empty dimension");
    assert_int_equal(tensor_aminmax(e, RT_INTS(1), 1, false, &lo, &hi), TENSOR_ERR_INDEX);
    assert_error(TENSOR_ERR_INDEX, "aminmax(): Expected reduction dim 1 to have non-zero size.");
    /* a non-empty reduced dim of an empty tensor: empty results */
    assert_int_equal(tensor_aminmax(e, RT_INTS(0), 1, false, &lo, &hi), TENSOR_OK);
    RT_ASSERT_SHAPE(lo, 0);
    RT_ASSERT_SHAPE(hi, 0);
    tensor_release(lo);
    tensor_release(hi);
    tensor_t *x = RT_VEC(TENSOR_FLOAT32, 1, 2);
    assert_int_equal(tensor_aminmax(x, NULL, 0, false, NULL, &hi), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "'min'");
    assert_null(hi);
    assert_int_equal(tensor_aminmax(x, RT_INTS(3), 1, false, &lo, &hi), TENSOR_ERR_INDEX);
    assert_error(TENSOR_ERR_INDEX, "tensor_aminmax");
    tensor_release(x);
    tensor_release(e);
}

static void test_out_form(void **state) {
    (void)state;
    tensor_t *x = rt_make_contig(2, RT_I64(4, 6), TENSOR_INT32, RT_WIDE, 5);
    tensor_t *lo = tensor_empty(1, RT_I64(1), TENSOR_INT32, tensor_cpu());
    tensor_t *hi = tensor_empty(1, RT_I64(4), TENSOR_INT32, tensor_cpu());
    assert_int_equal(tensor_aminmax_out(lo, hi, x, RT_INTS(1), 1, false), TENSOR_OK);
    RT_ASSERT_SHAPE(lo, 4); /* resized */
    tensor_t *a = tensor_amin(x, RT_INTS(1), 1, false), *b = tensor_amax(x, RT_INTS(1), 1, false);
    expect_bitwise(lo, a, "out min");
    expect_bitwise(hi, b, "out max");
    tensor_t *wrong = tensor_empty(1, RT_I64(4), TENSOR_INT64, tensor_cpu());
    assert_int_equal(tensor_aminmax_out(lo, wrong, x, RT_INTS(1), 1, false), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "argument 'max' has dtype int64, expected int32");
    assert_int_equal(tensor_aminmax_out(NULL, hi, x, RT_INTS(1), 1, false), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_aminmax_out: argument 'min' is NULL");
    assert_int_equal(tensor_aminmax_out(lo, hi, NULL, RT_INTS(1), 1, false), TENSOR_ERR_INVALID_ARGUMENT);
    /* explain knows the op: two outputs of the input's dtype */
    char buf[4096];
    int64_t n = tensor_reduce_explain("aminmax", x, RT_INTS(1), 1, false, TENSOR_DTYPE_DEFAULT, buf, sizeof buf);
    assert_true(n > 0);
    tensor_release(wrong);
    tensor_release(a);
    tensor_release(b);
    tensor_release(lo);
    tensor_release(hi);
    tensor_release(x);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_matches_amin_amax),
    cmocka_unit_test(test_values_nan_and_zero_d),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_out_form),
};

TENSOR_TEST_GROUP(aminmax, tests, NULL, NULL)

/* Argument errors of the reduction family: NULL tensors and output pointers, bad dtypes, bad
 * ndims, and the out= form (wrong shape, wrong dtype, NULL; and what it does when right). Every
 * check reads the status and a message naming the function. */
#include "reduce_test_util.h"

static void test_null_input(void **state) {
    (void)state;
    const int d0 = 0;
    RT_EXPECT_ERROR(tensor_sum(NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_sum");
    RT_EXPECT_ERROR(tensor_sum_dims(NULL, NULL, 0, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT, "tensor_sum");
    RT_EXPECT_ERROR(tensor_nansum(NULL, NULL, 0, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT, "tensor_nansum");
    RT_EXPECT_ERROR(tensor_mean(NULL, NULL, 0, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT, "tensor_mean");
    RT_EXPECT_ERROR(tensor_nanmean(NULL, NULL, 0, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT,
                    "tensor_nanmean");
    RT_EXPECT_ERROR(tensor_prod(NULL, &d0, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT, "tensor_prod");
    RT_EXPECT_ERROR(tensor_amax(NULL, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_amax");
    RT_EXPECT_ERROR(tensor_amin(NULL, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_amin");
    RT_EXPECT_ERROR(tensor_argmax(NULL, NULL, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_argmax");
    RT_EXPECT_ERROR(tensor_argmin(NULL, &d0, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_argmin");
    RT_EXPECT_ERROR(tensor_var(NULL, 1, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_var");
    RT_EXPECT_ERROR(tensor_std(NULL, 1, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_std");
    RT_EXPECT_ERROR(tensor_norm(NULL, 2, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_norm");
    RT_EXPECT_ERROR(tensor_logsumexp(NULL, &d0, 1, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_logsumexp");
    RT_EXPECT_ERROR(tensor_count_nonzero(NULL, NULL, 0), TENSOR_ERR_INVALID_ARGUMENT, "tensor_count_nonzero");
    RT_EXPECT_ERROR(tensor_all(NULL, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_all");
    RT_EXPECT_ERROR(tensor_any(NULL, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_any");
    tensor_t *v = (tensor_t *)1, *i = (tensor_t *)1;
    RT_EXPECT_STATUS(tensor_max_dim(NULL, 0, false, &v, &i), TENSOR_ERR_INVALID_ARGUMENT, "tensor_max_dim");
    assert_null(v);
    assert_null(i);
    v = i = (tensor_t *)1;
    RT_EXPECT_STATUS(tensor_min_dim(NULL, 0, false, &v, &i), TENSOR_ERR_INVALID_ARGUMENT, "tensor_min_dim");
    assert_null(v);
    assert_null(i);
    v = i = (tensor_t *)1;
    RT_EXPECT_STATUS(tensor_var_mean(NULL, 1, NULL, 0, false, &v, &i), TENSOR_ERR_INVALID_ARGUMENT, "tensor_var_mean");
    assert_null(v);
    assert_null(i);
    RT_EXPECT_STATUS(tensor_std_mean(NULL, 1, NULL, 0, false, &v, &i), TENSOR_ERR_INVALID_ARGUMENT, "tensor_std_mean");
    tensor_t *o = tensor_empty(0, NULL, TENSOR_FLOAT32, tensor_cpu());
    RT_EXPECT_STATUS(tensor_sum_out(o, NULL, NULL, 0, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT,
                     "tensor_sum_out");
    tensor_release(o);
}

static void test_null_outputs(void **state) {
    (void)state;
    tensor_t *x = RT_VEC(TENSOR_FLOAT32, 1, 2, 3);
    tensor_t *v = NULL;
    RT_EXPECT_STATUS(tensor_max_dim(x, 0, false, &v, NULL), TENSOR_ERR_INVALID_ARGUMENT, "tensor_max_dim");
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "indices");
    assert_null(v);
    RT_EXPECT_STATUS(tensor_min_dim(x, 0, false, NULL, &v), TENSOR_ERR_INVALID_ARGUMENT, "tensor_min_dim");
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "values");
    assert_null(v);
    RT_EXPECT_STATUS(tensor_var_mean(x, 1, NULL, 0, false, NULL, &v), TENSOR_ERR_INVALID_ARGUMENT, "tensor_var_mean");
    RT_EXPECT_STATUS(tensor_var_mean(x, 1, NULL, 0, false, &v, NULL), TENSOR_ERR_INVALID_ARGUMENT, "tensor_var_mean");
    RT_EXPECT_STATUS(tensor_std_mean(x, 1, NULL, 0, false, NULL, NULL), TENSOR_ERR_INVALID_ARGUMENT, "tensor_std_mean");
    assert_null(v);
    RT_EXPECT_STATUS(tensor_sum_out(NULL, x, NULL, 0, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT,
                     "tensor_sum_out");
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "out");
    tensor_release(x);
}

static void test_bad_dtype_and_ndims(void **state) {
    (void)state;
    tensor_t *x = RT_VEC(TENSOR_FLOAT32, 1, 2, 3);
    tensor_dtype bad = (tensor_dtype)42;
    RT_EXPECT_ERROR(tensor_sum_dims(x, NULL, 0, false, bad), TENSOR_ERR_DTYPE, "tensor_sum");
    RT_EXPECT_ERROR(tensor_nansum(x, NULL, 0, false, bad), TENSOR_ERR_DTYPE, "tensor_nansum");
    RT_EXPECT_ERROR(tensor_mean(x, NULL, 0, false, bad), TENSOR_ERR_DTYPE, "tensor_mean");
    RT_EXPECT_ERROR(tensor_nanmean(x, NULL, 0, false, bad), TENSOR_ERR_DTYPE, "tensor_nanmean");
    RT_EXPECT_ERROR(tensor_prod(x, NULL, false, bad), TENSOR_ERR_DTYPE, "tensor_prod");
    tensor_t *o = tensor_empty(0, NULL, TENSOR_FLOAT32, tensor_cpu());
    RT_EXPECT_STATUS(tensor_sum_out(o, x, NULL, 0, false, bad), TENSOR_ERR_DTYPE, "tensor_sum_out");
    RT_EXPECT_ERROR(tensor_sum_dims(x, RT_INTS(0), -1, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT,
                    "tensor_sum");
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "ndims");
    RT_EXPECT_ERROR(tensor_amax(x, RT_INTS(0), -2, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_amax");
    RT_EXPECT_ERROR(tensor_var(x, 1, RT_INTS(0), -1, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_var");
    RT_EXPECT_ERROR(tensor_any(x, RT_INTS(0), -1, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_any");
    tensor_release(o);
    tensor_release(x);
}

static void test_sum_out_errors(void **state) {
    (void)state;
    tensor_t *x = rt_tensor(2, RT_I64(2, 3), TENSOR_FLOAT32, (const double[]){1, 2, 3, 4, 5, 6});
    /* An out of another shape is resized to the result's (PyTorch's resize_output): with a
     * warning when it had elements, silently when empty; unless it shares the input's memory. */
    tensor_t *o = tensor_empty(1, RT_I64(3), TENSOR_FLOAT32, tensor_cpu());
    tensor_clear_warning();
    assert_int_equal(tensor_sum_out(o, x, RT_INTS(1), 1, false, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    assert_int_equal(tensor_ndim(o), 1);
    assert_int_equal(tensor_size(o, 0), 2);
    float got[2];
    assert_int_equal(tensor_to_buffer(o, got, sizeof got), TENSOR_OK);
    assert_true(got[0] == 6.0f && got[1] == 15.0f);
    if (strstr(tensor_last_warning(), "tensor_sum_out: An output with one or more elements was resized since it had "
                                      "shape [3], which does not match the required output shape [2]") == NULL)
        fail_msg("warning: \"%s\"", tensor_last_warning());
    tensor_release(o);
    /* keepdim changes the result shape: [2] becomes [2, 1] */
    o = tensor_empty(1, RT_I64(2), TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_sum_out(o, x, RT_INTS(1), 1, true, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    assert_int_equal(tensor_ndim(o), 2);
    assert_int_equal(tensor_size(o, 1), 1);
    tensor_release(o);
    /* all dims: an empty [0] out becomes 0-d, silently */
    tensor_clear_warning();
    o = tensor_empty(1, RT_I64(0), TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_sum_out(o, x, NULL, 0, false, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    assert_int_equal(tensor_ndim(o), 0);
    assert_int_equal(tensor_to_buffer(o, got, sizeof got[0]), TENSOR_OK);
    assert_true(got[0] == 21.0f);
    assert_string_equal(tensor_last_warning(), "");
    tensor_release(o);
    /* an out that is a view of the input cannot be resized */
    o = tensor_narrow(x, 1, 0, 1);
    RT_EXPECT_STATUS(tensor_sum_out(o, x, RT_INTS(1), 1, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_SHAPE,
                     "tensor_sum_out");
    assert_error(TENSOR_ERR_SHAPE, "shares memory with the input: it cannot be resized");
    assert_int_equal(tensor_ndim(o), 2);
    tensor_release(o);
    /* a result too big to allocate: out unchanged */
    tensor_t *one = tensor_ones(1, RT_I64(1), TENSOR_FLOAT64, tensor_cpu());
    tensor_t *huge = tensor_expand(one, 2, RT_I64(INT64_C(1) << 57, 2));
    o = tensor_empty(1, RT_I64(3), TENSOR_FLOAT64, tensor_cpu());
    RT_EXPECT_STATUS(tensor_sum_out(o, huge, RT_INTS(1), 1, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_OUT_OF_MEMORY,
                     "tensor_sum_out");
    assert_int_equal(tensor_size(o, 0), 3);
    tensor_release(o);
    tensor_release(huge);
    tensor_release(one);
    /* wrong dtype: dtype= given and out differs */
    o = tensor_empty(1, RT_I64(2), TENSOR_FLOAT32, tensor_cpu());
    RT_EXPECT_STATUS(tensor_sum_out(o, x, RT_INTS(1), 1, false, TENSOR_FLOAT64), TENSOR_ERR_DTYPE, "tensor_sum_out");
    assert_error(TENSOR_ERR_DTYPE, "float32");
    /* the out tensor is untouched by a failed call: fill it, fail, check */
    tensor_t *fill = tensor_full(1, RT_I64(2), -7, TENSOR_FLOAT32, tensor_cpu());
    tensor_release(o);
    o = tensor_clone(fill);
    RT_EXPECT_STATUS(tensor_sum_out(o, x, RT_INTS(2), 1, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INDEX,
                     "tensor_sum_out");
    assert_true(rt_bitwise_equal(o, fill));
    tensor_release(fill);
    tensor_release(o);
    tensor_release(x);
}

static void test_sum_out_results(void **state) {
    (void)state;
    tensor_t *x = rt_tensor(2, RT_I64(2, 3), TENSOR_FLOAT32, (const double[]){1.5, 2.5, 3, 4, 5, 6});
    /* into a transposed (non-contiguous) out: keepdim [2,1] ... use a [3] out strided by 2 */
    tensor_t *big = tensor_zeros(1, RT_I64(6), TENSOR_FLOAT32, tensor_cpu());
    tensor_t *o = tensor_slice(big, 0, 1, 6, 2); /* elements 1, 3, 5 */
    assert_int_equal(tensor_sum_out(o, x, RT_INTS(0), 1, false, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    double *g = rt_read_f64(big);
    assert_true(g[0] == 0 && g[1] == 5.5 && g[2] == 0 && g[3] == 7.5 && g[4] == 0 && g[5] == 9);
    free(g);
    tensor_release(o);
    tensor_release(big);
    /* a [3,2] out viewed as its transpose [2,3]: sum of a [2,3,4] over dim 2 */
    tensor_t *x3 = rt_make(RT_CONTIG, 3, RT_I64(2, 3, 4), TENSOR_FLOAT32, RT_SMALL, 3);
    tensor_t *base = tensor_zeros(2, RT_I64(3, 2), TENSOR_FLOAT32, tensor_cpu());
    o = tensor_transpose(base, 0, 1);
    assert_int_equal(tensor_sum_out(o, x3, RT_INTS(-1), 1, false, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    tensor_t *ref = tensor_sum(x3, 2, false);
    assert_true(rt_bitwise_equal(o, ref));
    tensor_release(ref);
    tensor_release(o);
    tensor_release(base);
    tensor_release(x3);
    /* DEFAULT dtype: out's dtype decides; float64 out from a float32 input */
    o = tensor_empty(2, RT_I64(2, 1), TENSOR_FLOAT64, tensor_cpu());
    assert_int_equal(tensor_sum_out(o, x, RT_INTS(1), 1, true, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    g = rt_read_f64(o);
    assert_true(g[0] == 7.0 && g[1] == 15.0);
    free(g);
    tensor_release(o);
    /* int32 out from a float32 input: the input is cast first (1 + 2 + 3, 4 + 5 + 6) */
    o = tensor_empty(1, RT_I64(2), TENSOR_INT32, tensor_cpu());
    assert_int_equal(tensor_sum_out(o, x, RT_INTS(1), 1, false, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    int64_t *gi = rt_read_i64(o);
    assert_true(gi[0] == 6 && gi[1] == 15);
    free(gi);
    /* explicit matching dtype */
    assert_int_equal(tensor_sum_out(o, x, RT_INTS(1), 1, false, TENSOR_INT32), TENSOR_OK);
    tensor_release(o);
    /* all dims into a 0-d out; and int input into an int64 out */
    o = tensor_empty(0, NULL, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_sum_out(o, x, NULL, 0, false, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    assert_true(rt_item(o) == 22.0);
    tensor_release(o);
    tensor_t *xi = RT_VEC_I64(TENSOR_INT32, INT32_MAX, 1);
    o = tensor_empty(0, NULL, TENSOR_INT64, tensor_cpu());
    assert_int_equal(tensor_sum_out(o, xi, NULL, 0, false, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    assert_int_equal(rt_item_i64(o), INT64_C(2147483648));
    tensor_release(o);
    tensor_release(xi);
    /* an empty reduction into out writes the identity */
    tensor_t *e = tensor_empty(2, RT_I64(2, 0), TENSOR_FLOAT32, tensor_cpu());
    o = tensor_full(1, RT_I64(2), 9, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_sum_out(o, e, RT_INTS(1), 1, false, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    g = rt_read_f64(o);
    assert_true(g[0] == 0 && g[1] == 0);
    free(g);
    tensor_release(o);
    tensor_release(e);
    tensor_release(x);
}

/* A successful call leaves the input untouched and does not share storage with it. */
static void test_inputs_untouched(void **state) {
    (void)state;
    tensor_t *x = rt_make(RT_CONTIG, 2, RT_I64(5, 7), TENSOR_FLOAT32, RT_WIDE, 11);
    tensor_t *copy = tensor_clone(x);
    tensor_t *r[6];
    r[0] = tensor_sum(x, 0, false);
    r[1] = tensor_mean(x, RT_INTS(1), 1, true, TENSOR_DTYPE_DEFAULT);
    r[2] = tensor_amax(x, NULL, 0, false);
    r[3] = tensor_var(x, 1, RT_INTS(0), 1, false);
    r[4] = tensor_logsumexp(x, RT_INTS(1), 1, false);
    r[5] = tensor_all(x, RT_INTS(0), 0, false); /* a no-op: a new bool tensor */
    for (int i = 0; i < 6; i++) {
        assert_non_null(r[i]);
        assert_false(tensor_shares_storage(r[i], x));
        tensor_release(r[i]);
    }
    assert_true(rt_bitwise_equal(x, copy));
    tensor_release(copy);
    tensor_release(x);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_null_input),
    cmocka_unit_test(test_null_outputs),
    cmocka_unit_test(test_bad_dtype_and_ndims),
    cmocka_unit_test(test_sum_out_errors),
    cmocka_unit_test(test_sum_out_results),
    cmocka_unit_test(test_inputs_untouched),
};

TENSOR_TEST_GROUP(reduce_errors, tests, NULL, NULL)

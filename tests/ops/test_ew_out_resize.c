/* out= of another shape than the result (PyTorch's resize_output): resized to the result's
 * shape, row-major, silently when empty and with a warning when it had elements, its storage
 * grown when too small; every refusal and error leaves it unchanged. */
#include "ew_test_util.h"

/* Huge requests must fail with NULL under ASan too (test_errors.c does the same for runtime). */
const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

static tensor_scalar I(int64_t v) { return tensor_scalar_int(v); }

static void expect_shape(const tensor_t *t, int ndim, const int64_t *sizes) {
    assert_int_equal(tensor_ndim(t), ndim);
    for (int d = 0; d < ndim; d++) assert_int_equal(tensor_size(t, d), sizes[d]);
    assert_true(tensor_is_contiguous(t));
}

/* a [2, 3] = 0..5 and b [3] = 10, 20, 30: a + b = 10, 21, 32, 13, 24, 35 */
static tensor_t *mat(void) {
    return ew_tensor(TENSOR_FLOAT32, 2, (int64_t[]){2, 3}, (double[]){0, 1, 2, 3, 4, 5}, 6);
}
static const double sum_ab[6] = {10, 21, 32, 13, 24, 35};

static void test_empty_out_is_resized_silently(void **state) {
    (void)state;
    tensor_t *a = mat(), *b = ew_vec(TENSOR_FLOAT32, (double[]){10, 20, 30}, 3);
    tensor_t *out = tensor_empty(1, (int64_t[]){0}, TENSOR_FLOAT32, tensor_cpu());
    tensor_clear_warning();
    assert_int_equal(tensor_add_out(out, a, b, I(1)), TENSOR_OK);
    expect_shape(out, 2, (int64_t[]){2, 3});
    ew_expect(out, TENSOR_FLOAT32, sum_ab, 6);
    assert_string_equal(tensor_last_warning(), "");
    /* the same out again: right shape now, nothing to resize */
    assert_int_equal(tensor_mul_out(out, a, b), TENSOR_OK);
    ew_expect(out, TENSOR_FLOAT32, (double[]){0, 20, 60, 30, 80, 150}, 6);
    assert_string_equal(tensor_last_warning(), "");
    tensor_release(a); tensor_release(b); tensor_release(out);
}

static void test_out_with_elements_warns(void **state) {
    (void)state;
    tensor_t *a = mat(), *b = ew_vec(TENSOR_FLOAT32, (double[]){10, 20, 30}, 3);
    /* big enough: the storage stays, only the geometry changes */
    tensor_t *out = tensor_zeros(1, (int64_t[]){7}, TENSOR_FLOAT32, tensor_cpu());
    void *before = tensor_data(out);
    tensor_clear_warning();
    assert_int_equal(tensor_add_out(out, a, b, I(1)), TENSOR_OK);
    expect_shape(out, 2, (int64_t[]){2, 3});
    assert_ptr_equal(tensor_data(out), before);
    ew_expect(out, TENSOR_FLOAT32, sum_ab, 6);
    if (strstr(tensor_last_warning(), "tensor_add_out: An output with one or more elements was resized since it had "
                                      "shape [7], which does not match the required output shape [2, 3]") == NULL)
        fail_msg("warning: \"%s\"", tensor_last_warning());
    tensor_clear_warning();
    assert_string_equal(tensor_last_warning(), "");
    /* too small, and viewed by another tensor: the shared storage grows, the view stays valid */
    tensor_t *small = ew_vec(TENSOR_FLOAT32, (double[]){7, 8}, 2);
    tensor_t *view = tensor_narrow(small, 0, 1, 1);
    assert_int_equal(tensor_add_out(small, a, b, I(1)), TENSOR_OK);
    expect_shape(small, 2, (int64_t[]){2, 3});
    ew_expect(small, TENSOR_FLOAT32, sum_ab, 6);
    ew_expect(view, TENSOR_FLOAT32, (double[]){21}, 1); /* element 1 of the grown storage */
    assert_true(tensor_shares_storage(small, view));
    assert_non_null(strstr(tensor_last_warning(), "had shape [2]"));
    tensor_release(a); tensor_release(b); tensor_release(out); tensor_release(small); tensor_release(view);
}

static void test_layouts_dtypes_and_other_ops(void **state) {
    (void)state;
    tensor_t *a = mat(), *b = ew_vec(TENSOR_FLOAT32, (double[]){10, 20, 30}, 3);
    /* a transposed out of another shape becomes row-major */
    tensor_t *base = tensor_zeros(2, (int64_t[]){2, 4}, TENSOR_FLOAT64, tensor_cpu());
    tensor_t *t = tensor_transpose(base, 0, 1); /* [4, 2], not contiguous */
    assert_int_equal(tensor_add_out(t, a, b, I(1)), TENSOR_OK);
    expect_shape(t, 2, (int64_t[]){2, 3});
    ew_expect(t, TENSOR_FLOAT64, sum_ab, 6); /* dtype kept: float32 results cast to float64 */
    /* same shape, not contiguous: left as it is (strides kept) */
    tensor_t *base2 = tensor_zeros(2, (int64_t[]){3, 2}, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *t2 = tensor_transpose(base2, 0, 1);
    assert_int_equal(tensor_add_out(t2, a, b, I(1)), TENSOR_OK);
    assert_false(tensor_is_contiguous(t2));
    ew_expect(t2, TENSOR_FLOAT32, sum_ab, 6);
    /* unary, where, clamp, div, a 0-d result */
    tensor_t *o = tensor_empty(1, (int64_t[]){5}, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_neg_out(o, a), TENSOR_OK);
    expect_shape(o, 2, (int64_t[]){2, 3});
    ew_expect(o, TENSOR_FLOAT32, (double[]){0, -1, -2, -3, -4, -5}, 6);
    tensor_t *cond = ew_vec(TENSOR_BOOL, (double[]){1, 0, 1}, 3);
    tensor_t *ow = tensor_empty(0, NULL, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_where_out(ow, cond, a, b), TENSOR_OK);
    ew_expect(ow, TENSOR_FLOAT32, (double[]){0, 20, 2, 3, 20, 5}, 6);
    tensor_t *oc = tensor_empty(1, (int64_t[]){1}, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_clamp_out(oc, a, NULL, b), TENSOR_OK);
    ew_expect(oc, TENSOR_FLOAT32, (double[]){0, 1, 2, 3, 4, 5}, 6);
    tensor_t *od = tensor_empty(1, (int64_t[]){9}, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_div_out(od, b, a, TENSOR_ROUNDING_FLOOR), TENSOR_OK);
    ew_expect(od, TENSOR_FLOAT32, (double[]){INFINITY, 20, 15, 3, 5, 6}, 6);
    tensor_t *z1 = ew_scalar0d(TENSOR_FLOAT32, 2), *z2 = ew_scalar0d(TENSOR_FLOAT32, 3);
    tensor_t *o0 = tensor_empty(1, (int64_t[]){3}, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_mul_out(o0, z1, z2), TENSOR_OK);
    assert_int_equal(tensor_ndim(o0), 0);
    ew_expect(o0, TENSOR_FLOAT32, (double[]){6}, 1);
    /* a 0-size result */
    tensor_t *e = tensor_empty(2, (int64_t[]){0, 3}, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_add_out(o0, e, b, I(1)), TENSOR_OK);
    assert_int_equal(tensor_ndim(o0), 2);
    assert_int_equal(tensor_numel(o0), 0);
    tensor_release(a); tensor_release(b); tensor_release(base); tensor_release(t); tensor_release(base2);
    tensor_release(t2); tensor_release(o); tensor_release(cond); tensor_release(ow); tensor_release(oc);
    tensor_release(od); tensor_release(z1); tensor_release(z2); tensor_release(o0); tensor_release(e);
}

/* Every failure leaves out as it was: shape, storage, values. */
static void expect_untouched(const tensor_t *out, void *data) {
    expect_shape(out, 1, (int64_t[]){2});
    assert_ptr_equal(tensor_data(out), data);
    ew_expect(out, tensor_get_dtype(out), (double[]){7, 8}, 2);
}

static float blob[2] = {7, 8};

static void test_refusals_and_errors(void **state) {
    (void)state;
    tensor_t *a = mat(), *b = ew_vec(TENSOR_FLOAT32, (double[]){10, 20, 30}, 3);
    tensor_t *out = ew_vec(TENSOR_FLOAT32, (double[]){7, 8}, 2);
    void *data = tensor_data(out);
    /* inputs that do not broadcast: the shape error, nothing resized */
    tensor_t *c = ew_vec(TENSOR_FLOAT32, (double[]){1, 2}, 2);
    assert_int_equal(tensor_add_out(out, a, c, I(1)), TENSOR_ERR_SHAPE);
    assert_error(TENSOR_ERR_SHAPE, "must match the size of tensor b (2)");
    expect_untouched(out, data);
    /* a result dtype out cannot take */
    tensor_t *iout = ew_vec(TENSOR_INT32, (double[]){7, 8}, 2);
    void *idata = tensor_data(iout);
    assert_int_equal(tensor_add_out(iout, a, b, I(1)), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_add_out: result type float32 can't be cast to the desired output type int32");
    expect_untouched(iout, idata);
    /* out is an input (or shares its storage) */
    tensor_t *x32 = tensor_zeros(2, (int64_t[]){3, 2}, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_add_out(out, out, x32, I(1)), TENSOR_ERR_SHAPE);
    assert_error(TENSOR_ERR_SHAPE, "tensor_add_out: argument 'out' has shape [2], not the result shape "
                 "[3, 2], and shares memory with input 'a': it cannot be resized");
    tensor_release(x32);
    expect_untouched(out, data);
    tensor_t *big = tensor_zeros(1, (int64_t[]){8}, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *part = tensor_narrow(big, 0, 0, 2), *rest = tensor_narrow(big, 0, 2, 3);
    assert_int_equal(tensor_mul_out(part, a, rest), TENSOR_ERR_SHAPE);
    assert_error(TENSOR_ERR_SHAPE, "shares memory with input 'b'");
    assert_int_equal(tensor_ndim(part), 1);
    /* caller memory (tensor_from_blob) that is too small: not resizable */
    tensor_t *bl = tensor_from_blob(blob, 1, (int64_t[]){2}, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_int_equal(tensor_add_out(bl, a, b, I(1)), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_add_out: Trying to resize storage that is not resizable");
    expect_untouched(bl, blob);
    /* ... but a shape that fits it is fine */
    tensor_t *one = ew_vec(TENSOR_FLOAT32, (double[]){1}, 1);
    tensor_t *z = ew_scalar0d(TENSOR_FLOAT32, 5);
    assert_int_equal(tensor_add_out(bl, one, z, I(1)), TENSOR_OK);
    expect_shape(bl, 1, (int64_t[]){1});
    assert_true(blob[0] == 6.0f && blob[1] == 8.0f);
    /* results too big to allocate, or whose byte count overflows: out unchanged */
    tensor_t *huge = tensor_expand(one, 1, (int64_t[]){INT64_C(1) << 57});
    tensor_t *huge64 = tensor_cast(one, TENSOR_FLOAT64);
    tensor_t *hugeo = tensor_expand(huge64, 1, (int64_t[]){INT64_C(1) << 61});
    tensor_t *o64 = ew_vec(TENSOR_FLOAT64, (double[]){7, 8}, 2);
    void *d64 = tensor_data(o64);
    assert_int_equal(tensor_add_out(o64, huge, one, I(1)), TENSOR_ERR_OUT_OF_MEMORY);
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "tensor_add_out: cannot allocate");
    expect_untouched(o64, d64);
    assert_int_equal(tensor_neg_out(o64, hugeo), TENSOR_ERR_OVERFLOW);
    assert_error(TENSOR_ERR_OVERFLOW, "tensor_neg_out:");
    expect_untouched(o64, d64);
    /* in place never resizes */
    assert_int_equal(tensor_add_(out, a, I(1)), TENSOR_ERR_SHAPE);
    expect_untouched(out, data);
    tensor_release(a); tensor_release(b); tensor_release(out); tensor_release(c); tensor_release(iout);
    tensor_release(big); tensor_release(part); tensor_release(rest); tensor_release(bl); tensor_release(one);
    tensor_release(z); tensor_release(huge); tensor_release(huge64); tensor_release(hugeo); tensor_release(o64);
}

/* A kernel error after the resize (integer division by zero) gives out its old shape back:
 * a failing call never changes out's shape (found by fuzz_elementwise). */
static void test_kernel_error_keeps_out_shape(void **state) {
    (void)state;
    tensor_t *a = ew_ivec(TENSOR_INT64, (const int64_t[]){1, 2, 3}, 3), *b = ew_ivec(TENSOR_INT64, (const int64_t[]){1, 0, 1}, 3);
    static const tensor_rounding_mode modes[2] = {TENSOR_ROUNDING_FLOOR, TENSOR_ROUNDING_TRUNC};
    for (int k = 0; k < 2; k++) {
        /* smaller (its storage grows) and larger than the result, with elements or empty */
        static const int64_t sizes[3] = {1, 5, 0};
        for (int j = 0; j < 3; j++) {
            tensor_t *out = tensor_zeros(2, (int64_t[]){sizes[j], 1}, TENSOR_INT64, tensor_cpu());
            assert_int_equal(tensor_div_out(out, a, b, modes[k]), TENSOR_ERR_INVALID_ARGUMENT);
            assert_error(TENSOR_ERR_INVALID_ARGUMENT, "ZeroDivisionError");
            assert_int_equal(tensor_ndim(out), 2);
            assert_int_equal(tensor_size(out, 0), sizes[j]);
            assert_int_equal(tensor_size(out, 1), 1);
            assert_int_equal(tensor_stride(out, 0), 1);
            tensor_release(out);
        }
    }
    tensor_t *out = tensor_zeros(1, (int64_t[]){2}, TENSOR_INT64, tensor_cpu());
    assert_int_equal(tensor_remainder_out(out, a, b), TENSOR_ERR_INVALID_ARGUMENT);
    expect_shape(out, 1, (int64_t[]){2});
    /* the same out then works */
    assert_int_equal(tensor_add_out(out, a, b, I(1)), TENSOR_OK);
    expect_shape(out, 1, (int64_t[]){3});
    tensor_release(out); tensor_release(a); tensor_release(b);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_empty_out_is_resized_silently),
    cmocka_unit_test(test_out_with_elements_warns),
    cmocka_unit_test(test_layouts_dtypes_and_other_ops),
    cmocka_unit_test(test_refusals_and_errors),
    cmocka_unit_test(test_kernel_error_keeps_out_shape),
};

TENSOR_TEST_GROUP(ew_out_resize, tests, NULL, NULL)

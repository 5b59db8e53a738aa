/* tensor_resize_ (PyTorch's t.resize_): geometry, storage growth shared by views, offsets,
 * no-ops, and every error path leaving the tensor unchanged. Huge requests rely on
 * test_errors.c's ASan option allocator_may_return_null=1 (same executable). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

static tensor_t *iota_f32(int64_t n) {
    float *v = malloc((size_t)n * sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = (float)i;
    tensor_t *t = tensor_from_buffer(v, 1, &n, TENSOR_FLOAT32, tensor_cpu());
    free(v);
    assert_non_null(t);
    return t;
}

/* the first n elements of t in logical order */
static void expect_prefix(const tensor_t *t, const float *want, int64_t n) {
    int64_t m = tensor_numel(t);
    float *got = malloc((size_t)(m > 0 ? m : 1) * sizeof *got);
    assert_int_equal(tensor_to_buffer(t, got, (size_t)m * sizeof *got), TENSOR_OK);
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i]) fail_msg("element %lld: got %g, want %g", (long long)i, got[i], want[i]);
    free(got);
}

static void expect_geometry(const tensor_t *t, int ndim, const int64_t *sizes, const int64_t *strides) {
    assert_int_equal(tensor_ndim(t), ndim);
    for (int d = 0; d < ndim; d++) {
        assert_int_equal(tensor_size(t, d), sizes[d]);
        assert_int_equal(tensor_stride(t, d), strides[d]);
    }
}

static void test_shrink_and_reshape_keep_storage(void **state) {
    (void)state;
    tensor_t *t = iota_f32(6);
    void *data = tensor_data(t);
    assert_int_equal(tensor_resize_(t, 2, (int64_t[]){2, 3}), TENSOR_OK);
    expect_geometry(t, 2, (int64_t[]){2, 3}, (int64_t[]){3, 1});
    assert_ptr_equal(tensor_data(t), data);
    expect_prefix(t, (float[]){0, 1, 2, 3, 4, 5}, 6);
    assert_int_equal(tensor_resize_(t, 1, (int64_t[]){4}), TENSOR_OK);
    expect_geometry(t, 1, (int64_t[]){4}, (int64_t[]){1});
    assert_ptr_equal(tensor_data(t), data);
    assert_int_equal(tensor_resize_(t, 0, NULL), TENSOR_OK); /* a scalar: element 0 */
    assert_int_equal(tensor_ndim(t), 0);
    expect_prefix(t, (float[]){0}, 1);
    assert_int_equal(tensor_resize_(t, 2, (int64_t[]){3, 0}), TENSOR_OK);
    assert_int_equal(tensor_numel(t), 0);
    assert_int_equal(tensor_resize_(t, 1, (int64_t[]){6}), TENSOR_OK); /* the old values are still there */
    assert_ptr_equal(tensor_data(t), data);
    expect_prefix(t, (float[]){0, 1, 2, 3, 4, 5}, 6);
    tensor_release(t);
}

static void test_same_shape_is_a_noop(void **state) {
    (void)state;
    tensor_t *t = iota_f32(6);
    tensor_t *m = tensor_view(t, 2, (int64_t[]){2, 3});
    tensor_t *tr = tensor_transpose(m, 0, 1); /* [3, 2], strides [1, 3] */
    assert_int_equal(tensor_resize_(tr, 2, (int64_t[]){3, 2}), TENSOR_OK);
    expect_geometry(tr, 2, (int64_t[]){3, 2}, (int64_t[]){1, 3});
    /* another shape: row-major strides, same elements of the storage from the offset */
    assert_int_equal(tensor_resize_(tr, 2, (int64_t[]){2, 3}), TENSOR_OK);
    expect_geometry(tr, 2, (int64_t[]){2, 3}, (int64_t[]){3, 1});
    expect_prefix(tr, (float[]){0, 1, 2, 3, 4, 5}, 6);
    tensor_release(t); tensor_release(m); tensor_release(tr);
}

static void test_grow_is_shared_by_views(void **state) {
    (void)state;
    tensor_t *t = iota_f32(4);
    tensor_t *view = tensor_narrow(t, 0, 1, 2); /* offset 1: 1, 2 */
    void *old = tensor_data(t);
    assert_int_equal(tensor_resize_(t, 2, (int64_t[]){100, 1000}), TENSOR_OK);
    expect_geometry(t, 2, (int64_t[]){100, 1000}, (int64_t[]){1000, 1});
    assert_ptr_not_equal(tensor_data(t), old);
    expect_prefix(t, (float[]){0, 1, 2, 3}, 4); /* the old bytes moved along */
    assert_true(tensor_shares_storage(t, view));
    expect_prefix(view, (float[]){1, 2}, 2);     /* the view reads the new block */
    assert_ptr_equal(tensor_data(view), (char *)tensor_data(t) + 4);
    /* writes through one are seen by the other */
    tensor_t *two = tensor_full(1, (int64_t[]){2}, 9, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_copy_(view, two), TENSOR_OK);
    expect_prefix(t, (float[]){0, 9, 9, 3}, 4);
    /* a view with an offset grows its storage to offset + numel */
    assert_int_equal(tensor_resize_(view, 1, (int64_t[]){100000}), TENSOR_OK);
    expect_prefix(view, (float[]){9, 9, 3}, 3);
    expect_prefix(t, (float[]){0, 9, 9, 3}, 4);
    tensor_release(t); tensor_release(view); tensor_release(two);
}

static void test_empty_result_never_grows(void **state) {
    (void)state;
    tensor_t *t = iota_f32(8);
    tensor_t *v = tensor_narrow(t, 0, 7, 1); /* offset 7 of 8 */
    void *data = tensor_data(t);
    assert_int_equal(tensor_resize_(v, 2, (int64_t[]){0, INT64_C(1) << 40}), TENSOR_OK);
    assert_int_equal(tensor_numel(v), 0);
    assert_ptr_equal(tensor_data(t), data);
    tensor_release(t); tensor_release(v);
}

static float blob[4] = {1, 2, 3, 4};

static void test_errors_leave_it_unchanged(void **state) {
    (void)state;
    tensor_t *t = iota_f32(3);
    void *data = tensor_data(t);
    assert_int_equal(tensor_resize_(NULL, 1, (int64_t[]){1}), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_resize_: argument 't' is NULL");
    assert_int_equal(tensor_resize_(t, 1, (int64_t[]){-1}), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_resize_: negative size -1 at dim 0");
    assert_int_equal(tensor_resize_(t, TENSOR_MAX_DIMS + 1, (int64_t[TENSOR_MAX_DIMS + 1]){0}), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_resize_: ndim 17");
    assert_int_equal(tensor_resize_(t, 1, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_resize_: argument 'sizes' is NULL");
    assert_int_equal(tensor_resize_(t, 2, (int64_t[]){INT64_C(1) << 40, INT64_C(1) << 40}), TENSOR_ERR_OVERFLOW);
    assert_error(TENSOR_ERR_OVERFLOW, "tensor_resize_:");
    assert_int_equal(tensor_resize_(t, 1, (int64_t[]){INT64_C(1) << 62}), TENSOR_ERR_OVERFLOW); /* bytes */
    assert_error(TENSOR_ERR_OVERFLOW, "tensor_resize_: 4611686018427387904 elements of float32");
    assert_int_equal(tensor_resize_(t, 1, (int64_t[]){INT64_C(1) << 58}), TENSOR_ERR_OUT_OF_MEMORY);
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "tensor_resize_: cannot allocate");
    expect_geometry(t, 1, (int64_t[]){3}, (int64_t[]){1});
    assert_ptr_equal(tensor_data(t), data);
    expect_prefix(t, (float[]){0, 1, 2}, 3);
    /* caller memory: any shape that fits, never a new block */
    tensor_t *b = tensor_from_blob(blob, 1, (int64_t[]){4}, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_int_equal(tensor_resize_(b, 2, (int64_t[]){2, 2}), TENSOR_OK);
    assert_int_equal(tensor_resize_(b, 1, (int64_t[]){5}), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_resize_: Trying to resize storage that is not resizable");
    expect_geometry(b, 2, (int64_t[]){2, 2}, (int64_t[]){2, 1});
    assert_ptr_equal(tensor_data(b), blob);
    tensor_release(t); tensor_release(b);
}

static void test_warning_slot(void **state) {
    (void)state;
    tensor_clear_warning();
    assert_string_equal(tensor_last_warning(), "");
    tensor_t *t = iota_f32(3);
    assert_int_equal(tensor_resize_(t, 1, (int64_t[]){5}), TENSOR_OK);
    assert_string_equal(tensor_last_warning(), ""); /* resize_ itself never warns */
    tensor_release(t);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_shrink_and_reshape_keep_storage), cmocka_unit_test(test_same_shape_is_a_noop),
    cmocka_unit_test(test_grow_is_shared_by_views),          cmocka_unit_test(test_empty_result_never_grows),
    cmocka_unit_test(test_errors_leave_it_unchanged),        cmocka_unit_test(test_warning_slot),
};

TENSOR_TEST_GROUP(resize, tests, NULL, NULL)

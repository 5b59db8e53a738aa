/* An output that shares memory with an input (other than element for element, in place), or
 * with itself, is refused for every layout, dense or not; views that share a range but no
 * element are accepted and compute the right values. */
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "ew_test_util.h"

static tensor_scalar one(void) { return tensor_scalar_int(1); }

/* A [rows, cols] float32 tensor holding 0, 1, 2, ... in row-major order. */
static tensor_t *iota(int64_t rows, int64_t cols) {
    tensor_t *t = tensor_arange(0, (double)(rows * cols), 1, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(t);
    tensor_t *v = tensor_view(t, 2, (int64_t[]){rows, cols});
    assert_non_null(v);
    tensor_release(t);
    return v;
}

static float at(const tensor_t *base, int64_t i) { return ((const float *)tensor_data(base))[i]; }

static void expect_overlap_error(tensor_status st) {
    assert_int_equal(st, TENSOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(tensor_last_error(), "to a single memory location"));
}

/* sq: a [4, 4] view of a [4, 6] tensor (strides [6, 1], not dense); sq += sq^T would read
 * elements it already wrote. */
static void test_transpose_of_non_dense_view(void **state) {
    (void)state;
    tensor_t *base = iota(4, 6);
    tensor_t *sq = tensor_narrow(base, 1, 0, 4);
    tensor_t *sqt = tensor_transpose(sq, 0, 1);
    assert_non_null(sqt);
    expect_overlap_error(tensor_add_(sq, sqt, one()));
    for (int64_t i = 0; i < 24; i++) assert_true(at(base, i) == (float)i); /* nothing written */
    /* the same through out= */
    expect_overlap_error(tensor_add_out(sq, sqt, sqt, one()));
    /* a copy into another tensor is fine */
    tensor_t *r = tensor_add(sq, sqt, one());
    assert_non_null(r);
    tensor_release(r);
    tensor_release(sqt);
    tensor_release(sq);
    tensor_release(base);
}

/* sum_out into a non-dense column of its own input. */
static void test_reduction_into_own_column(void **state) {
    (void)state;
    tensor_t *base = iota(4, 6);
    tensor_t *col = tensor_narrow(base, 1, 2, 1); /* [4, 1], stride 6: not dense */
    expect_overlap_error(tensor_sum_out(col, base, (int[]){1}, 1, true, TENSOR_FLOAT32));
    for (int64_t i = 0; i < 24; i++) assert_true(at(base, i) == (float)i);
    /* into a column of another tensor: fine, and right */
    tensor_t *other = iota(4, 6);
    tensor_t *ocol = tensor_narrow(other, 1, 2, 1);
    assert_int_equal(tensor_sum_out(ocol, base, (int[]){1}, 1, true, TENSOR_FLOAT32), TENSOR_OK);
    for (int64_t r = 0; r < 4; r++) assert_true(at(other, r * 6 + 2) == (float)(36 * r + 15));
    tensor_release(ocol);
    tensor_release(other);
    tensor_release(col);
    tensor_release(base);
}

/* Views that share a byte range but no element: accepted, computed right. */
static void test_disjoint_interleaved_views(void **state) {
    (void)state;
    /* even and odd columns: the gcd test */
    tensor_t *base = iota(6, 8);
    tensor_t *even = tensor_slice(base, 1, 0, 8, 2), *odd = tensor_slice(base, 1, 1, 8, 2);
    assert_int_equal(tensor_add_out(even, odd, odd, one()), TENSOR_OK);
    for (int64_t r = 0; r < 6; r++)
        for (int64_t c = 0; c < 8; c += 2) assert_true(at(base, r * 8 + c) == 2.0f * (float)(r * 8 + c + 1));
    tensor_release(even);
    tensor_release(odd);
    tensor_release(base);
    /* left and right column blocks of a large matrix: decided run by run */
    base = iota(1024, 2048);
    tensor_t *left = tensor_narrow(base, 1, 0, 1024), *right = tensor_narrow(base, 1, 1024, 1024);
    assert_int_equal(tensor_add_out(left, right, right, one()), TENSOR_OK);
    assert_true(at(base, 5 * 2048 + 7) == 2.0f * (float)(5 * 2048 + 7 + 1024));
    /* overlapping blocks are refused */
    tensor_t *mid = tensor_narrow(base, 1, 512, 1024);
    expect_overlap_error(tensor_add_out(left, mid, mid, one()));
    /* a transposed non-dense block that does not meet the output: accepted */
    tensor_t *corner = tensor_narrow(right, 0, 0, 1024); /* the right block's rows: [1024, 1024] */
    tensor_t *cornert = tensor_transpose(corner, 0, 1);
    assert_int_equal(tensor_copy_(left, cornert), TENSOR_OK);
    assert_true(at(base, 3 * 2048 + 5) == at(base, 5 * 2048 + 1024 + 3));
    tensor_release(cornert);
    tensor_release(corner);
    tensor_release(mid);
    tensor_release(left);
    tensor_release(right);
    tensor_release(base);
}

/* Rows that share memory with each other: strides [1, 1] over caller memory. */
static void test_internal_overlap_of_output(void **state) {
    (void)state;
    float mem[16];
    for (int i = 0; i < 16; i++) mem[i] = (float)i;
    tensor_t *win = tensor_from_blob(mem, 2, (int64_t[]){3, 3}, (int64_t[]){1, 1}, TENSOR_FLOAT32, tensor_cpu(), NULL,
                                     NULL);
    assert_non_null(win);
    tensor_t *src = tensor_zeros(2, (int64_t[]){3, 3}, TENSOR_FLOAT32, tensor_cpu());
    expect_overlap_error(tensor_copy_(win, src));
    assert_true(mem[2] == 2.0f);
    /* read-only use of such a view is fine: the sliding-window sums are 3, 6, 9 */
    tensor_t *s = tensor_sum_dims(win, (int[]){1}, 1, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(s);
    ew_expect(s, TENSOR_FLOAT32, (double[]){3, 6, 9}, 3);
    /* strides that look irregular but never repeat an address: accepted */
    tensor_t *spread = tensor_from_blob(mem, 2, (int64_t[]){2, 3}, (int64_t[]){1, 5}, TENSOR_FLOAT32, tensor_cpu(), NULL,
                                        NULL);
    tensor_t *z = tensor_zeros(2, (int64_t[]){2, 3}, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_copy_(spread, z), TENSOR_OK);
    assert_true(mem[0] == 0.0f && mem[1] == 0.0f && mem[5] == 0.0f && mem[11] == 0.0f && mem[2] == 2.0f);
    tensor_release(z);
    tensor_release(spread);
    tensor_release(s);
    tensor_release(src);
    tensor_release(win);
}

/* In place (the same elements) stays allowed for dense and non-dense views. */
static void test_in_place_still_allowed(void **state) {
    (void)state;
    tensor_t *base = iota(4, 6);
    tensor_t *sq = tensor_narrow(base, 1, 1, 4);
    assert_int_equal(tensor_add_(sq, sq, one()), TENSOR_OK);
    assert_true(at(base, 6 + 1) == 14.0f && at(base, 0) == 0.0f);
    tensor_release(sq);
    tensor_release(base);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_transpose_of_non_dense_view), cmocka_unit_test(test_reduction_into_own_column),
    cmocka_unit_test(test_disjoint_interleaved_views),  cmocka_unit_test(test_internal_overlap_of_output),
    cmocka_unit_test(test_in_place_still_allowed),
};

TENSOR_TEST_GROUP(overlap, tests, NULL, NULL)

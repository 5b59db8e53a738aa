/* Reduction iterators: the design's worked numbers (the
 * seed notes), keepdim, allocated and given outputs, two inputs, values + indices. */
#include "iter_test_util.h"
#include "iterator/iter_internal.h"

static tensor_iter_t *reduce(tensor_t *out, const tensor_t *in, const int *dims, int ndims, bool keepdim) {
    tensor_iter_t *it = tensor_iter_reduce_new("test_sum", out, in, dims, ndims, keepdim, TENSOR_FLOAT32);
    if (it == NULL) fail_msg("reduce: %s", tensor_last_error());
    return it;
}

/* float32 [16,128,64,128] contiguous, sum over dim 1. */
static void test_seed_16x128x64x128(void **state) {
    (void)state;
    tensor_t *x = itest_huge(4, I64(16, 128, 64, 128), TENSOR_FLOAT32);
    tensor_iter_t *it = reduce(NULL, x, INTS(1), 1, false);
    itest_assert_perm(it, INTS(1, 3, 2, 0), 4);
    assert_iter_shape(it, 128, 8192, 16);
    assert_iter_strides(it, 1, 32768, 4, 4194304);
    assert_iter_strides(it, 0, 0, 4, 32768);
    assert_int_equal(tensor_iter_num_reduce_dims(it), 1);
    assert_int_equal(tensor_iter_num_output_elements(it), 131072);
    assert_true(tensor_iter_is_dim_reduced(it, 0));
    assert_false(tensor_iter_is_dim_reduced(it, 1));
    assert_false(tensor_iter_is_dim_reduced(it, 2));
    assert_true(tensor_iter_is_reduction(it));
    assert_true(tensor_iter_can_use_32bit_indexing(it));
    /* Computation dim 1 is logical dims 3 and 2 merged. */
    assert_int_equal(it->perm_groups[0], 0);
    assert_int_equal(it->perm_groups[1], 1);
    assert_int_equal(it->perm_groups[2], 3);
    assert_int_equal(it->perm_groups[3], 4);
    tensor_t *out = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_sizes(out), tensor_ndim(out), I64(16, 64, 128), 3, "out sizes");
    itest_assert_i64(tensor_strides(out), 3, I64(8192, 128, 1), 3, "out strides");
    tensor_release(out);
    tensor_iter_free(it);

    /* The same with an output given in the keepdim shape (as ops/ allocates it). */
    tensor_t *given = itest_empty(4, I64(16, 1, 64, 128), TENSOR_FLOAT32);
    it = reduce(given, x, INTS(1), 1, false);
    assert_iter_shape(it, 128, 8192, 16);
    assert_iter_strides(it, 0, 0, 4, 32768);
    assert_iter_strides(it, 1, 32768, 4, 4194304);
    assert_false(it->operands[0].is_allocated);
    out = tensor_iter_output(it, 0);
    assert_ptr_equal(out, given);
    tensor_release(out);
    tensor_iter_free(it);
    /* ... and in the squeezed shape, with a negative dim. */
    tensor_t *sq = itest_empty(3, I64(16, 64, 128), TENSOR_FLOAT32);
    it = reduce(sq, x, INTS(-3), 1, false);
    assert_iter_shape(it, 128, 8192, 16);
    assert_iter_strides(it, 0, 0, 4, 32768);
    tensor_iter_free(it);
    tensor_release(sq);
    tensor_release(given);
    tensor_release(x);
}

static void test_seed_8x32x64x128(void **state) {
    (void)state;
    tensor_t *x = itest_huge(4, I64(8, 32, 64, 128), TENSOR_FLOAT32);
    tensor_iter_t *it = reduce(NULL, x, INTS(1), 1, true);
    itest_assert_perm(it, INTS(1, 3, 2, 0), 4);
    assert_iter_shape(it, 32, 8192, 8);
    assert_iter_strides(it, 1, 32768, 4, 1048576);
    assert_iter_strides(it, 0, 0, 4, 32768);
    tensor_t *out = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_sizes(out), tensor_ndim(out), I64(8, 1, 64, 128), 4, "keepdim out sizes");
    tensor_release(out);
    tensor_iter_free(it);
    tensor_release(x);
}

/* Reduction layouts and the permutation each one gets. */
static void test_internals_table(void **state) {
    (void)state;
    tensor_t *sq = itest_huge(2, I64(4096, 4096), TENSOR_FLOAT32);
    tensor_iter_t *it = reduce(NULL, sq, INTS(1), 1, false);
    itest_assert_perm(it, INTS(1, 0), 2);
    assert_iter_shape(it, 4096, 4096);
    assert_iter_strides(it, 0, 0, 4);
    assert_iter_strides(it, 1, 4, 16384);
    tensor_iter_free(it);
    it = reduce(NULL, sq, INTS(0), 1, false);
    itest_assert_perm(it, INTS(0, 1), 2);
    assert_iter_shape(it, 4096, 4096);
    assert_iter_strides(it, 0, 0, 4);
    assert_iter_strides(it, 1, 16384, 4);
    tensor_iter_free(it);
    tensor_release(sq);

    tensor_t *x = itest_huge(4, I64(16, 128, 64, 128), TENSOR_FLOAT32);
    it = reduce(NULL, x, INTS(0, 2), 2, false);
    itest_assert_perm(it, INTS(2, 0, 3, 1), 4);
    assert_iter_shape(it, 64, 16, 128, 128);
    assert_iter_strides(it, 0, 0, 0, 4, 512);
    assert_iter_strides(it, 1, 512, 4194304, 4, 32768);
    assert_int_equal(tensor_iter_num_reduce_dims(it), 2);
    assert_int_equal(tensor_iter_num_output_elements(it), 128 * 128);
    tensor_iter_free(it);
    tensor_release(x);

    /* NCHW 8x64x32x32 stored channels-last, sum over (2, 3). */
    tensor_t *nhwc = itest_huge(4, I64(8, 32, 32, 64), TENSOR_FLOAT32);
    tensor_t *nchw = tensor_permute(nhwc, INTS(0, 3, 1, 2));
    it = reduce(NULL, nchw, INTS(2, 3), 2, false);
    itest_assert_perm(it, INTS(3, 2, 1, 0), 4);
    assert_iter_shape(it, 1024, 64, 8);
    assert_iter_strides(it, 0, 0, 4, 256);
    assert_iter_strides(it, 1, 256, 4, 262144);
    tensor_iter_free(it);
    tensor_release(nchw);
    tensor_release(nhwc);

    tensor_t *v = itest_huge(1, I64(16777216), TENSOR_FLOAT32);
    it = reduce(NULL, v, NULL, 0, false);
    itest_assert_perm(it, INTS(0), 1);
    assert_iter_shape(it, 16777216);
    assert_iter_strides(it, 0, 0);
    assert_iter_strides(it, 1, 4);
    assert_int_equal(tensor_iter_num_output_elements(it), 1);
    tensor_t *out = tensor_iter_output(it, 0);
    assert_int_equal(tensor_ndim(out), 0);
    tensor_release(out);
    tensor_iter_free(it);
    tensor_release(v);
}

static void test_permuted_input_allocated_output(void **state) {
    (void)state;
    tensor_t *base = itest_empty(3, I64(5, 4, 3), TENSOR_FLOAT32);
    tensor_t *x = tensor_permute(base, INTS(2, 0, 1)); /* [3,5,4] strides [1,12,3] */
    tensor_iter_t *it = reduce(NULL, x, INTS(1), 1, false);
    itest_assert_perm(it, INTS(1, 0, 2), 3);
    assert_iter_shape(it, 5, 12);
    assert_iter_strides(it, 0, 0, 4);
    assert_iter_strides(it, 1, 48, 4);
    tensor_t *out = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_sizes(out), 2, I64(3, 4), 2, "out sizes");
    itest_assert_i64(tensor_strides(out), 2, I64(1, 3), 2, "out follows the input's layout");
    tensor_release(out);
    tensor_iter_free(it);
    tensor_release(x);
    tensor_release(base);
}

static void test_zero_dim_all_dims_size_one(void **state) {
    (void)state;
    /* 0-d input: dims 0 and -1 are valid and reduce nothing; the output is 0-d. */
    tensor_t *s = itest_empty(0, NULL, TENSOR_FLOAT32);
    for (int k = 0; k < 2; k++) {
        int dim = k == 0 ? 0 : -1;
        tensor_iter_t *it = reduce(NULL, s, &dim, 1, true);
        assert_int_equal(tensor_iter_ndim(it), 0);
        assert_int_equal(tensor_iter_numel(it), 1);
        assert_int_equal(tensor_iter_num_reduce_dims(it), 0);
        assert_int_equal(tensor_iter_num_output_elements(it), 1);
        tensor_t *out = tensor_iter_output(it, 0);
        assert_int_equal(tensor_ndim(out), 0);
        tensor_release(out);
        tensor_iter_free(it);
    }
    tensor_release(s);
    /* All dims (ndims 0), keepdim: [1,1]. */
    tensor_t *m = itest_empty(2, I64(3, 4), TENSOR_FLOAT32);
    tensor_iter_t *it = reduce(NULL, m, NULL, 0, true);
    assert_iter_shape(it, 12);
    assert_iter_strides(it, 0, 0);
    assert_int_equal(tensor_iter_num_reduce_dims(it), 1);
    tensor_t *out = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_sizes(out), tensor_ndim(out), I64(1, 1), 2, "keepdim all");
    tensor_release(out);
    tensor_iter_free(it);
    tensor_release(m);
    /* A size-1 reduced dim reduces nothing: everything coalesces into the kept dims. */
    tensor_t *one = itest_empty(3, I64(3, 1, 4), TENSOR_FLOAT32);
    it = reduce(NULL, one, INTS(1), 1, false);
    assert_iter_shape(it, 12);
    assert_iter_strides(it, 0, 4);
    assert_int_equal(tensor_iter_num_reduce_dims(it), 0);
    assert_int_equal(tensor_iter_num_output_elements(it), 12);
    tensor_iter_free(it);
    tensor_release(one);
    /* An empty reduced dim: no elements, output of 3, PyTorch's num_output_elements 0. */
    tensor_t *e = itest_empty(2, I64(3, 0), TENSOR_FLOAT32);
    it = reduce(NULL, e, INTS(1), 1, false);
    assert_int_equal(tensor_iter_numel(it), 0);
    assert_int_equal(tensor_iter_num_reduce_dims(it), 1);
    out = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_sizes(out), tensor_ndim(out), I64(3), 1, "out of an empty reduction");
    tensor_release(out);
    tensor_iter_free(it);
    tensor_release(e);
}

/* sum(a * b) over dim 0 with b broadcast; and an expanded input. */
static void test_two_inputs(void **state) {
    (void)state;
    tensor_t *a = itest_empty(2, I64(4, 5), TENSOR_FLOAT32), *b = itest_empty(1, I64(5), TENSOR_FLOAT16);
    tensor_iter_config *cfg = tensor_iter_config_new("test_dot");
    tensor_iter_config_add_output_dtype(cfg, NULL, TENSOR_FLOAT32);
    tensor_iter_config_add_input(cfg, a);
    tensor_iter_config_add_input(cfg, b);
    tensor_iter_config_enable(cfg, TENSOR_ITER_PROMOTE_INPUTS);
    tensor_iter_config_reduce_dims(cfg, INTS(0), 1, false);
    tensor_iter_t *it = tensor_iter_build(cfg);
    assert_non_null(it);
    itest_assert_perm(it, INTS(0, 1), 2);
    assert_iter_shape(it, 4, 5);
    assert_iter_strides(it, 0, 0, 4);
    assert_iter_strides(it, 1, 20, 4);
    assert_iter_strides(it, 2, 0, 2);
    assert_int_equal(tensor_iter_common_dtype(it), TENSOR_FLOAT32);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    tensor_release(a);
    tensor_release(b);
}

/* max with indices: values (input dtype) + indices (int64), same shape. */
static void test_values_and_indices(void **state) {
    (void)state;
    tensor_t *x = itest_empty(2, I64(6, 7), TENSOR_FLOAT16);
    tensor_t *idx = itest_empty(2, I64(6, 1), TENSOR_INT64);
    tensor_iter_config *cfg = tensor_iter_config_new("test_max");
    tensor_iter_config_add_output_dtype(cfg, NULL, TENSOR_FLOAT16);
    tensor_iter_config_add_output_dtype(cfg, idx, TENSOR_INT64);
    tensor_iter_config_add_input(cfg, x);
    tensor_iter_config_reduce_dims(cfg, INTS(1), 1, true);
    tensor_iter_t *it = tensor_iter_build(cfg);
    if (it == NULL) fail_msg("%s", tensor_last_error());
    assert_iter_shape(it, 7, 6);
    assert_iter_strides(it, 0, 0, 2);
    assert_iter_strides(it, 1, 0, 8);
    assert_iter_strides(it, 2, 2, 14);
    assert_int_equal(tensor_iter_num_reduce_dims(it), 1);
    assert_true(tensor_iter_is_dim_reduced(it, 0));
    tensor_t *v = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_sizes(v), tensor_ndim(v), I64(6, 1), 2, "values");
    assert_int_equal(tensor_get_dtype(v), TENSOR_FLOAT16);
    tensor_release(v);
    assert_int_equal(tensor_iter_dtype(it, 1), TENSOR_INT64);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    tensor_release(idx);
    tensor_release(x);
}

/* TENSOR_ITER_REDUCTION alone: the output comes pre-viewed (size 1 on reduced dims). */
static void test_previewed_output(void **state) {
    (void)state;
    tensor_t *x = itest_empty(3, I64(2, 8, 3), TENSOR_FLOAT32);
    tensor_t *o = itest_empty(3, I64(2, 1, 3), TENSOR_FLOAT32);
    tensor_iter_config *cfg = tensor_iter_config_new("test_preview");
    tensor_iter_config_add_output(cfg, o);
    tensor_iter_config_add_input(cfg, x);
    tensor_iter_config_enable(cfg, TENSOR_ITER_REDUCTION);
    tensor_iter_t *it = tensor_iter_build(cfg);
    assert_non_null(it);
    itest_assert_perm(it, INTS(1, 2, 0), 3);
    assert_iter_shape(it, 8, 3, 2);
    assert_iter_strides(it, 0, 0, 4, 12);
    assert_iter_strides(it, 1, 12, 4, 96);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    tensor_release(o);
    tensor_release(x);
}

/* LINEAR on a reduction: reduced dims first, C order otherwise, whatever the strides say. */
static void test_linear_reduction(void **state) {
    (void)state;
    tensor_t *base = itest_empty(3, I64(4, 2, 3), TENSOR_FLOAT32);
    tensor_t *x = tensor_permute(base, INTS(1, 2, 0)); /* [2,3,4] strides [3,1,6] */
    tensor_iter_t *it = reduce(NULL, x, INTS(0), 1, false);
    itest_assert_perm(it, INTS(0, 1, 2), 3);
    tensor_iter_free(it);
    tensor_iter_config *cfg = tensor_iter_config_new("test_sum");
    tensor_iter_config_add_output_dtype(cfg, NULL, TENSOR_FLOAT32);
    tensor_iter_config_add_input(cfg, x);
    tensor_iter_config_enable(cfg, TENSOR_ITER_LINEAR);
    tensor_iter_config_reduce_dims(cfg, INTS(0), 1, false);
    it = tensor_iter_build(cfg);
    assert_non_null(it);
    itest_assert_perm(it, INTS(0, 2, 1), 3);
    assert_iter_shape(it, 2, 4, 3);
    assert_iter_strides(it, 0, 0, 4, 16);
    assert_iter_strides(it, 1, 12, 24, 4);
    assert_int_equal(tensor_iter_num_reduce_dims(it), 1);
    tensor_t *out = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_strides(out), 2, I64(4, 1), 2, "C-contiguous out");
    tensor_release(out);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    tensor_release(x);
    tensor_release(base);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_linear_reduction),
    cmocka_unit_test(test_seed_16x128x64x128),
    cmocka_unit_test(test_seed_8x32x64x128),
    cmocka_unit_test(test_internals_table),
    cmocka_unit_test(test_permuted_input_allocated_output),
    cmocka_unit_test(test_zero_dim_all_dims_size_one),
    cmocka_unit_test(test_two_inputs),
    cmocka_unit_test(test_values_and_indices),
    cmocka_unit_test(test_previewed_output),
};

TENSOR_TEST_GROUP(iter_reduce, tests, NULL, NULL)

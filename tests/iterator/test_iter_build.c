/* tensor_iter_build for elementwise iterators: broadcasting, byte strides, permutation,
 * output allocation in the inputs' layout, coalescing, dtypes, flags. */
#include "iter_test_util.h"
#include "iterator/iter_internal.h"

/* out = f(a, b) with an undefined output; returns the iterator. */
static tensor_iter_t *binary(tensor_t *out, const tensor_t *a, const tensor_t *b, unsigned extra_flags) {
    tensor_iter_config *cfg = tensor_iter_config_new("test_binary");
    assert_non_null(cfg);
    assert_int_equal(tensor_iter_config_add_output(cfg, out), TENSOR_OK);
    assert_int_equal(tensor_iter_config_add_input(cfg, a), TENSOR_OK);
    if (b) assert_int_equal(tensor_iter_config_add_input(cfg, b), TENSOR_OK);
    assert_int_equal(tensor_iter_config_enable(cfg, extra_flags), TENSOR_OK);
    tensor_iter_t *it = tensor_iter_build(cfg);
    tensor_iter_config_free(cfg);
    return it;
}

static void test_contiguous_collapses_to_1d(void **state) {
    (void)state;
    tensor_t *a = itest_empty(2, I64(4, 5), TENSOR_FLOAT32), *b = itest_empty(2, I64(4, 5), TENSOR_FLOAT32);
    tensor_iter_t *it = binary(NULL, a, b, 0);
    assert_non_null(it);
    assert_iter_shape(it, 20);
    for (int arg = 0; arg < 3; arg++) assert_int_equal(it->operands[arg].strides[0], 4);
    itest_assert_perm(it, INTS(1, 0), 2);
    assert_true(tensor_iter_is_contiguous(it));
    assert_true(it->operands[0].is_allocated);
    tensor_t *out = tensor_iter_output(it, 0);
    assert_int_equal(tensor_ndim(out), 2);
    itest_assert_i64(tensor_sizes(out), 2, I64(4, 5), 2, "out sizes");
    itest_assert_i64(tensor_strides(out), 2, I64(5, 1), 2, "out strides");
    assert_int_equal(tensor_get_dtype(out), TENSOR_FLOAT32);
    assert_ptr_equal(tensor_data(out), tensor_iter_data(it, 0));
    assert_ptr_equal(tensor_data(a), tensor_iter_data(it, 1));
    tensor_iter_free(it);
    /* The caller's reference outlives the iterator. */
    assert_int_equal(tensor_numel(out), 20);
    tensor_release(out);
    tensor_release(a);
    tensor_release(b);
}

/* A broadcast pair: a{1024,1} + b{1,512}. */
static void test_broadcast_outer_product(void **state) {
    (void)state;
    tensor_t *a = itest_empty(2, I64(1024, 1), TENSOR_FLOAT32), *b = itest_empty(2, I64(1, 512), TENSOR_FLOAT32);
    tensor_iter_t *it = binary(NULL, a, b, 0);
    assert_non_null(it);
    itest_assert_perm(it, INTS(1, 0), 2);
    assert_iter_shape(it, 512, 1024);
    assert_iter_strides(it, 0, 4, 2048);
    assert_iter_strides(it, 1, 0, 4);
    assert_iter_strides(it, 2, 4, 0);
    assert_false(tensor_iter_is_contiguous(it));
    tensor_t *out = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_sizes(out), 2, I64(1024, 512), 2, "out sizes");
    itest_assert_i64(tensor_strides(out), 2, I64(512, 1), 2, "out strides");
    tensor_release(out);
    tensor_iter_free(it);
    tensor_release(a);
    tensor_release(b);
}

/* A permuted input gives a permuted output; the iteration is then dense and 1-D. */
static void test_permuted_input_gives_permuted_output(void **state) {
    (void)state;
    tensor_t *base = itest_empty(3, I64(2, 3, 4), TENSOR_FLOAT32);
    tensor_t *p = tensor_permute(base, INTS(2, 0, 1)); /* sizes [4,2,3] strides [1,12,4] */
    assert_non_null(p);
    tensor_iter_t *it = binary(NULL, p, NULL, 0);
    assert_non_null(it);
    itest_assert_perm(it, INTS(0, 2, 1), 3);
    assert_iter_shape(it, 24);
    assert_iter_strides(it, 0, 4);
    assert_iter_strides(it, 1, 4);
    tensor_t *out = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_sizes(out), 3, I64(4, 2, 3), 3, "out sizes");
    itest_assert_i64(tensor_strides(out), 3, I64(1, 12, 4), 3, "out strides follow the input");
    tensor_release(out);
    tensor_iter_free(it);

    /* Same with LINEAR: no permutation, the output is C-contiguous, nothing coalesces. */
    it = binary(NULL, p, NULL, TENSOR_ITER_LINEAR);
    assert_non_null(it);
    itest_assert_perm(it, INTS(2, 1, 0), 3);
    /* Logical dims 2 and 1 still merge (3 * 16 == 48 for the input, 3 * 4 == 12 for out). */
    assert_iter_shape(it, 6, 4);
    assert_iter_strides(it, 0, 4, 24);
    assert_iter_strides(it, 1, 16, 4);
    out = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_strides(out), 3, I64(6, 3, 1), 3, "linear out strides");
    tensor_release(out);
    tensor_iter_free(it);
    tensor_release(p);
    tensor_release(base);
}

static void test_sliced_and_expanded_inputs(void **state) {
    (void)state;
    /* Slice with step 2 along dim 1: [4,5] with strides [10,2]; it still coalesces. */
    tensor_t *base = itest_empty(2, I64(4, 10), TENSOR_FLOAT32);
    tensor_t *s = tensor_slice(base, 1, 0, 10, 2);
    assert_non_null(s);
    tensor_iter_t *it = binary(NULL, s, NULL, 0);
    assert_non_null(it);
    assert_iter_shape(it, 20);
    assert_iter_strides(it, 0, 4);
    assert_iter_strides(it, 1, 8);
    tensor_iter_free(it);
    /* Slice of a narrow: rows of 3 out of 10 don't coalesce with the row dim. */
    tensor_t *n = tensor_narrow(base, 1, 2, 3);
    it = binary(NULL, n, NULL, 0);
    assert_non_null(it);
    assert_iter_shape(it, 3, 4);
    assert_iter_strides(it, 0, 4, 12);
    assert_iter_strides(it, 1, 4, 40);
    assert_int_equal((char *)tensor_iter_data(it, 1) - (char *)tensor_data(base), 8);
    tensor_iter_free(it);
    /* Expanded (stride 0) row + contiguous: the broadcast dim stays separate. */
    tensor_t *row = itest_empty(2, I64(1, 5), TENSOR_FLOAT32);
    tensor_t *e = tensor_expand(row, 2, I64(4, 5));
    tensor_t *c = itest_empty(2, I64(4, 5), TENSOR_FLOAT32);
    it = binary(NULL, e, c, 0);
    assert_non_null(it);
    assert_iter_shape(it, 5, 4);
    assert_iter_strides(it, 0, 4, 20);
    assert_iter_strides(it, 1, 4, 0);
    assert_iter_strides(it, 2, 4, 20);
    tensor_iter_free(it);
    /* Only expanded inputs: the output is dense, both dims stay (stride 0 vs 4). */
    it = binary(NULL, e, NULL, 0);
    assert_non_null(it);
    assert_iter_shape(it, 5, 4);
    assert_iter_strides(it, 1, 4, 0);
    tensor_iter_free(it);
    tensor_release(c);
    tensor_release(e);
    tensor_release(row);
    tensor_release(n);
    tensor_release(s);
    tensor_release(base);
}

static void test_zero_dim_and_empty(void **state) {
    (void)state;
    tensor_t *s = itest_empty(0, NULL, TENSOR_FLOAT32), *v = itest_empty(1, I64(3), TENSOR_FLOAT32);
    tensor_iter_t *it = binary(NULL, s, v, 0);
    assert_non_null(it);
    assert_iter_shape(it, 3);
    assert_iter_strides(it, 1, 0);
    assert_iter_strides(it, 2, 4);
    tensor_iter_free(it);
    /* All 0-d: a 0-d computation of one element, a 0-d output. */
    it = binary(NULL, s, s, 0);
    assert_non_null(it);
    assert_int_equal(tensor_iter_ndim(it), 0);
    assert_int_equal(tensor_iter_numel(it), 1);
    assert_true(tensor_iter_is_contiguous(it));
    tensor_t *out = tensor_iter_output(it, 0);
    assert_int_equal(tensor_ndim(out), 0);
    tensor_release(out);
    tensor_iter_free(it);
    /* Size-0 dims: numel 0, an output of the same empty shape. */
    tensor_t *z = itest_empty(3, I64(3, 0, 2), TENSOR_FLOAT32);
    it = binary(NULL, z, NULL, 0);
    assert_non_null(it);
    assert_int_equal(tensor_iter_numel(it), 0);
    out = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_sizes(out), 3, I64(3, 0, 2), 3, "empty out sizes");
    tensor_release(out);
    tensor_iter_free(it);
    /* [1,0] + [3,1] -> [3,0]. */
    tensor_t *a = itest_empty(2, I64(1, 0), TENSOR_FLOAT32), *b = itest_empty(2, I64(3, 1), TENSOR_FLOAT32);
    it = binary(NULL, a, b, 0);
    assert_non_null(it);
    itest_assert_i64(it->logical_shape, it->logical_ndim, I64(3, 0), 2, "logical shape");
    tensor_iter_free(it);
    tensor_release(a);
    tensor_release(b);
    tensor_release(z);
    tensor_release(s);
    tensor_release(v);
}

/* PyTorch's broadcasting table, through the iterator. */
static void test_broadcast_table(void **state) {
    (void)state;
    static const struct {
        int na;
        int64_t a[4];
        int nb;
        int64_t b[4];
        int nr;
        int64_t r[4];
    } cases[] = {
        {1, {1}, 0, {0}, 1, {1}},          {1, {2}, 0, {0}, 1, {2}},
        {2, {2, 1}, 1, {2}, 2, {2, 2}},    {3, {3, 1, 2}, 3, {1, 3, 2}, 3, {3, 3, 2}},
        {4, {5, 1, 4, 1}, 3, {3, 1, 1}, 4, {5, 3, 4, 1}}, {1, {1}, 3, {3, 1, 7}, 3, {3, 1, 7}},
        {3, {0, 1, 3}, 3, {0, 5, 3}, 3, {0, 5, 3}},       {1, {0}, 0, {0}, 1, {0}},
        {2, {1, 1}, 1, {0}, 2, {1, 0}},    {2, {2, 0}, 2, {2, 1}, 2, {2, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tensor_t *a = itest_empty(cases[i].na, cases[i].a, TENSOR_FLOAT32);
        tensor_t *b = itest_empty(cases[i].nb, cases[i].b, TENSOR_FLOAT32);
        tensor_iter_t *it = binary(NULL, a, b, 0);
        if (it == NULL) fail_msg("case %zu: %s", i, tensor_last_error());
        itest_assert_i64(it->logical_shape, it->logical_ndim, cases[i].r, cases[i].nr, "broadcast");
        tensor_t *out = tensor_iter_output(it, 0);
        itest_assert_i64(tensor_sizes(out), tensor_ndim(out), cases[i].r, cases[i].nr, "out shape");
        tensor_release(out);
        tensor_iter_free(it);
        tensor_release(a);
        tensor_release(b);
    }
}

static void test_static_shape(void **state) {
    (void)state;
    tensor_t *v = itest_empty(1, I64(3), TENSOR_INT32);
    tensor_iter_config *cfg = tensor_iter_config_new("test_static");
    tensor_iter_config_add_output(cfg, NULL);
    tensor_iter_config_add_input(cfg, v);
    tensor_iter_config_declare_static_shape(cfg, 2, I64(2, 3));
    tensor_iter_t *it = tensor_iter_build(cfg);
    assert_non_null(it);
    assert_iter_shape(it, 3, 2);
    assert_iter_strides(it, 1, 4, 0);
    tensor_t *out = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_sizes(out), 2, I64(2, 3), 2, "out");
    assert_int_equal(tensor_get_dtype(out), TENSOR_INT32);
    tensor_release(out);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    /* No inputs at all (a fill): the static shape and a declared dtype decide. */
    cfg = tensor_iter_config_new("test_fill");
    tensor_iter_config_add_output_dtype(cfg, NULL, TENSOR_FLOAT64);
    tensor_iter_config_declare_static_shape(cfg, 1, I64(7));
    it = tensor_iter_build(cfg);
    assert_non_null(it);
    assert_int_equal(tensor_iter_numel(it), 7);
    assert_int_equal(tensor_iter_dtype(it, 0), TENSOR_FLOAT64);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    tensor_release(v);
}

static void test_dtype_promotion(void **state) {
    (void)state;
    static const struct {
        tensor_dtype a;
        int na;
        tensor_dtype b;
        int nb;
        tensor_dtype r;
    } cases[] = {
        {TENSOR_INT32, 1, TENSOR_FLOAT32, 0, TENSOR_FLOAT32}, /* 0-d of a higher category wins */
        {TENSOR_INT8, 1, TENSOR_FLOAT64, 0, TENSOR_FLOAT64},
        {TENSOR_FLOAT16, 1, TENSOR_FLOAT64, 0, TENSOR_FLOAT16}, /* 0-d is weak within the category */
        {TENSOR_UINT8, 1, TENSOR_INT8, 0, TENSOR_UINT8},
        {TENSOR_UINT8, 0, TENSOR_INT8, 0, TENSOR_INT16},
        {TENSOR_FLOAT16, 1, TENSOR_BFLOAT16, 1, TENSOR_FLOAT32},
        {TENSOR_BOOL, 1, TENSOR_INT32, 1, TENSOR_INT32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tensor_t *a = itest_empty(cases[i].na, I64(3), cases[i].a), *b = itest_empty(cases[i].nb, I64(3), cases[i].b);
        tensor_iter_t *it = binary(NULL, a, b, TENSOR_ITER_PROMOTE_INPUTS);
        if (it == NULL) fail_msg("case %zu: %s", i, tensor_last_error());
        assert_int_equal(tensor_iter_common_dtype(it), cases[i].r);
        assert_int_equal(tensor_iter_dtype(it, 0), cases[i].r);
        /* Inputs keep their dtypes: kernels convert while loading. */
        assert_int_equal(tensor_iter_dtype(it, 1), cases[i].a);
        assert_int_equal(tensor_iter_dtype(it, 2), cases[i].b);
        assert_int_equal(it->operands[1].strides[0], cases[i].na ? (int64_t)tensor_dtype_size(cases[i].a) : 0);
        tensor_iter_free(it);
        tensor_release(a);
        tensor_release(b);
    }
    /* PROMOTE_INT_TO_FLOAT. */
    tensor_t *i32 = itest_empty(1, I64(3), TENSOR_INT32);
    tensor_iter_t *it = binary(NULL, i32, i32, TENSOR_ITER_PROMOTE_INPUTS | TENSOR_ITER_PROMOTE_INT_TO_FLOAT);
    assert_non_null(it);
    assert_int_equal(tensor_iter_common_dtype(it), TENSOR_FLOAT32);
    tensor_iter_free(it);
    /* CAST_TO_OUTPUTS: float32 common into a float64 output is fine. */
    tensor_t *f32 = itest_empty(1, I64(3), TENSOR_FLOAT32), *f64 = itest_empty(1, I64(3), TENSOR_FLOAT64);
    it = binary(f64, f32, i32, TENSOR_ITER_PROMOTE_INPUTS | TENSOR_ITER_CAST_TO_OUTPUTS);
    assert_non_null(it);
    assert_int_equal(tensor_iter_common_dtype(it), TENSOR_FLOAT32);
    assert_int_equal(tensor_iter_dtype(it, 0), TENSOR_FLOAT64);
    tensor_iter_free(it);
    /* Without promotion, mixed inputs with SAME_DTYPE off leave the common dtype undefined. */
    tensor_iter_config *cfg = tensor_iter_config_new("test_mixed");
    tensor_iter_config_add_output(cfg, f64);
    tensor_iter_config_add_input(cfg, f32);
    tensor_iter_config_add_input(cfg, i32);
    tensor_iter_config_disable(cfg, TENSOR_ITER_SAME_DTYPE);
    it = tensor_iter_build(cfg);
    assert_non_null(it);
    assert_int_equal(tensor_iter_common_dtype(it), TENSOR_NUM_DTYPES);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    tensor_release(i32);
    tensor_release(f32);
    tensor_release(f64);
}

static void test_in_place_and_many_operands(void **state) {
    (void)state;
    tensor_t *a = itest_empty(2, I64(3, 4), TENSOR_FLOAT32), *b = itest_empty(1, I64(4), TENSOR_FLOAT32);
    tensor_iter_t *it = binary(a, a, b, 0);
    assert_non_null(it);
    assert_true(it->operands[0].is_read_write);
    assert_false(it->operands[0].is_allocated);
    tensor_iter_free(it);
    /* 2 outputs + 3 inputs, broadcasting [3,4] / [4] / [3,1]. */
    tensor_t *c = itest_empty(2, I64(3, 1), TENSOR_FLOAT32), *o2 = itest_empty(2, I64(3, 4), TENSOR_FLOAT32);
    tensor_iter_config *cfg = tensor_iter_config_new("test_five");
    tensor_iter_config_add_output(cfg, NULL);
    tensor_iter_config_add_output(cfg, o2);
    tensor_iter_config_add_input(cfg, a);
    tensor_iter_config_add_input(cfg, b);
    tensor_iter_config_add_input(cfg, c);
    it = tensor_iter_build(cfg);
    assert_non_null(it);
    assert_int_equal(tensor_iter_ntensors(it), 5);
    assert_int_equal(tensor_iter_noutputs(it), 2);
    assert_int_equal(tensor_iter_ninputs(it), 3);
    assert_iter_shape(it, 4, 3);
    assert_iter_strides(it, 0, 4, 16);
    assert_iter_strides(it, 1, 4, 16);
    assert_iter_strides(it, 3, 4, 0);
    assert_iter_strides(it, 4, 0, 4);
    tensor_t *in = tensor_iter_input(it, 2);
    assert_ptr_equal(in, c);
    tensor_release(in);
    assert_null(tensor_iter_input(it, 3));
    assert_null(tensor_iter_output(it, 2));
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    tensor_release(a);
    tensor_release(b);
    tensor_release(c);
    tensor_release(o2);
}

/* Reorder details: a 0 stride has no opinion; equal strides put the smaller dim first. */
static void test_reorder_rules(void **state) {
    (void)state;
    /* A channels-last NCHW input [2,3,4,5] (strides C=1, W=3, H=15, N=60) gives a
     * channels-last output and one dense dim. */
    tensor_t *nhwc = itest_empty(4, I64(2, 4, 5, 3), TENSOR_FLOAT32);
    tensor_t *nchw = tensor_permute(nhwc, INTS(0, 3, 1, 2));
    tensor_iter_t *it = binary(NULL, nchw, NULL, 0);
    assert_non_null(it);
    itest_assert_perm(it, INTS(1, 3, 2, 0), 4);
    assert_iter_shape(it, 120);
    tensor_t *out = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_strides(out), 4, I64(60, 1, 15, 3), 4, "channels-last out");
    tensor_release(out);
    tensor_iter_free(it);
    /* The second input decides where the first is broadcast. */
    tensor_t *col = itest_empty(2, I64(6, 1), TENSOR_FLOAT32);
    tensor_t *rows = itest_empty(2, I64(7, 6), TENSOR_FLOAT32);
    tensor_t *t = tensor_transpose(rows, 0, 1); /* [6,7] strides [1,6] */
    tensor_release(rows);
    it = binary(NULL, col, t, 0);
    assert_non_null(it);
    itest_assert_perm(it, INTS(0, 1), 2);
    assert_iter_shape(it, 6, 7);
    assert_iter_strides(it, 2, 4, 24);
    assert_iter_strides(it, 1, 4, 0);
    out = tensor_iter_output(it, 0);
    itest_assert_i64(tensor_strides(out), 2, I64(1, 6), 2, "transposed out");
    tensor_release(out);
    tensor_iter_free(it);
    tensor_release(t);
    tensor_release(col);
    tensor_release(nchw);
    tensor_release(nhwc);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_contiguous_collapses_to_1d),
    cmocka_unit_test(test_broadcast_outer_product),
    cmocka_unit_test(test_permuted_input_gives_permuted_output),
    cmocka_unit_test(test_sliced_and_expanded_inputs),
    cmocka_unit_test(test_zero_dim_and_empty),
    cmocka_unit_test(test_broadcast_table),
    cmocka_unit_test(test_static_shape),
    cmocka_unit_test(test_dtype_promotion),
    cmocka_unit_test(test_in_place_and_many_operands),
    cmocka_unit_test(test_reorder_rules),
};

TENSOR_TEST_GROUP(iter_build, tests, NULL, NULL)

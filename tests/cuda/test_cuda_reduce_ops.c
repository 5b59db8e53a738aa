/* Every reduction of ops/ops.h on CUDA against the CPU backend (cuda_reduce_util.h): every
 * dtype each op accepts x layouts (contiguous inner and outer, transposed, sliced, expanded,
 * 0-size, 0-d, one element, offset-by-one unaligned, several reduced dims), sizes around
 * vector / warp / block edges, NaN inputs (propagation and skipping), ties (first index),
 * many outputs with few inputs and the reverse. Needs a GPU (exit 77 without). */
#include "cuda_reduce_util.h"

TENSOR_TEST_NEEDS_GPU()

static bool quick_skip_dtype(tensor_dtype dt) {
    return ct_quick() && !(dt == TENSOR_FLOAT32 || dt == TENSOR_INT8 || dt == TENSOR_FLOAT16);
}

/* op x dtype x layout. */
static void test_every_op_dtype_layout(void **state) {
    (void)state;
    const int d0 = 0, d1 = 1, outer2[2] = {0, 2}, all_neg[1] = {-1};
    const int64_t rows[2] = {65, 1001}, sq[2] = {129, 257}, vec[1] = {4097}, bc[2] = {1, 333}, s3[3] = {17, 129, 65},
                  empty0[2] = {0, 7}, empty1[2] = {7, 0}, one[1] = {1}, one2[2] = {1, 1};
    for (int k = 0; k < CR_NUM_SPECS; k++) {
        const op_spec *s = &cr_all_specs[k];
        const bool single = cr_single_dim(s->op);
        for (int j = 0; j < CR_NUM_DTYPES; j++) {
            tensor_dtype dt = cr_all_dtypes[j];
            if (!cr_supports(s->op, dt) || quick_skip_dtype(dt)) continue;
            value_mode m = cr_default_mode(s->op);
            uint64_t seed = (uint64_t)(k * 100 + j * 7);
            cr_check(s, 2, rows, dt, &d1, 1, false, V_NONE, 0, seed + 1, m, "inner");
            cr_check(s, 2, rows, dt, &d0, 1, true, V_NONE, 0, seed + 2, m, "outer");
            cr_check(s, 2, rows, dt, &d1, 1, false, V_NARROW_LAST, 0, seed + 3, m, "narrowed rows (unaligned)");
            if (ct_quick()) continue;
            cr_check(s, 2, sq, dt, &d0, 1, false, V_TRANSPOSE, 0, seed + 4, m, "transposed dim 0");
            cr_check(s, 2, sq, dt, &d1, 1, true, V_TRANSPOSE, 0, seed + 5, m, "transposed dim 1");
            cr_check(s, 1, vec, dt, single ? &d0 : NULL, single ? 1 : 0, false, V_NARROW0, 0, seed + 6, m,
                     "offset by one (unaligned)");
            cr_check(s, 2, rows, dt, &d1, 1, false, V_NARROW0, 0, seed + 7, m, "sliced rows");
            cr_check(s, 2, bc, dt, &d0, 1, false, V_EXPAND0, 500, seed + 8, m, "expanded, reducing the stride-0 dim");
            cr_check(s, 2, bc, dt, all_neg, 1, false, V_EXPAND0, 500, seed + 9, m, "expanded, reducing dim -1");
            if (single) cr_check(s, 3, s3, dt, &d1, 1, false, V_NONE, 0, seed + 10, m, "middle dim");
            else cr_check(s, 3, s3, dt, outer2, 2, false, V_NONE, 0, seed + 10, m, "dims {0, 2}");
            if (!single) cr_check(s, 2, rows, dt, NULL, 0, false, V_NONE, 0, seed + 11, m, "all dims");
            /* 0-size: reducing an empty dim (identity, or the op's error on both backends),
             * and an empty result */
            cr_check(s, 2, empty0, dt, &d0, 1, false, V_NONE, 0, seed + 12, m, "empty reduced dim");
            cr_check(s, 2, empty1, dt, &d1, 1, true, V_NONE, 0, seed + 13, m, "empty reduced dim, keepdim");
            cr_check(s, 2, empty0, dt, &d1, 1, false, V_NONE, 0, seed + 14, m, "empty result");
            /* 0-d and one element */
            cr_check(s, 0, NULL, dt, single ? &d0 : NULL, single ? 1 : 0, false, V_NONE, 0, seed + 15, m, "0-d");
            cr_check(s, 0, NULL, dt, &d0, 1, true, V_NONE, 0, seed + 16, m, "0-d, dim 0 keepdim");
            cr_check(s, 1, one, dt, &d0, 1, false, V_NONE, 0, seed + 17, m, "one element");
            cr_check(s, 2, one2, dt, &d1, 1, true, V_NONE, 0, seed + 18, m, "one element 2-d");
        }
    }
}

static const int64_t edges[] = {1, 3, 31, 32, 33, 127, 128, 129, 4095, 4097};
#define NUM_EDGES ((int)(sizeof edges / sizeof edges[0]))

/* Sizes 1, 3, 31, ..., 4097 as the reduced length (inner, outer, full) and as the kept one. */
static void test_sizes(void **state) {
    (void)state;
    const int d0 = 0, d1 = 1;
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_INT32, TENSOR_FLOAT64, TENSOR_BFLOAT16};
    for (int k = 0; k < CR_NUM_SPECS; k++) {
        const op_spec *s = &cr_all_specs[k];
        for (int j = 0; j < (ct_quick() ? 1 : 5); j++) {
            tensor_dtype dt = dts[j];
            if (!cr_supports(s->op, dt)) continue;
            value_mode m = cr_default_mode(s->op);
            for (int e = 0; e < NUM_EDGES; e++) {
                if (ct_quick() && e % 4 != 0) continue; /* 1, 33, 4095 */
                uint64_t seed = (uint64_t)(k * 1000 + j * 100 + e);
                int64_t in_rows[2] = {3, edges[e]}, in_cols[2] = {edges[e], 3}, full[1] = {edges[e]};
                cr_check(s, 2, in_rows, dt, &d1, 1, false, V_NONE, 0, seed, m, "inner edge");
                cr_check(s, 2, in_cols, dt, &d0, 1, false, V_NONE, 0, seed + 1, m, "outer edge");
                if (ct_quick()) continue;
                cr_check(s, 1, full, dt, &d0, 1, false, V_NONE, 0, seed + 2, m, "full edge");
                int64_t kept[2] = {edges[e], 37};
                cr_check(s, 2, kept, dt, &d1, 1, false, V_NONE, 0, seed + 3, m, "kept edge");
            }
        }
    }
}

/* NaN inputs: propagating ops give NaN (max_dim/argmax: the first NaN's index), nansum and
 * nanmean skip them; all-NaN rows. Compared with the CPU backend, plus known answers. */
static void test_nan(void **state) {
    (void)state;
    const int d0 = 0, d1 = 1;
    const int64_t rows[2] = {33, 1001}, cols[2] = {4097, 5}, full[1] = {100003};
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT8_E5M2};
    for (int k = 0; k < CR_NUM_SPECS; k++) {
        const op_spec *s = &cr_all_specs[k];
        for (int j = 0; j < (ct_quick() ? 1 : 5); j++) {
            uint64_t seed = (uint64_t)(k * 10 + j);
            cr_check(s, 2, rows, dts[j], &d1, 1, false, V_NONE, 0, seed, M_NAN, "NaN inner");
            cr_check(s, 2, cols, dts[j], &d0, 1, false, V_NONE, 0, seed + 1, M_NAN, "NaN outer");
            cr_check(s, 1, full, dts[j], &d0, 1, false, V_NONE, 0, seed + 2, M_NAN, "NaN full");
        }
    }
    /* Known answers on CUDA alone: argmax([1, nan, 3, nan, -inf]) == argmin(...) == 1, and
     * max / nansum / nanmean of it, and an all-NaN nanmean. */
    const float v[5] = {1.0f, NAN, 3.0f, NAN, -INFINITY};
    const int64_t n5 = 5;
    tensor_t *g = tensor_from_buffer(v, 1, &n5, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(g);
    int64_t idx;
    float f;
    tensor_t *r = tensor_argmax(g, NULL, false);
    assert_non_null(r);
    assert_int_equal(tensor_to_buffer(r, &idx, sizeof idx), TENSOR_OK);
    assert_int_equal(idx, 1);
    tensor_release(r);
    r = tensor_argmin(g, &d0, false);
    assert_non_null(r);
    assert_int_equal(tensor_to_buffer(r, &idx, sizeof idx), TENSOR_OK);
    assert_int_equal(idx, 1);
    tensor_release(r);
    tensor_t *vals = NULL, *inds = NULL;
    assert_int_equal(tensor_max_dim(g, 0, false, &vals, &inds), TENSOR_OK);
    assert_int_equal(tensor_to_buffer(vals, &f, sizeof f), TENSOR_OK);
    assert_true(isnan(f));
    assert_int_equal(tensor_to_buffer(inds, &idx, sizeof idx), TENSOR_OK);
    assert_int_equal(idx, 1);
    tensor_release(vals);
    tensor_release(inds);
    r = tensor_nansum(g, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(r);
    assert_int_equal(tensor_to_buffer(r, &f, sizeof f), TENSOR_OK);
    assert_true(isinf(f) && f < 0);
    tensor_release(r);
    tensor_t *two = tensor_narrow(g, 0, 0, 3); /* [1, nan, 3] */
    assert_non_null(two);
    r = tensor_nanmean(two, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(r);
    assert_int_equal(tensor_to_buffer(r, &f, sizeof f), TENSOR_OK);
    assert_true(f == 2.0f);
    tensor_release(r);
    r = tensor_sum_dims(two, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(r);
    assert_int_equal(tensor_to_buffer(r, &f, sizeof f), TENSOR_OK);
    assert_true(isnan(f));
    tensor_release(r);
    tensor_release(two);
    tensor_t *nan1 = tensor_narrow(g, 0, 1, 1); /* [nan] */
    assert_non_null(nan1);
    r = tensor_nanmean(nan1, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(r);
    assert_int_equal(tensor_to_buffer(r, &f, sizeof f), TENSOR_OK);
    assert_true(isnan(f));
    tensor_release(r);
    tensor_release(nan1);
    tensor_release(g);
}

/* Ties: the first index wins, across lanes, warps, CTAs (a long row through the global reduce)
 * and in every layout; compared with the CPU and with known answers. */
static void test_ties(void **state) {
    (void)state;
    const int d0 = 0, d1 = 1;
    const int64_t rows[2] = {40, 3001}, cols[2] = {3001, 40}, sq[2] = {129, 257};
    const op_spec specs[] = {{OP_ARGMAX, 0, 0}, {OP_ARGMIN, 0, 0}, {OP_MAX_DIM, 0, 0}, {OP_MIN_DIM, 0, 0}};
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_INT8, TENSOR_FLOAT16, TENSOR_INT64, TENSOR_FLOAT64, TENSOR_UINT8};
    for (int k = 0; k < 4; k++) {
        for (int j = 0; j < (ct_quick() ? 2 : 6); j++) {
            uint64_t seed = (uint64_t)(k * 10 + j);
            cr_check(&specs[k], 2, rows, dts[j], &d1, 1, false, V_NONE, 0, seed, M_SMALLINT, "ties inner");
            cr_check(&specs[k], 2, cols, dts[j], &d0, 1, false, V_NONE, 0, seed + 1, M_SMALLINT, "ties outer");
            cr_check(&specs[k], 2, sq, dts[j], &d0, 1, false, V_TRANSPOSE, 0, seed + 2, M_SMALLINT, "ties transposed");
            cr_check(&specs[k], 2, rows, dts[j], &d1, 1, false, V_NARROW_LAST, 0, seed + 3, M_SMALLINT,
                     "ties unaligned");
            cr_check(&specs[k], 2, rows, dts[j], &d1, 1, false, V_NONE, 0, seed + 4, M_ONES, "all equal");
        }
    }
    /* A long row of ones with 2 at a few places: the first 2's index, through the global reduce. */
    const int64_t n = (1 << 22) + 3;
    float *buf = malloc((size_t)n * sizeof(float));
    assert_non_null(buf);
    for (int64_t i = 0; i < n; i++) buf[i] = 1.0f;
    const int64_t at[3] = {3000001, 3000002, 4000000};
    for (int i = 0; i < 3; i++) buf[at[i]] = 2.0f;
    buf[100] = 0.5f;
    buf[2000000] = 0.5f;
    tensor_t *g = tensor_from_buffer(buf, 1, &n, TENSOR_FLOAT32, tensor_cuda(0));
    free(buf);
    assert_non_null(g);
    int64_t idx;
    tensor_t *r = tensor_argmax(g, NULL, false);
    assert_non_null(r);
    assert_int_equal(tensor_to_buffer(r, &idx, sizeof idx), TENSOR_OK);
    assert_int_equal(idx, at[0]);
    tensor_release(r);
    r = tensor_argmin(g, &d0, false);
    assert_non_null(r);
    assert_int_equal(tensor_to_buffer(r, &idx, sizeof idx), TENSOR_OK);
    assert_int_equal(idx, 100);
    tensor_release(r);
    tensor_release(g);
}

/* Many outputs with few inputs each, few outputs with many inputs (global reduce), both ways. */
static void test_shapes_extreme(void **state) {
    (void)state;
    const int d0 = 0, d1 = 1;
    const int64_t many_out[2] = {200003, 3}, few_out[2] = {2, 1 << 21}, wide[2] = {1 << 17, 64},
                  q_many[2] = {20003, 3}, q_few[2] = {2, 1 << 16};
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_INT8, TENSOR_FLOAT64};
    for (int k = 0; k < CR_NUM_SPECS; k++) {
        const op_spec *s = &cr_all_specs[k];
        for (int j = 0; j < (ct_quick() ? 1 : 4); j++) {
            tensor_dtype dt = dts[j];
            if (!cr_supports(s->op, dt)) continue;
            value_mode m = cr_default_mode(s->op);
            uint64_t seed = (uint64_t)(k * 10 + j);
            const int64_t *mo = ct_quick() ? q_many : many_out, *fo = ct_quick() ? q_few : few_out;
            cr_check(s, 2, mo, dt, &d1, 1, false, V_NONE, 0, seed, m, "many outputs, inner");
            cr_check(s, 2, fo, dt, &d1, 1, false, V_NONE, 0, seed + 1, m, "few outputs, inner");
            if (ct_quick()) continue;
            cr_check(s, 2, many_out, dt, &d0, 1, false, V_NONE, 0, seed + 2, m, "few outputs, outer");
            cr_check(s, 2, few_out, dt, &d0, 1, false, V_NONE, 0, seed + 3, m, "many outputs, outer");
            cr_check(s, 2, wide, dt, &d0, 1, false, V_NONE, 0, seed + 4, m, "outer, global reduce");
        }
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_op_dtype_layout), cmocka_unit_test(test_sizes),
    cmocka_unit_test(test_nan),                   cmocka_unit_test(test_ties),
    cmocka_unit_test(test_shapes_extreme),
};

TENSOR_TEST_GROUP(cuda_reduce_ops, tests, NULL, cr_release_scratch)

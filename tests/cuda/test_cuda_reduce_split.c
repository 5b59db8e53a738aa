/* Iterators beyond 32-bit offsets are split into pieces (iterator.h's splitter) that
 * accumulate partials and, for arg-reductions, number their elements from the piece's
 * index_base. The engine's limit is lowered here so that small tensors take that path for
 * every op (argmax / max_dim indices across pieces, mean's whole-count divisor, norm's p,
 * var_mean's two outputs); then real inputs above 2^31 elements (int8). Needs a GPU. */
#include "cuda_reduce_util.h"

TENSOR_TEST_NEEDS_GPU()

static void test_split_every_op(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    const int d0 = 0, d1 = 1, outer2[2] = {0, 2};
    const int64_t s2[2] = {129, 4097}, s3[3] = {17, 129, 65}, big[1] = {(1 << 20) + 3}, col[2] = {1 << 14, 8};
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_INT32, TENSOR_FLOAT64, TENSOR_INT8};
    const int64_t limits[] = {1 << 16, 40000, 5000};
    for (int l = 0; l < (ct_quick() ? 1 : 3); l++) {
        tensor_cuda_reduce_index_limit = limits[l];
        for (int k = 0; k < CR_NUM_SPECS; k++) {
            const op_spec *s = &cr_all_specs[k];
            const bool single = cr_single_dim(s->op);
            for (int j = 0; j < (ct_quick() ? 1 : 5); j++) {
                tensor_dtype dt = dts[j];
                if (!cr_supports(s->op, dt)) continue;
                value_mode m = cr_default_mode(s->op);
                uint64_t seed = (uint64_t)(l * 1000 + k * 10 + j);
                cr_check(s, 2, s2, dt, &d1, 1, false, V_NONE, 0, seed, m, "split, inner");
                if (ct_quick()) continue;
                cr_check(s, 2, s2, dt, &d0, 1, false, V_NONE, 0, seed + 1, m, "split, outer");
                cr_check(s, 1, big, dt, single ? &d0 : NULL, single ? 1 : 0, false, V_NONE, 0, seed + 2, m,
                         "split, full");
                cr_check(s, 2, s2, dt, &d0, 1, true, V_TRANSPOSE, 0, seed + 3, m, "split, transposed");
                cr_check(s, 2, col, dt, &d0, 1, false, V_NONE, 0, seed + 4, m, "split, columns");
                if (!single) cr_check(s, 3, s3, dt, outer2, 2, false, V_NONE, 0, seed + 5, m, "split, dims {0, 2}");
                /* NaN across pieces: the first NaN's index, the skipping count */
                if (cr_is_float(dt)) cr_check(s, 1, big, dt, single ? &d0 : NULL, single ? 1 : 0, false, V_NONE, 0,
                                              seed + 6, M_NAN, "split, NaN");
            }
        }
    }
    tensor_cuda_reduce_index_limit = INT64_C(2147483647);
#endif
}

/* 2^31 + 7 int8 elements: sum, count_nonzero and argmax/argmin with the extreme past 2^31
 * (index_base of the pieces at real scale), against references computed here. Skipped (with
 * a message) when the GPU or the host lacks the memory, and in quick mode. */
static void test_above_2p31(void **state) {
    (void)state;
    if (ct_quick()) return;
    const int64_t n = (INT64_C(1) << 31) + 7;
    int8_t *buf = malloc((size_t)n);
    if (buf == NULL) {
        print_message("test_above_2p31: skipped, no 2 GiB of host memory\n");
        return;
    }
    int64_t ref = 0, nonzero = 0;
    for (int64_t i = 0; i < n; i++) {
        int8_t v = (int8_t)(i % 3 == 0 ? 1 : (i % 3 == 1 ? 0 : -1)); /* ... no 100 or -100 before 2^31 */
        buf[i] = v;
    }
    const int64_t at_max = (INT64_C(1) << 31) + 3, at_min = (INT64_C(1) << 31) + 1;
    buf[at_max] = 100;
    buf[at_min] = -100;
    for (int64_t i = 0; i < n; i++) {
        ref += buf[i];
        nonzero += buf[i] != 0;
    }
    tensor_t *g = tensor_from_buffer(buf, 1, &n, TENSOR_INT8, tensor_cuda(0));
    free(buf);
    if (g == NULL) {
        print_message("test_above_2p31: skipped, the GPU has no room for 2 GiB: %s\n", tensor_last_error());
        return;
    }
    int64_t got;
    tensor_t *r = tensor_sum_dims(g, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    if (r == NULL) fail_msg("cuda sum: %s", tensor_last_error());
    assert_int_equal(tensor_to_buffer(r, &got, sizeof got), TENSOR_OK);
    assert_int_equal(got, ref);
    tensor_release(r);
    r = tensor_count_nonzero(g, NULL, 0);
    if (r == NULL) fail_msg("cuda count_nonzero: %s", tensor_last_error());
    assert_int_equal(tensor_to_buffer(r, &got, sizeof got), TENSOR_OK);
    assert_int_equal(got, nonzero);
    tensor_release(r);
    r = tensor_argmax(g, NULL, false);
    if (r == NULL) fail_msg("cuda argmax: %s", tensor_last_error());
    assert_int_equal(tensor_to_buffer(r, &got, sizeof got), TENSOR_OK);
    assert_int_equal(got, at_max);
    tensor_release(r);
    tensor_t *vals = NULL, *inds = NULL;
    if (tensor_min_dim(g, 0, false, &vals, &inds) != TENSOR_OK) fail_msg("cuda min_dim: %s", tensor_last_error());
    int8_t v;
    assert_int_equal(tensor_to_buffer(vals, &v, sizeof v), TENSOR_OK);
    assert_int_equal(v, -100);
    assert_int_equal(tensor_to_buffer(inds, &got, sizeof got), TENSOR_OK);
    assert_int_equal(got, at_min);
    tensor_release(vals);
    tensor_release(inds);
    /* bfloat16 ones would need 4 GiB more: the float sum of a >2^31 input is covered by mean. */
    r = tensor_mean(g, NULL, 0, false, TENSOR_FLOAT64);
    if (r == NULL) fail_msg("cuda mean(dtype=float64): %s", tensor_last_error());
    double mean;
    assert_int_equal(tensor_to_buffer(r, &mean, sizeof mean), TENSOR_OK);
    assert_true(fabs(mean - (double)ref / (double)n) <= 1e-12);
    tensor_release(r);
    tensor_release(g);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_split_every_op),
    cmocka_unit_test(test_above_2p31),
};

TENSOR_TEST_GROUP(cuda_reduce_split, tests, NULL, cr_release_scratch)

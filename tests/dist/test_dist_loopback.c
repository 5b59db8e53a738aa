/* The dist module's reductions over the loopback transport (dist/loopback.c: every rank in this
 * process, on the CPU), so the partials, the exchange and the folds run without a GPU: 1, 2 and
 * 3 ranks, slices in rank order and reversed, every sharded dim, against the unsharded op. */
#include <math.h>

#include "test_main.h"
#define dc_fail(...) fail_msg(__VA_ARGS__)
#include "dist_check.h"
#include "dist/dist_internal.h"

static tensor_comm_t *loopback(int n) {
    tensor_comm_t *c = NULL;
    if (tt_comm_loopback(n, tensor_cpu(), &c) != TENSOR_OK) fail_msg("loopback: %s", tensor_last_error());
    return c;
}

static const tensor_dtype float_dtypes[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT16, TENSOR_BFLOAT16};
static const tensor_dtype int_dtypes[] = {TENSOR_INT64, TENSOR_INT32, TENSOR_UINT8, TENSOR_BOOL};

static void sweep(int nranks) {
    tensor_comm_t *c = loopback(nranks);
    dc_sweep(c, float_dtypes, 4, false);
    dc_sweep(c, int_dtypes, 4, false);
    tensor_comm_release(c);
}

static void test_one_rank(void **state) {
    (void)state;
    sweep(1);
}
static void test_two_ranks(void **state) {
    (void)state;
    sweep(2);
}
static void test_three_ranks(void **state) {
    (void)state;
    sweep(3);
}

/* The dtypes the NCCL reductions do not take but the folds (which only all-gather bytes) must:
 * int8, int16 and the float8 types, whose argmax/argmin partials must fold like the others. */
static void test_more_dtypes(void **state) {
    (void)state;
    static const tensor_dtype more[] = {TENSOR_INT8, TENSOR_INT16, TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2};
    for (int n = 1; n <= 3; n += 2) {
        tensor_comm_t *c = loopback(n);
        dc_sweep(c, more, 4, false);
        tensor_comm_release(c);
    }
}

/* NaN: sums and extremes propagate it, argmax/argmin return the first NaN's global index, even
 * when a later slice (held by a lower rank) has one too. */
static void test_nan(void **state) {
    (void)state;
    const int64_t sizes[2] = {6, 3};
    tensor_t *g = dc_global(2, sizes, TENSOR_FLOAT32, 7);
    float *p = tensor_data(g);
    p[4 * 3 + 1] = NAN; /* row 4, held by rank 0 when reversed */
    p[3 * 3 + 1] = NAN; /* row 3, the first NaN of column 1 */
    p[5 * 3 + 2] = NAN;
    tensor_comm_t *c = loopback(2);
    for (int rev = 0; rev < 2; rev++) {
        dc_tiling tl = dc_tile(6, 2, rev);
        tensor_t *full[2];
        tensor_dtensor_t *x = dc_shard(c, g, 0, &tl, full, false);
        const dc_op ops[] = {DC_SUM, DC_AMAX, DC_AMIN, DC_ARGMAX, DC_ARGMIN, DC_VAR, DC_LSE, DC_NORM};
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
            for (int all = 0; all < 2; all++) {
                dc_red r = {ops[o], all ? 0 : 1, {0}, false, ops[o] == DC_NORM ? 2.0 : 1.0};
                dc_check_one(&r, x, full);
            }
        tensor_dtensor_release(x);
        for (int i = 0; i < 2; i++) tensor_release(full[i]);
    }
    tensor_comm_release(c);
    tensor_release(g);
}

/* var/std of data with a large mean and a small spread: Chan's combination keeps the variance
 * (float32 1e4 + k/4 over 3 ranks, against the float64 reference). */
static void test_var_large_mean(void **state) {
    (void)state;
    const int64_t sizes[2] = {9, 4};
    tensor_t *q = dc_global(2, sizes, TENSOR_FLOAT64, 11);
    tensor_t *g64 = tensor_add_scalar(q, tensor_scalar_float(1e4), tensor_scalar_int(1));
    tensor_t *g = tensor_to_dtype(g64, TENSOR_FLOAT32);
    tensor_comm_t *c = loopback(3);
    dc_tiling tl = dc_tile(9, 3, true);
    tensor_t *full[3];
    tensor_dtensor_t *x = dc_shard(c, g, 0, &tl, full, false);
    for (int all = 0; all < 2; all++) {
        int d0 = 0;
        tensor_dtensor_t *v = tensor_dist_var(x, 1.0, all ? NULL : &d0, all ? 0 : 1, false);
        tensor_t *want = tensor_var(g64, 1.0, all ? NULL : &d0, all ? 0 : 1, false);
        assert_non_null(v);
        assert_non_null(want);
        double *gv, *wv;
        int64_t *gi, *wi;
        dc_values(tensor_dtensor_local(v, 2), &gv, &gi);
        dc_values(want, &wv, &wi);
        for (int64_t k = 0; k < tensor_numel(want); k++)
            if (fabs(gv[k] - wv[k]) > 1e-4 * wv[k]) fail_msg("var[%lld] = %.9g, expected %.9g", (long long)k, gv[k], wv[k]);
        free(gv), free(wv), free(gi), free(wi);
        tensor_dtensor_release(v);
        tensor_release(want);
    }
    tensor_dtensor_release(x);
    for (int i = 0; i < 3; i++) tensor_release(full[i]);
    tensor_comm_release(c);
    tensor_release(q);
    tensor_release(g64);
    tensor_release(g);
}

/* Gather: the whole tensor back on every rank, for even and uneven tilings in any order. */
static void test_gather(void **state) {
    (void)state;
    const int64_t sizes[3] = {7, 5, 4};
    tensor_t *g = dc_global(3, sizes, TENSOR_INT32, 3);
    for (int n = 1; n <= 3; n++) {
        tensor_comm_t *c = loopback(n);
        for (int dim = 0; dim < 3; dim++)
            for (int rev = 0; rev < 2; rev++) {
                dc_tiling tl = dc_tile(sizes[dim], n, rev);
                tensor_t *full[3];
                tensor_dtensor_t *x = dc_shard(c, g, dim, &tl, full, false), *y = NULL;
                assert_int_equal(tensor_dtensor_gather(x, &y), TENSOR_OK);
                assert_int_equal(tensor_dtensor_dim(y), -1);
                for (int i = 0; i < n; i++) dc_compare(tensor_dtensor_local(y, i), g, true, "gather");
                tensor_dtensor_t *z = NULL;
                assert_int_equal(tensor_dtensor_gather(y, &z), TENSOR_OK);
                assert_ptr_equal(z, y); /* already whole */
                tensor_dtensor_release(z);
                tensor_dtensor_release(y);
                tensor_dtensor_release(x);
                for (int i = 0; i < n; i++) tensor_release(full[i]);
            }
        tensor_comm_release(c);
    }
    tensor_release(g);
}

/* A replicated dtensor reduces locally whatever the dims. */
static void test_replicated(void **state) {
    (void)state;
    const int64_t sizes[2] = {4, 3};
    tensor_t *g = dc_global(2, sizes, TENSOR_FLOAT32, 5);
    tensor_comm_t *c = loopback(2);
    tensor_t *copies[2] = {g, g};
    tensor_dtensor_t *x = NULL;
    assert_int_equal(tensor_dtensor_replicated(c, copies, &x), TENSOR_OK);
    assert_int_equal(tensor_dtensor_dim(x), -1);
    assert_int_equal(tensor_dtensor_ndim(x), 2);
    assert_int_equal(tensor_dtensor_sizes(x)[1], 3);
    tensor_t *full[2] = {g, g};
    for (int all = 0; all < 2; all++) {
        dc_red r = {DC_SUM, all ? 0 : 1, {1}, true, 0};
        dc_check_one(&r, x, full);
        r.op = DC_ARGMAX;
        dc_check_one(&r, x, full);
    }
    tensor_dtensor_release(x);
    tensor_comm_release(c);
    tensor_release(g);
}

/* Accessors of a sharded dtensor, and the references it holds. */
static void test_accessors(void **state) {
    (void)state;
    const int64_t sizes[2] = {5, 2};
    tensor_t *g = dc_global(2, sizes, TENSOR_FLOAT32, 9);
    tensor_comm_t *c = loopback(2);
    dc_tiling tl = dc_tile(5, 2, true);
    tensor_t *full[2];
    tensor_dtensor_t *x = dc_shard(c, g, -2, &tl, full, false);
    assert_int_equal(tensor_dtensor_dim(x), 0);
    assert_int_equal(tensor_dtensor_sizes(x)[0], 5);
    assert_int_equal(tensor_dtensor_offset(x, 0), 3);
    assert_int_equal(tensor_dtensor_length(x, 0), 2);
    assert_int_equal(tensor_dtensor_offset(x, 1), 0);
    assert_int_equal(tensor_dtensor_length(x, 1), 3);
    assert_ptr_equal(tensor_dtensor_comm(x), c);
    assert_int_equal(tensor_size(tensor_dtensor_local(x, 1), 0), 3);
    /* The dtensor keeps its communicator and shards alive. */
    tensor_comm_release(c);
    for (int i = 0; i < 2; i++) tensor_release(full[i]);
    assert_ptr_equal(tensor_dtensor_retain(x), x);
    tensor_dtensor_release(x);
    tensor_dtensor_t *s = tensor_dist_sum(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(s);
    assert_int_equal(tensor_comm_size(tensor_dtensor_comm(s)), 2);
    tensor_dtensor_release(s);
    tensor_dtensor_release(x);
    tensor_release(g);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_one_rank),       cmocka_unit_test(test_two_ranks), cmocka_unit_test(test_three_ranks),
    cmocka_unit_test(test_more_dtypes),
    cmocka_unit_test(test_nan),            cmocka_unit_test(test_var_large_mean),
    cmocka_unit_test(test_gather),         cmocka_unit_test(test_replicated), cmocka_unit_test(test_accessors),
};

TENSOR_TEST_GROUP(loopback, tests, NULL, NULL)

/* Output dtypes on CUDA: the general sum / nansum / prod take any output dtype and mean /
 * nanmean any floating one; the input is cast to it first (as PyTorch: sum(x, dtype=d) ==
 * sum(x.to(d))), converting while loading. Every (input, output) pair, against the CPU
 * backend, plus known answers (sum(int8 [100, 100] of 1, dtype=int8) wraps; float16 inputs
 * summed in float32). Needs a GPU. */
#include "cuda_reduce_util.h"

TENSOR_TEST_NEEDS_GPU()

static void test_every_pair(void **state) {
    (void)state;
    const int d0 = 0, d1 = 1;
    const int64_t rows[2] = {33, 1001}, vec[1] = {4097}, cols[2] = {1001, 33}, prows[2] = {33, 15}, pcols[2] = {15, 33};
    const op_kind ops[] = {OP_SUM, OP_NANSUM, OP_PROD, OP_MEAN, OP_NANMEAN};
    for (int o = 0; o < 5; o++) {
        for (int i = 0; i < CR_NUM_DTYPES; i++) {
            tensor_dtype in = cr_all_dtypes[i];
            if (ct_quick() && !(in == TENSOR_FLOAT32 || in == TENSOR_INT8)) continue;
            for (int j = 0; j < CR_NUM_DTYPES; j++) {
                tensor_dtype out = cr_all_dtypes[j];
                if ((ops[o] == OP_MEAN || ops[o] == OP_NANMEAN) && !cr_is_float(out)) continue;
                op_spec s = {ops[o], 0.0, out};
                /* small integers: sums and products are exact in every dtype until they
                 * overflow (the same way on both backends); NaN for the nan-skipping ops */
                value_mode m = (ops[o] == OP_NANSUM || ops[o] == OP_NANMEAN) && cr_is_float(in) ? M_NAN : M_SMALLINT;
                uint64_t seed = (uint64_t)(o * 1000 + i * 20 + j);
                /* prod: rows short enough that no product overflows float32, uint8's -2 and -1
                 * (254, 255) included: 255^15 < 2^120 (an overflow meets a zero in an order
                 * that depends on the plan: 0, or inf * 0 = NaN; both are right) */
                const int64_t *r = ops[o] == OP_PROD ? prows : rows;
                cr_check(&s, 2, r, in, &d1, 1, false, V_NONE, 0, seed, m, "cast, inner");
                if (ct_quick()) continue;
                if (ops[o] != OP_PROD)
                    cr_check(&s, 1, vec, in, NULL, 0, false, V_NARROW0, 0, seed + 1, m, "cast, full unaligned");
                cr_check(&s, 2, ops[o] == OP_PROD ? pcols : cols, in, &d0, 1, false, V_NONE, 0, seed + 2, m,
                         "cast, outer");
                if (cr_is_float(in)) /* integers over their whole range would overflow float sums */
                    cr_check(&s, 2, rows, in, &d1, 1, false, V_NONE, 0, seed + 3, M_UNIFORM, "cast, uniform");
            }
        }
    }
}

/* Known answers: sum(int8 ones [100, 100], dtype=int8) == 16 (10000 wraps mod 256); float16 inputs
 * of 0.1 summed to float32 give the float32 sum of the rounded halves. */
static void test_known(void **state) {
    (void)state;
    const int64_t s2[2] = {100, 100};
    tensor_t *c = cr_random_cpu(2, s2, TENSOR_INT8, 1, M_ONES);
    tensor_t *g = ct_to_gpu(c);
    tensor_t *r = tensor_sum_dims(g, NULL, 0, false, TENSOR_INT8);
    if (r == NULL) fail_msg("cuda sum(int8, dtype=int8): %s", tensor_last_error());
    int8_t v8;
    assert_int_equal(tensor_to_buffer(r, &v8, 1), TENSOR_OK);
    assert_int_equal(v8, 16);
    tensor_release(r);
    r = tensor_sum_dims(g, NULL, 0, false, TENSOR_BOOL);
    if (r == NULL) fail_msg("cuda sum(int8, dtype=bool): %s", tensor_last_error());
    assert_int_equal(tensor_to_buffer(r, &v8, 1), TENSOR_OK);
    assert_int_equal(v8, 1);
    tensor_release(r);
    tensor_release(g);
    tensor_release(c);

    const int64_t n = 70000;
    uint16_t *h = malloc((size_t)n * 2);
    assert_non_null(h);
    for (int64_t i = 0; i < n; i++) tensor_dtype_store_double(TENSOR_FLOAT16, &h[i], 0.1);
    g = tensor_from_buffer(h, 1, &n, TENSOR_FLOAT16, tensor_cuda(0));
    free(h);
    assert_non_null(g);
    r = tensor_sum_dims(g, NULL, 0, false, TENSOR_FLOAT32);
    if (r == NULL) fail_msg("cuda sum(float16, dtype=float32): %s", tensor_last_error());
    float f;
    assert_int_equal(tensor_to_buffer(r, &f, sizeof f), TENSOR_OK);
    /* 0.1 as float16 is 0.0999755859375; 70000 of them = 6998.291..., within float32 rounding */
    assert_true(fabs((double)f - 6998.291015625) < 1e-2);
    tensor_release(r);
    r = tensor_mean(g, NULL, 0, false, TENSOR_FLOAT64);
    if (r == NULL) fail_msg("cuda mean(float16, dtype=float64): %s", tensor_last_error());
    double d;
    assert_int_equal(tensor_to_buffer(r, &d, sizeof d), TENSOR_OK);
    assert_true(fabs(d - 0.0999755859375) < 1e-15);
    tensor_release(r);
    /* float32 -> float16 output: each element rounds through float16 first (0.1 stays
     * 0.0999755859375), the sum rounds once at the end: 6998.29 -> 7000 in float16 */
    r = tensor_sum_dims(g, NULL, 0, false, TENSOR_FLOAT16);
    assert_non_null(r);
    uint16_t hv;
    assert_int_equal(tensor_to_buffer(r, &hv, sizeof hv), TENSOR_OK);
    assert_true(tensor_dtype_load_double(TENSOR_FLOAT16, &hv) == 7000.0);
    tensor_release(r);
    tensor_release(g);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_pair),
    cmocka_unit_test(test_known),
};

TENSOR_TEST_GROUP(cuda_reduce_cast, tests, NULL, cr_release_scratch)

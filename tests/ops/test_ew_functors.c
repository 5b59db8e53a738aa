/* The load/store half of the elementwise functor contract (ops/functors/ew_common.h), which
 * the CUDA loops use per element while the CPU kernels use tiled converters: both must agree
 * with the runtime's scalar cast rules, bit for bit, for every dtype pair. Also the functors'
 * integer edge cases that must not trap (division by zero and INT64_MIN / -1). */
#include "ew_test_util.h"
#include "ops/functors/ew_arith.h"
#include "ops/functors/ew_common.h"
#include "ops/functors/ew_compare.h"
#include "ops/functors/ew_unary.h"

static const double samples[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.7, -3.7, 100.25, -128.0, 127.0,
                                 255.0, 256.0, 300.0, -300.0, 65504.0, 70000.0, -1e10, 1e10, 1e-8, 448.0, 500.0,
                                 123456789.0, 9.3e18, -9.3e18, 1e300, INFINITY, -INFINITY, NAN};

static void store_ref(tensor_dtype d, void *p, double v) { tensor_dtype_store_double(d, p, v); }

static void test_loads_match_cast_rules(void **state) {
    (void)state;
    for (int in = 0; in < TENSOR_NUM_DTYPES; in++)
        for (int via = 0; via < TENSOR_NUM_DTYPES; via++)
            for (size_t s = 0; s < sizeof samples / sizeof samples[0]; s++) {
                _Alignas(8) unsigned char src[8] = {0}, mid[8] = {0};
                store_ref((tensor_dtype)in, src, samples[s]);
                const tensor_ew_compute k = tensor_ew_compute_kind((tensor_dtype)via);
                if (k == TENSOR_EW_COMPUTE_I64) {
                    /* in -> via (integer or bool) with the cast rules, exactly */
                    if (tensor_dtype_is_floating((tensor_dtype)in))
                        store_ref((tensor_dtype)via, mid, tensor_dtype_load_double((tensor_dtype)in, src));
                    else
                        tensor_dtype_store_int64((tensor_dtype)via, mid, tensor_dtype_load_int64((tensor_dtype)in, src));
                    int64_t want = tensor_dtype_load_int64((tensor_dtype)via, mid);
                    int64_t got = tensor_ew_load_i64((tensor_dtype)in, src, (tensor_dtype)via);
                    if (got != want)
                        fail_msg("load_i64 %s via %s of %g: got %lld want %lld", tensor_dtype_name((tensor_dtype)in),
                                 tensor_dtype_name((tensor_dtype)via), samples[s], (long long)got, (long long)want);
                } else if (k == TENSOR_EW_COMPUTE_F64) {
                    double want = tensor_dtype_load_double((tensor_dtype)in, src);
                    double got = tensor_ew_load_f64((tensor_dtype)in, src, (tensor_dtype)via);
                    if (!(got == want || (isnan(got) && isnan(want))))
                        fail_msg("load_f64 %s of %g", tensor_dtype_name((tensor_dtype)in), samples[s]);
                } else {
                    /* in -> float (one rounding) -> via's value set */
                    float f = (float)tensor_dtype_load_double((tensor_dtype)in, src);
                    if (in == TENSOR_INT64) f = (float)tensor_dtype_load_int64((tensor_dtype)in, src);
                    store_ref((tensor_dtype)via, mid, (double)f);
                    double want = in == via ? (double)f : tensor_dtype_load_double((tensor_dtype)via, mid);
                    float got = tensor_ew_load_f32((tensor_dtype)in, src, (tensor_dtype)via);
                    if (!((double)got == want || (isnan(got) && isnan(want))))
                        fail_msg("load_f32 %s via %s of %g: got %g want %g", tensor_dtype_name((tensor_dtype)in),
                                 tensor_dtype_name((tensor_dtype)via), samples[s], (double)got, want);
                }
            }
}

static void test_stores_match_cast_rules(void **state) {
    (void)state;
    for (int out = 0; out < TENSOR_NUM_DTYPES; out++)
        for (size_t s = 0; s < sizeof samples / sizeof samples[0]; s++) {
            const double v = samples[s];
            _Alignas(8) unsigned char a[8] = {0}, b[8] = {0};
            const size_t es = tensor_dtype_size((tensor_dtype)out);
            tensor_ew_store_f64((tensor_dtype)out, a, v);
            store_ref((tensor_dtype)out, b, v);
            if (memcmp(a, b, es) != 0) fail_msg("store_f64 %s of %g", tensor_dtype_name((tensor_dtype)out), v);
            memset(a, 0, 8);
            memset(b, 0, 8);
            tensor_ew_store_f32((tensor_dtype)out, a, (float)v);
            store_ref((tensor_dtype)out, b, (double)(float)v);
            if (memcmp(a, b, es) != 0) fail_msg("store_f32 %s of %g", tensor_dtype_name((tensor_dtype)out), v);
            if (isnan(v) || isinf(v) || fabs(v) > 9e18) continue;
            const int64_t iv = (int64_t)v;
            memset(a, 0, 8);
            memset(b, 0, 8);
            tensor_ew_store_i64((tensor_dtype)out, a, iv);
            tensor_dtype_store_int64((tensor_dtype)out, b, iv);
            if (memcmp(a, b, es) != 0) fail_msg("store_i64 %s of %lld", tensor_dtype_name((tensor_dtype)out), (long long)iv);
        }
}

static void test_functor_edges(void **state) {
    (void)state;
    assert_int_equal(tensor_ew_div_floor_i64(7, 0), 0);
    assert_int_equal(tensor_ew_div_trunc_i64(7, 0), 0);
    assert_int_equal(tensor_ew_remainder_i64(7, 0), 0);
    assert_true(tensor_ew_int_div_by_zero(0));
    assert_true(tensor_ew_div_floor_i64(INT64_MIN, -1) == INT64_MIN);
    assert_true(tensor_ew_div_trunc_i64(INT64_MIN, -1) == INT64_MIN);
    assert_int_equal(tensor_ew_remainder_i64(INT64_MIN, -1), 0);
    assert_int_equal(tensor_ew_div_floor_i64(-7, 2), -4);
    assert_int_equal(tensor_ew_remainder_i64(-7, 2), 1);
    assert_int_equal(tensor_ew_remainder_i64(7, -2), -1);
    assert_true(tensor_ew_neg_i64(INT64_MIN) == INT64_MIN);
    assert_true(tensor_ew_abs_i64(INT64_MIN) == INT64_MIN);
    assert_true(tensor_ew_add_i64(INT64_MAX, 1, 1) == INT64_MIN);
    assert_int_equal(tensor_ew_pow_i64(-1, -5), -1);
    assert_int_equal(tensor_ew_pow_i64(2, 62), INT64_C(1) << 62);
    assert_true(tensor_ew_pow_i64(2, 64) == 0);
    assert_int_equal(tensor_ew_wrap_i64(TENSOR_INT8, 200), -56);
    assert_int_equal(tensor_ew_wrap_i64(TENSOR_UINT8, -1), 255);
    assert_int_equal(tensor_ew_wrap_i64(TENSOR_INT16, 40000), -25536);
    assert_int_equal(tensor_ew_wrap_i64(TENSOR_INT32, INT64_C(0x80000000)), INT32_MIN);
    assert_int_equal(tensor_ew_wrap_i64(TENSOR_BOOL, -3), 1);
    assert_true(tensor_ew_f64_to_i64(NAN) == INT64_MIN);
    assert_true(tensor_ew_f64_to_i64(1e30) == INT64_MIN);
    assert_int_equal(tensor_ew_f64_to_i64(-2.9), -2);
    assert_true(isnan(tensor_ew_clamp_f32(1.0f, NAN, 2.0f)));
    assert_true(tensor_ew_clamp_f64(5.0, 3.0, 1.0) == 1.0);
    assert_true(signbit(tensor_ew_div_floor_f64(-1.0, INFINITY)));
    assert_true(tensor_ew_div_floor_f64(-1.0, INFINITY) == -1.0 || tensor_ew_div_floor_f64(-1.0, INFINITY) == 0.0);
    assert_true(tensor_ew_compute_kind(TENSOR_BFLOAT16) == TENSOR_EW_COMPUTE_F32);
    assert_true(tensor_ew_compute_kind(TENSOR_BOOL) == TENSOR_EW_COMPUTE_I64);
    assert_true(tensor_ew_compute_kind(TENSOR_FLOAT64) == TENSOR_EW_COMPUTE_F64);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_loads_match_cast_rules),
    cmocka_unit_test(test_stores_match_cast_rules),
    cmocka_unit_test(test_functor_edges),
};

TENSOR_TEST_GROUP(ew_functors, tests, NULL, NULL)

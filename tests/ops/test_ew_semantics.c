/* Named PyTorch results for the elementwise ops (PyTorch's own outputs
 * for edge cases): promotion examples, integer division and remainder signs, division by
 * zero, integer pow, round half to even, NaN handling of maximum vs fmax, wrapping, casts,
 * copy and fill, layouts of allocated results, and thread-count independence. */
#include "ew_test_util.h"

#define I(v) tensor_scalar_int(v)
#define F(v) tensor_scalar_float(v)

/* ---- promotion ---- */

static tensor_dtype dtype_of_binary_scalar(tensor_dtype a, tensor_ew_op op, tensor_scalar s) {
    tensor_t *t = ew_vec(a, (double[]){1, 2}, 2);
    tensor_t *r = tensor_binary_scalar(op, t, s);
    assert_non_null(r);
    tensor_dtype d = tensor_get_dtype(r);
    tensor_release(r);
    tensor_release(t);
    return d;
}

static tensor_dtype dtype_of_binary(tensor_dtype a, bool a0d, tensor_dtype b, bool b0d, tensor_ew_op op) {
    double v[2] = {1, 2};
    tensor_t *ta = a0d ? ew_scalar0d(a, 1) : ew_vec(a, v, 2);
    tensor_t *tb = b0d ? ew_scalar0d(b, 1) : ew_vec(b, v, 2);
    tensor_t *r = tensor_binary(op, ta, tb);
    assert_non_null(r);
    tensor_dtype d = tensor_get_dtype(r);
    tensor_release(r);
    tensor_release(ta);
    tensor_release(tb);
    return d;
}

static void test_promotion_examples(void **state) {
    (void)state;
    assert_int_equal(dtype_of_binary_scalar(TENSOR_INT32, TENSOR_EW_ADD, I(5)), TENSOR_INT32);
    assert_int_equal(dtype_of_binary_scalar(TENSOR_INT32, TENSOR_EW_ADD, F(5.0)), TENSOR_FLOAT32);
    assert_int_equal(dtype_of_binary_scalar(TENSOR_INT32, TENSOR_EW_ADD, tensor_scalar_bool(true)), TENSOR_INT32);
    assert_int_equal(dtype_of_binary_scalar(TENSOR_BOOL, TENSOR_EW_ADD, tensor_scalar_bool(true)), TENSOR_BOOL);
    assert_int_equal(dtype_of_binary_scalar(TENSOR_BOOL, TENSOR_EW_ADD, I(1)), TENSOR_INT64);
    assert_int_equal(dtype_of_binary_scalar(TENSOR_BOOL, TENSOR_EW_ADD, F(1.5)), TENSOR_FLOAT32);
    assert_int_equal(dtype_of_binary_scalar(TENSOR_UINT8, TENSOR_EW_MUL, F(2.5)), TENSOR_FLOAT32);
    assert_int_equal(dtype_of_binary_scalar(TENSOR_INT32, TENSOR_EW_POW, I(2)), TENSOR_INT32);
    assert_int_equal(dtype_of_binary_scalar(TENSOR_INT32, TENSOR_EW_POW, F(0.5)), TENSOR_FLOAT32);
    assert_int_equal(dtype_of_binary_scalar(TENSOR_INT32, TENSOR_EW_EQ, F(1.5)), TENSOR_BOOL);
    assert_int_equal(dtype_of_binary_scalar(TENSOR_INT64, TENSOR_EW_DIV, I(2)), TENSOR_FLOAT32);
    assert_int_equal(dtype_of_binary_scalar(TENSOR_INT8, TENSOR_EW_ADD, F(2.5)), TENSOR_FLOAT32);
    assert_int_equal(dtype_of_binary_scalar(TENSOR_FLOAT16, TENSOR_EW_ADD, F(2.5)), TENSOR_FLOAT16);
    assert_int_equal(dtype_of_binary(TENSOR_UINT8, false, TENSOR_INT8, false, TENSOR_EW_ADD), TENSOR_INT16);
    assert_int_equal(dtype_of_binary(TENSOR_FLOAT16, false, TENSOR_BFLOAT16, false, TENSOR_EW_ADD), TENSOR_FLOAT32);
    assert_int_equal(dtype_of_binary(TENSOR_INT64, false, TENSOR_FLOAT16, false, TENSOR_EW_ADD), TENSOR_FLOAT16);
    assert_int_equal(dtype_of_binary(TENSOR_FLOAT16, true, TENSOR_INT32, false, TENSOR_EW_ADD), TENSOR_FLOAT16);
    assert_int_equal(dtype_of_binary(TENSOR_INT8, false, TENSOR_FLOAT64, true, TENSOR_EW_ADD), TENSOR_FLOAT64);
    assert_int_equal(dtype_of_binary(TENSOR_UINT8, false, TENSOR_INT8, true, TENSOR_EW_ADD), TENSOR_UINT8);
    assert_int_equal(dtype_of_binary(TENSOR_INT8, false, TENSOR_INT64, true, TENSOR_EW_ADD), TENSOR_INT8);
    assert_int_equal(dtype_of_binary(TENSOR_FLOAT16, false, TENSOR_FLOAT64, true, TENSOR_EW_ADD), TENSOR_FLOAT16);
    assert_int_equal(dtype_of_binary(TENSOR_UINT8, true, TENSOR_INT8, true, TENSOR_EW_ADD), TENSOR_INT16);
    assert_int_equal(dtype_of_binary(TENSOR_FLOAT16, false, TENSOR_INT64, false, TENSOR_EW_DIV), TENSOR_FLOAT16);
    assert_int_equal(dtype_of_binary(TENSOR_BOOL, false, TENSOR_BOOL, false, TENSOR_EW_DIV), TENSOR_FLOAT32);
    assert_int_equal(dtype_of_binary(TENSOR_BOOL, false, TENSOR_BOOL, false, TENSOR_EW_MUL), TENSOR_BOOL);
    /* 0-d with 0-d: the ordinary lattice */
    assert_int_equal(dtype_of_binary(TENSOR_INT32, true, TENSOR_INT64, true, TENSOR_EW_ADD), TENSOR_INT64);
    /* a 0-d result for 0-d operands */
    tensor_t *a = ew_scalar0d(TENSOR_INT32, 3);
    tensor_t *r = tensor_add_scalar(a, F(2.5), I(1));
    assert_int_equal(tensor_ndim(r), 0);
    ew_expect(r, TENSOR_FLOAT32, (double[]){5.5}, 1);
    tensor_release(r);
    tensor_release(a);
}

/* ---- integer division, remainder, division by zero ---- */

static void test_division_rounding(void **state) {
    (void)state;
    static const tensor_dtype dts[] = {TENSOR_INT8, TENSOR_INT32, TENSOR_INT64, TENSOR_FLOAT16, TENSOR_FLOAT32,
                                       TENSOR_FLOAT64};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        tensor_t *a = ew_vec(dts[i], (double[]){-7, 7, 7, -7}, 4);
        tensor_t *b = ew_vec(dts[i], (double[]){2, 2, -2, -2}, 4);
        tensor_t *fl = tensor_div(a, b, TENSOR_ROUNDING_FLOOR);
        tensor_t *tr = tensor_div(a, b, TENSOR_ROUNDING_TRUNC);
        tensor_t *rm = tensor_remainder(a, b);
        tensor_t *tru = tensor_div(a, b, TENSOR_ROUNDING_NONE);
        ew_expect(fl, dts[i], (double[]){-4, 3, -4, 3}, 4);
        ew_expect(tr, dts[i], (double[]){-3, 3, -3, 3}, 4);
        ew_expect(rm, dts[i], (double[]){1, 1, -1, -1}, 4);
        ew_expect(tru, tensor_dtype_is_floating(dts[i]) ? dts[i] : TENSOR_FLOAT32, (double[]){-3.5, 3.5, -3.5, 3.5}, 4);
        tensor_release(fl); tensor_release(tr); tensor_release(rm); tensor_release(tru);
        tensor_release(a); tensor_release(b);
    }
    /* int32 [1,2,7] / [2,2,2] = [0.5, 1, 3.5] float32; [1, 0] / 0 = [inf, nan] */
    tensor_t *a = ew_vec(TENSOR_INT32, (double[]){1, 2, 7}, 3);
    tensor_t *r = tensor_div_scalar(a, I(2), TENSOR_ROUNDING_NONE);
    ew_expect(r, TENSOR_FLOAT32, (double[]){0.5, 1, 3.5}, 3);
    tensor_release(r);
    tensor_release(a);
    a = ew_vec(TENSOR_INT32, (double[]){1, 0}, 2);
    r = tensor_div_scalar(a, I(0), TENSOR_ROUNDING_NONE);
    ew_expect(r, TENSOR_FLOAT32, (double[]){INFINITY, NAN}, 2);
    tensor_release(r);
    /* integer // 0 and % 0: ZeroDivisionError (PyTorch's CPU) */
    assert_null(tensor_div_scalar(a, I(0), TENSOR_ROUNDING_FLOOR));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "ZeroDivisionError");
    assert_null(tensor_div_scalar(a, I(0), TENSOR_ROUNDING_TRUNC));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_div_scalar: ZeroDivisionError");
    assert_null(tensor_remainder_scalar(a, I(0)));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "ZeroDivisionError");
    tensor_release(a);
    /* float // 0: [inf, -inf, nan]; % 0: nan */
    a = ew_vec(TENSOR_FLOAT32, (double[]){1, -1, 0}, 3);
    r = tensor_div_scalar(a, F(0), TENSOR_ROUNDING_FLOOR);
    ew_expect(r, TENSOR_FLOAT32, (double[]){INFINITY, -INFINITY, NAN}, 3);
    tensor_release(r);
    r = tensor_remainder_scalar(a, F(0));
    ew_expect(r, TENSOR_FLOAT32, (double[]){NAN, NAN, NAN}, 3);
    tensor_release(r);
    tensor_release(a);
    /* INT_MIN // -1 and % -1 wrap without trapping */
    tensor_t *m = ew_ivec(TENSOR_INT64, (int64_t[]){INT64_MIN, 5}, 2);
    r = tensor_div_scalar(m, I(-1), TENSOR_ROUNDING_FLOOR);
    ew_expect_i(r, TENSOR_INT64, (int64_t[]){INT64_MIN, -5}, 2);
    tensor_release(r);
    r = tensor_remainder_scalar(m, I(-1));
    ew_expect_i(r, TENSOR_INT64, (int64_t[]){0, 0}, 2);
    tensor_release(r);
    tensor_release(m);
    /* floor division of floats keeps the sign of zero: -0.0 for 1 // -inf style cases */
    a = ew_vec(TENSOR_FLOAT64, (double[]){-1, 1}, 2);
    r = tensor_div_scalar(a, F(1e300), TENSOR_ROUNDING_FLOOR);
    ew_expect(r, TENSOR_FLOAT64, (double[]){-1, 0}, 2);
    tensor_release(r);
    tensor_release(a);
}

/* ---- pow ---- */

static void test_pow(void **state) {
    (void)state;
    tensor_t *a = ew_vec(TENSOR_INT32, (double[]){2, 3, -2, 0}, 4);
    tensor_t *b = ew_vec(TENSOR_INT32, (double[]){10, 3, 3, 0}, 4);
    tensor_t *r = tensor_pow(a, b);
    ew_expect(r, TENSOR_INT32, (double[]){1024, 27, -8, 1}, 4);
    tensor_release(r);
    /* tensor exponents may be negative: 1, +-1 or 0 */
    tensor_t *c = ew_vec(TENSOR_INT64, (double[]){1, -1, -1, 2, 0}, 5);
    tensor_t *e = ew_vec(TENSOR_INT64, (double[]){-1, -3, -2, -1, -2}, 5);
    r = tensor_pow(c, e);
    ew_expect(r, TENSOR_INT64, (double[]){1, -1, 1, 0, 0}, 5);
    tensor_release(r);
    /* scalar negative exponent on ints: error; on floats fine */
    assert_null(tensor_pow_scalar(a, I(-1)));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "Integers to negative integer powers are not allowed.");
    r = tensor_pow_scalar(a, F(-1.0));
    ew_expect(r, TENSOR_FLOAT32, (double[]){0.5, (double)(1.0f / 3.0f), -0.5, INFINITY}, 4);
    tensor_release(r);
    /* wrapping: int8 2 ** 7 = -128, uint8 3 ** 5 = 243, int64 3 ** 41 wraps */
    tensor_t *i8 = ew_vec(TENSOR_INT8, (double[]){2}, 1);
    r = tensor_pow_scalar(i8, I(7));
    ew_expect(r, TENSOR_INT8, (double[]){-128}, 1);
    tensor_release(r);
    tensor_t *u8 = ew_vec(TENSOR_UINT8, (double[]){3}, 1);
    r = tensor_pow_scalar(u8, I(5));
    ew_expect(r, TENSOR_UINT8, (double[]){243}, 1);
    tensor_release(r);
    tensor_t *i64 = ew_vec(TENSOR_INT64, (double[]){3}, 1);
    r = tensor_pow_scalar(i64, I(41));
    uint64_t w = 1;
    for (int k = 0; k < 41; k++) w *= 3u;
    ew_expect_i(r, TENSOR_INT64, (int64_t[]){(int64_t)w}, 1);
    tensor_release(r);
    /* scalar base: pow(2, int32 tensor) stays int32 */
    r = tensor_binary_scalar_lhs(TENSOR_EW_POW, I(2), b);
    ew_expect(r, TENSOR_INT32, (double[]){1024, 8, 8, 1}, 4);
    tensor_release(r);
    tensor_release(a); tensor_release(b); tensor_release(c); tensor_release(e);
    tensor_release(i8); tensor_release(u8); tensor_release(i64);
}

/* ---- rounding, signs, NaN ---- */

static void test_round_sign_nan(void **state) {
    (void)state;
    static const tensor_dtype fdt[] = {TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT32, TENSOR_FLOAT64};
    for (size_t i = 0; i < 4; i++) {
        tensor_t *a = ew_vec(fdt[i], (double[]){0.5, 1.5, 2.5, -0.5, -2.5, 3.5}, 6);
        tensor_t *r = tensor_round(a);
        ew_expect(r, fdt[i], (double[]){0, 2, 2, -0.0, -2, 4}, 6);
        tensor_release(r);
        tensor_release(a);
        a = ew_vec(fdt[i], (double[]){-2, -0.0, 0, 3, NAN}, 5);
        r = tensor_sign(a);
        ew_expect(r, fdt[i], (double[]){-1, 0, 0, 1, 0}, 5);
        tensor_release(r);
        r = tensor_relu(a);
        ew_expect(r, fdt[i], (double[]){0, 0, 0, 3, NAN}, 5);
        tensor_release(r);
        tensor_release(a);
        /* maximum propagates NaN, fmax ignores it */
        tensor_t *x = ew_vec(fdt[i], (double[]){1, NAN, NAN, 3}, 4);
        tensor_t *y = ew_vec(fdt[i], (double[]){NAN, 2, NAN, -1}, 4);
        r = tensor_maximum(x, y);
        ew_expect(r, fdt[i], (double[]){NAN, NAN, NAN, 3}, 4);
        tensor_release(r);
        r = tensor_minimum(x, y);
        ew_expect(r, fdt[i], (double[]){NAN, NAN, NAN, -1}, 4);
        tensor_release(r);
        r = tensor_fmax(x, y);
        ew_expect(r, fdt[i], (double[]){1, 2, NAN, 3}, 4);
        tensor_release(r);
        r = tensor_fmin(x, y);
        ew_expect(r, fdt[i], (double[]){1, 2, NAN, -1}, 4);
        tensor_release(r);
        /* comparisons with NaN: only ne is true */
        r = tensor_eq(x, x);
        ew_expect(r, TENSOR_BOOL, (double[]){1, 0, 0, 1}, 4);
        tensor_release(r);
        r = tensor_ne(x, x);
        ew_expect(r, TENSOR_BOOL, (double[]){0, 1, 1, 0}, 4);
        tensor_release(r);
        /* logical ops: NaN is true */
        r = tensor_logical_and(x, y);
        ew_expect(r, TENSOR_BOOL, (double[]){1, 1, 1, 1}, 4);
        tensor_release(r);
        r = tensor_logical_not(x);
        ew_expect(r, TENSOR_BOOL, (double[]){0, 0, 0, 0}, 4);
        tensor_release(r);
        tensor_release(x);
        tensor_release(y);
        /* classification */
        a = ew_vec(fdt[i], (double[]){1, INFINITY, -INFINITY, NAN}, 4);
        r = tensor_isnan(a);
        ew_expect(r, TENSOR_BOOL, (double[]){0, 0, 0, 1}, 4);
        tensor_release(r);
        r = tensor_isinf(a);
        ew_expect(r, TENSOR_BOOL, (double[]){0, 1, 1, 0}, 4);
        tensor_release(r);
        r = tensor_isfinite(a);
        ew_expect(r, TENSOR_BOOL, (double[]){1, 0, 0, 0}, 4);
        tensor_release(r);
        tensor_release(a);
    }
    /* integers: abs and neg of the minimum wrap; isfinite is true */
    tensor_t *a = ew_vec(TENSOR_INT8, (double[]){-128, -5, 7}, 3);
    tensor_t *r = tensor_abs(a);
    ew_expect(r, TENSOR_INT8, (double[]){-128, 5, 7}, 3);
    tensor_release(r);
    r = tensor_neg(a);
    ew_expect(r, TENSOR_INT8, (double[]){-128, 5, -7}, 3);
    tensor_release(r);
    r = tensor_isfinite(a);
    ew_expect(r, TENSOR_BOOL, (double[]){1, 1, 1}, 3);
    tensor_release(r);
    r = tensor_floor(a);
    ew_expect(r, TENSOR_INT8, (double[]){-128, -5, 7}, 3);
    tensor_release(r);
    tensor_release(a);
}

/* ---- wrapping ---- */

static void test_wrapping(void **state) {
    (void)state;
    tensor_t *a = ew_vec(TENSOR_INT32, (double[]){2147483647}, 1);
    tensor_t *r = tensor_add_scalar(a, I(1), I(1));
    ew_expect(r, TENSOR_INT32, (double[]){-2147483648.0}, 1);
    tensor_release(r);
    tensor_release(a);
    a = ew_vec(TENSOR_UINT8, (double[]){0, 1}, 2);
    r = tensor_sub_scalar(a, I(1), I(1));
    ew_expect(r, TENSOR_UINT8, (double[]){255, 0}, 2);
    tensor_release(r);
    r = tensor_add_scalar(a, I(300), I(1));
    ew_expect(r, TENSOR_UINT8, (double[]){44, 45}, 2);
    tensor_release(r);
    tensor_release(a);
    a = ew_vec(TENSOR_INT8, (double[]){100, 1}, 2);
    r = tensor_mul_scalar(a, I(3));
    ew_expect(r, TENSOR_INT8, (double[]){44, 3}, 2);
    tensor_release(r);
    r = tensor_add_scalar(a, I(1000), I(1));
    ew_expect(r, TENSOR_INT8, (double[]){76, -23}, 2);
    tensor_release(r);
    tensor_release(a);
    /* bool + bool is True for True + True; bool * bool; add with alpha on ints */
    tensor_t *t = ew_vec(TENSOR_BOOL, (double[]){1, 1, 0, 0}, 4);
    tensor_t *u = ew_vec(TENSOR_BOOL, (double[]){1, 0, 1, 0}, 4);
    r = tensor_add(t, u, I(1));
    ew_expect(r, TENSOR_BOOL, (double[]){1, 1, 1, 0}, 4);
    tensor_release(r);
    r = tensor_mul(t, u);
    ew_expect(r, TENSOR_BOOL, (double[]){1, 0, 0, 0}, 4);
    tensor_release(r);
    tensor_release(t);
    tensor_release(u);
    tensor_t *x = ew_vec(TENSOR_INT64, (double[]){1, 2}, 2), *y = ew_vec(TENSOR_INT64, (double[]){10, 20}, 2);
    r = tensor_add(x, y, I(3));
    ew_expect(r, TENSOR_INT64, (double[]){31, 62}, 2);
    tensor_release(r);
    r = tensor_sub(x, y, I(-2));
    ew_expect(r, TENSOR_INT64, (double[]){21, 42}, 2);
    tensor_release(r);
    /* 1 - x (scalar on the left) */
    r = tensor_binary_scalar_lhs(TENSOR_EW_SUB, I(1), x);
    ew_expect(r, TENSOR_INT64, (double[]){0, -1}, 2);
    tensor_release(r);
    tensor_release(x);
    tensor_release(y);
}

/* ---- bitwise ---- */

static void test_bitwise(void **state) {
    (void)state;
    tensor_t *a = ew_vec(TENSOR_INT8, (double[]){5, -1, 12}, 3), *b = ew_vec(TENSOR_INT8, (double[]){3, 4, 10}, 3);
    tensor_t *r = tensor_bitwise_and(a, b);
    ew_expect(r, TENSOR_INT8, (double[]){1, 4, 8}, 3);
    tensor_release(r);
    r = tensor_bitwise_or(a, b);
    ew_expect(r, TENSOR_INT8, (double[]){7, -1, 14}, 3);
    tensor_release(r);
    r = tensor_bitwise_xor(a, b);
    ew_expect(r, TENSOR_INT8, (double[]){6, -5, 6}, 3);
    tensor_release(r);
    r = tensor_bitwise_not(a);
    ew_expect(r, TENSOR_INT8, (double[]){-6, 0, -13}, 3);
    tensor_release(r);
    tensor_release(a);
    tensor_release(b);
    a = ew_vec(TENSOR_BOOL, (double[]){1, 0}, 2);
    r = tensor_bitwise_not(a);
    ew_expect(r, TENSOR_BOOL, (double[]){0, 1}, 2);
    tensor_release(r);
    r = tensor_bitwise_xor_scalar(a, tensor_scalar_bool(true));
    ew_expect(r, TENSOR_BOOL, (double[]){0, 1}, 2);
    tensor_release(r);
    tensor_release(a);
    a = ew_vec(TENSOR_FLOAT32, (double[]){1}, 1);
    assert_null(tensor_bitwise_and(a, a));
    assert_error(TENSOR_ERR_DTYPE, "\"bitwise_and\" not implemented for 'float32'");
    assert_null(tensor_bitwise_not(a));
    assert_error(TENSOR_ERR_DTYPE, "tensor_bitwise_not");
    tensor_release(a);
}

/* ---- where, clamp ---- */

static void test_where_clamp(void **state) {
    (void)state;
    tensor_t *c = ew_vec(TENSOR_BOOL, (double[]){1, 0, 1}, 3);
    tensor_t *a = ew_vec(TENSOR_INT32, (double[]){1, 2, 3}, 3);
    tensor_t *b = ew_scalar0d(TENSOR_FLOAT64, 9.5);
    tensor_t *r = tensor_where(c, a, b);
    ew_expect(r, TENSOR_FLOAT64, (double[]){1, 9.5, 3}, 3);
    tensor_release(r);
    /* where's result: promote(a, b) with a dimensioned int32 and 0-d int64 -> int32 */
    tensor_t *b2 = ew_scalar0d(TENSOR_INT64, -4);
    r = tensor_where(c, a, b2);
    ew_expect(r, TENSOR_INT32, (double[]){1, -4, 3}, 3);
    tensor_release(r);
    assert_null(tensor_where(a, a, a));
    assert_error(TENSOR_ERR_DTYPE, "where expected condition to be a boolean tensor, but got a tensor with dtype int32");
    tensor_release(b2);
    tensor_release(b);
    tensor_release(c);
    /* clamp: NaN stays, lo > hi gives hi, scalar float bounds on ints give float32 */
    tensor_t *x = ew_vec(TENSOR_FLOAT32, (double[]){1, 5, NAN, 3}, 4);
    tensor_scalar lo = F(2), hi = F(4);
    r = tensor_clamp_scalar(x, &lo, &hi);
    ew_expect(r, TENSOR_FLOAT32, (double[]){2, 4, NAN, 3}, 4);
    tensor_release(r);
    r = tensor_clamp_scalar(x, &hi, &lo); /* min 4 > max 2: everything is 2 (NaN stays) */
    ew_expect(r, TENSOR_FLOAT32, (double[]){2, 2, NAN, 2}, 4);
    tensor_release(r);
    r = tensor_clamp_scalar(x, &lo, NULL);
    ew_expect(r, TENSOR_FLOAT32, (double[]){2, 5, NAN, 3}, 4);
    tensor_release(r);
    r = tensor_clamp_scalar(x, NULL, &hi);
    ew_expect(r, TENSOR_FLOAT32, (double[]){1, 4, NAN, 3}, 4);
    tensor_release(r);
    tensor_scalar half = F(2.5);
    r = tensor_clamp_scalar(a, &half, NULL);
    ew_expect(r, TENSOR_FLOAT32, (double[]){2.5, 2.5, 3}, 3);
    tensor_release(r);
    tensor_scalar two = I(2);
    assert_int_equal(tensor_clamp_scalar_(a, NULL, &two), TENSOR_OK);
    ew_expect(a, TENSOR_INT32, (double[]){1, 2, 2}, 3);
    /* tensor bounds, broadcast */
    tensor_t *tlo = ew_vec(TENSOR_FLOAT32, (double[]){0, 2, NAN, 0}, 4), *thi = ew_scalar0d(TENSOR_FLOAT32, 3);
    r = tensor_clamp(x, tlo, thi);
    ew_expect(r, TENSOR_FLOAT32, (double[]){1, 3, NAN, 3}, 4);
    tensor_release(r);
    tensor_release(tlo);
    tensor_release(thi);
    tensor_release(x);
    tensor_release(a);
}

/* ---- 16-bit results are computed in float32 and rounded once ---- */

static void test_half_opmath(void **state) {
    (void)state;
    static const tensor_dtype dts[] = {TENSOR_FLOAT16, TENSOR_BFLOAT16};
    for (int k = 0; k < 2; k++) {
        const tensor_dtype d = dts[k];
        double v[64];
        for (int i = 0; i < 64; i++) v[i] = (i - 32) * 0.173;
        tensor_t *a = ew_vec(d, v, 64), *b = ew_vec(d, v + 1, 63);
        tensor_t *a63 = tensor_narrow(a, 0, 0, 63);
        tensor_t *r = tensor_add(a63, b, F(3.0));
        tensor_t *g = tensor_gelu(a);
        double *va = ew_values(a), *vr = ew_values(r), *vg = ew_values(g);
        for (int i = 0; i < 63; i++) {
            float fa = (float)va[i], fb = (float)va[i + 1];
            unsigned char buf[2];
            tensor_dtype_store_double(d, buf, (double)(fa + 3.0f * fb));
            assert_true(vr[i] == tensor_dtype_load_double(d, buf));
            tensor_dtype_store_double(d, buf, (double)(fa * 0.5f * (1.0f + erff(fa * 0.70710678118654752440f))));
            assert_true(vg[i] == tensor_dtype_load_double(d, buf));
        }
        free(va); free(vr); free(vg);
        tensor_release(a); tensor_release(b); tensor_release(a63); tensor_release(r); tensor_release(g);
    }
}

/* ---- copy, cast, fill ---- */

static void test_copy_cast_fill(void **state) {
    (void)state;
    /* copy_ broadcasts and casts: float -> int truncates, negative -> uint8 wraps through int64 */
    int64_t s23[2] = {2, 3};
    tensor_t *dst = tensor_zeros(2, s23, TENSOR_INT32, tensor_cpu());
    tensor_t *src = ew_vec(TENSOR_FLOAT32, (double[]){1.7, -1.7, 2.5}, 3);
    assert_int_equal(tensor_copy_(dst, src), TENSOR_OK);
    ew_expect(dst, TENSOR_INT32, (double[]){1, -1, 2, 1, -1, 2}, 6);
    tensor_t *u8 = tensor_cast(src, TENSOR_UINT8);
    ew_expect(u8, TENSOR_UINT8, (double[]){1, 255, 2}, 3);
    tensor_release(u8);
    tensor_t *fv = ew_vec(TENSOR_FLOAT32, (double[]){0, NAN, -0.0, 0.1}, 4);
    tensor_t *bl = tensor_cast(fv, TENSOR_BOOL);
    ew_expect(bl, TENSOR_BOOL, (double[]){0, 1, 0, 1}, 4);
    tensor_release(bl);
    /* float8 e4m3fn: 500 is past 464 -> NaN; 0.1 rounds */
    tensor_t *f8src = ew_vec(TENSOR_FLOAT32, (double[]){500, 1.0}, 2);
    tensor_t *f8 = tensor_cast(f8src, TENSOR_FLOAT8_E4M3FN);
    tensor_release(f8src);
    double *v8 = ew_values(f8);
    assert_true(isnan(v8[0]));
    assert_true(v8[1] == 1.0);
    free(v8);
    /* int64 above 2^53 into float64 and back stays exact where representable */
    tensor_t *big = ew_ivec(TENSOR_INT64, (int64_t[]){(INT64_C(1) << 60) + 1, -3}, 2);
    tensor_t *bi = tensor_cast(big, TENSOR_INT32);
    ew_expect_i(bi, TENSOR_INT32, (int64_t[]){1, -3}, 2);
    tensor_release(bi);
    tensor_release(big);
    tensor_release(f8);
    /* cast keeps the memory order of its input */
    int64_t s34[2] = {3, 4};
    tensor_t *base = tensor_arange(0, 12, 1, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *m = tensor_view(base, 2, s34);
    tensor_t *mt = tensor_transpose(m, 0, 1);
    tensor_t *c = tensor_cast(mt, TENSOR_FLOAT64);
    assert_int_equal(tensor_stride(c, 0), 1);
    assert_int_equal(tensor_stride(c, 1), 4);
    ew_expect(c, TENSOR_FLOAT64, (double[]){0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}, 12);
    /* and so does an op's result */
    tensor_t *e = tensor_exp(mt);
    assert_int_equal(tensor_stride(e, 0), 1);
    assert_int_equal(tensor_stride(e, 1), 4);
    tensor_release(e);
    /* copy_ from a transposed view into a contiguous tensor, and onto itself */
    tensor_t *dst2 = tensor_zeros(2, (int64_t[]){4, 3}, TENSOR_FLOAT16, tensor_cpu());
    assert_int_equal(tensor_copy_(dst2, mt), TENSOR_OK);
    ew_expect(dst2, TENSOR_FLOAT16, (double[]){0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}, 12);
    assert_int_equal(tensor_copy_(dst2, dst2), TENSOR_OK);
    ew_expect(dst2, TENSOR_FLOAT16, (double[]){0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}, 12);
    /* fill_: cast rules per dtype, on views too */
    assert_int_equal(tensor_fill_(dst, F(2.7)), TENSOR_OK);
    ew_expect(dst, TENSOR_INT32, (double[]){2, 2, 2, 2, 2, 2}, 6);
    tensor_t *col = tensor_select(mt, 1, 1); /* strided view */
    assert_int_equal(tensor_fill_(col, F(-1.5)), TENSOR_OK);
    ew_expect(m, TENSOR_FLOAT32, (double[]){0, 1, 2, 3, -1.5, -1.5, -1.5, -1.5, 8, 9, 10, 11}, 12);
    tensor_t *u = tensor_zeros(1, (int64_t[]){3}, TENSOR_UINT8, tensor_cpu());
    assert_int_equal(tensor_fill_(u, I(300)), TENSOR_OK);
    ew_expect(u, TENSOR_UINT8, (double[]){44, 44, 44}, 3);
    tensor_t *bb = tensor_zeros(1, (int64_t[]){2}, TENSOR_BOOL, tensor_cpu());
    assert_int_equal(tensor_fill_(bb, I(5)), TENSOR_OK);
    ew_expect(bb, TENSOR_BOOL, (double[]){1, 1}, 2);
    tensor_t *h = tensor_zeros(1, (int64_t[]){2}, TENSOR_BFLOAT16, tensor_cpu());
    assert_int_equal(tensor_fill_(h, F(0.1)), TENSOR_OK);
    ew_expect(h, TENSOR_BFLOAT16, (double[]){0.10009765625, 0.10009765625}, 2);
    tensor_t *e5 = tensor_zeros(1, (int64_t[]){2}, TENSOR_FLOAT8_E5M2, tensor_cpu());
    assert_int_equal(tensor_fill_(e5, F(3.0)), TENSOR_OK);
    ew_expect(e5, TENSOR_FLOAT8_E5M2, (double[]){3, 3}, 2);
    tensor_t *z = tensor_zeros(0, NULL, TENSOR_INT16, tensor_cpu());
    assert_int_equal(tensor_fill_(z, I(-7)), TENSOR_OK);
    ew_expect(z, TENSOR_INT16, (double[]){-7}, 1);
    tensor_t *empty = tensor_zeros(1, (int64_t[]){0}, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_fill_(empty, F(1)), TENSOR_OK);
    tensor_release(empty); tensor_release(z); tensor_release(e5); tensor_release(h); tensor_release(bb);
    tensor_release(u); tensor_release(col); tensor_release(dst2); tensor_release(c); tensor_release(mt);
    tensor_release(m); tensor_release(base); tensor_release(fv); tensor_release(src); tensor_release(dst);
}

/* ---- in-place casting rules ---- */

static void test_inplace_casting(void **state) {
    (void)state;
    tensor_t *i = ew_vec(TENSOR_INT32, (double[]){1, 2}, 2);
    tensor_t *f = ew_vec(TENSOR_FLOAT32, (double[]){0.5, 0.5}, 2);
    tensor_t *l = ew_vec(TENSOR_INT64, (double[]){3, 4}, 2);
    assert_int_equal(tensor_add_(i, f, I(1)), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_add_: result type float32 can't be cast to the desired output type int32");
    ew_expect(i, TENSOR_INT32, (double[]){1, 2}, 2); /* untouched */
    assert_int_equal(tensor_add_(f, l, I(1)), TENSOR_OK);
    ew_expect(f, TENSOR_FLOAT32, (double[]){3.5, 4.5}, 2);
    assert_int_equal(tensor_exp_(i), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_exp_: result type float32 can't be cast");
    tensor_t *b = ew_vec(TENSOR_BOOL, (double[]){1, 0}, 2);
    assert_int_equal(tensor_add_scalar_(b, I(1), I(1)), TENSOR_ERR_DTYPE);
    assert_int_equal(tensor_logical_not_(b), TENSOR_OK);
    ew_expect(b, TENSOR_BOOL, (double[]){0, 1}, 2);
    /* out=: an int64 result into a float64 out is fine, a float result into an int out is not */
    tensor_t *o = tensor_zeros(1, (int64_t[]){2}, TENSOR_FLOAT64, tensor_cpu());
    assert_int_equal(tensor_mul_out(o, l, l), TENSOR_OK);
    ew_expect(o, TENSOR_FLOAT64, (double[]){9, 16}, 2);
    assert_int_equal(tensor_div_out(l, l, l, TENSOR_ROUNDING_NONE), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_div_out: result type float32 can't be cast to the desired output type int64");
    /* a comparison into a float32 out: bool casts to anything */
    tensor_t *of = tensor_zeros(1, (int64_t[]){2}, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_lt_out(of, l, o), TENSOR_OK);
    ew_expect(of, TENSOR_FLOAT32, (double[]){1, 1}, 2);
    tensor_release(of); tensor_release(o); tensor_release(b);
    tensor_release(i); tensor_release(f); tensor_release(l);
}

/* ---- out= and self of another dtype than the common one (found by fuzz_elementwise) ----
 * PyTorch computes in the common dtype and casts the result into out/self afterwards: the
 * result takes the common dtype's values (wrapped, rounded) before the wider output sees it. */

static void test_out_of_another_dtype_gets_common_values(void **state) {
    (void)state;
    /* int8 100 + 100 wraps in int8 (-56) before reaching the int64 out */
    tensor_t *a = ew_vec(TENSOR_INT8, (double[]){100, -100}, 2);
    tensor_t *o64 = tensor_zeros(1, (int64_t[]){2}, TENSOR_INT64, tensor_cpu());
    assert_int_equal(tensor_add_out(o64, a, a, I(1)), TENSOR_OK);
    ew_expect(o64, TENSOR_INT64, (double[]){-56, 56}, 2);
    /* abs(int16 -32768) is -32768 in int16, and so in a float16 out */
    tensor_t *m = ew_vec(TENSOR_INT16, (double[]){-32768, -3}, 2);
    tensor_t *oh = tensor_zeros(1, (int64_t[]){2}, TENSOR_FLOAT16, tensor_cpu());
    assert_int_equal(tensor_abs_out(oh, m), TENSOR_OK);
    ew_expect(oh, TENSOR_FLOAT16, (double[]){-32768, 3}, 2);
    /* float16 1 / 3 into float32: the float16 third, not the float32 one */
    tensor_t *h1 = ew_vec(TENSOR_FLOAT16, (double[]){1, 2}, 2), *h3 = ew_vec(TENSOR_FLOAT16, (double[]){3, 3}, 2);
    tensor_t *of = tensor_zeros(1, (int64_t[]){2}, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_div_out(of, h1, h3, TENSOR_ROUNDING_NONE), TENSOR_OK);
    const double third = tensor_float16_to_float(tensor_float_to_float16(1.0f / 3.0f));
    const double two_thirds = tensor_float16_to_float(tensor_float_to_float16(2.0f / 3.0f));
    ew_expect(of, TENSOR_FLOAT32, (double[]){third, two_thirds}, 2);
    /* bfloat16 256 + 1 into float64: 257 is no bfloat16 value (ties to even: 256) */
    tensor_t *b = ew_vec(TENSOR_BFLOAT16, (double[]){256, 2}, 2), *one = ew_vec(TENSOR_BFLOAT16, (double[]){1, 1}, 2);
    tensor_t *od = tensor_zeros(1, (int64_t[]){2}, TENSOR_FLOAT64, tensor_cpu());
    assert_int_equal(tensor_binary_out(TENSOR_EW_ADD, od, b, one), TENSOR_OK);
    ew_expect(od, TENSOR_FLOAT64, (double[]){256, 3}, 2);
    /* the output's own dtype still decides when it is the common one (unchanged fast path) */
    tensor_t *r = tensor_add(a, a, I(1));
    ew_expect(r, TENSOR_INT8, (double[]){-56, 56}, 2);
    tensor_release(r); tensor_release(b); tensor_release(one); tensor_release(od); tensor_release(h1); tensor_release(h3);
    tensor_release(of); tensor_release(m); tensor_release(oh); tensor_release(a); tensor_release(o64);
}

/* A bool op's alpha is cast to bool, as PyTorch casts alpha to the common dtype: True + -1 *
 * True is True (found by fuzz_elementwise). */
static void test_bool_alpha_is_cast_to_bool(void **state) {
    (void)state;
    tensor_t *t = ew_vec(TENSOR_BOOL, (double[]){1, 1, 0, 0}, 4), *u = ew_vec(TENSOR_BOOL, (double[]){1, 0, 1, 0}, 4);
    tensor_t *r = tensor_add(t, u, I(-1));
    ew_expect(r, TENSOR_BOOL, (double[]){1, 1, 1, 0}, 4);
    tensor_t *rs = tensor_add_scalar(t, tensor_scalar_bool(true), I(-1));
    ew_expect(rs, TENSOR_BOOL, (double[]){1, 1, 1, 1}, 4);
    /* alpha 0 is False: a + 0 * b is a */
    tensor_t *r0 = tensor_add(t, u, I(0));
    ew_expect(r0, TENSOR_BOOL, (double[]){1, 1, 0, 0}, 4);
    tensor_release(r); tensor_release(rs); tensor_release(r0); tensor_release(t); tensor_release(u);
}

/* ---- threads: the same bits for 1 and 4 threads, fast path and tiled path ---- */

static void test_threads_and_paths_agree(void **state) {
    (void)state;
    const int64_t n = 200003;
    tensor_t *x = tensor_randn(1, &n, 7, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *y = tensor_randn(1, &n, 8, TENSOR_FLOAT32, tensor_cpu());
    static const tensor_ew_op ops[] = {TENSOR_EW_SIGMOID, TENSOR_EW_EXP, TENSOR_EW_GELU, TENSOR_EW_ADD,
                                       TENSOR_EW_POW, TENSOR_EW_DIV_FLOOR};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        const bool un = ops[k] <= TENSOR_EW_BITWISE_NOT;
        assert_int_equal(tensor_set_num_threads(1), TENSOR_OK);
        tensor_t *r1 = un ? tensor_unary(ops[k], x) : tensor_binary(ops[k], x, y);
        assert_int_equal(tensor_set_num_threads(4), TENSOR_OK);
        tensor_t *r4 = un ? tensor_unary(ops[k], x) : tensor_binary(ops[k], x, y);
        /* the tiled path: a float64 output forces conversion while storing */
        tensor_t *o64 = tensor_empty(1, &n, TENSOR_FLOAT64, tensor_cpu());
        assert_int_equal(un ? tensor_unary_out(ops[k], o64, x) : tensor_binary_out(ops[k], o64, x, y), TENSOR_OK);
        tensor_t *r64 = tensor_cast(r1, TENSOR_FLOAT64);
        float *a = malloc(sizeof(float) * (size_t)n), *b = malloc(sizeof(float) * (size_t)n);
        double *c = malloc(sizeof(double) * (size_t)n), *d = malloc(sizeof(double) * (size_t)n);
        assert_int_equal(tensor_to_buffer(r1, a, sizeof(float) * (size_t)n), TENSOR_OK);
        assert_int_equal(tensor_to_buffer(r4, b, sizeof(float) * (size_t)n), TENSOR_OK);
        assert_int_equal(tensor_to_buffer(o64, c, sizeof(double) * (size_t)n), TENSOR_OK);
        assert_int_equal(tensor_to_buffer(r64, d, sizeof(double) * (size_t)n), TENSOR_OK);
        assert_memory_equal(a, b, sizeof(float) * (size_t)n);
        assert_memory_equal(c, d, sizeof(double) * (size_t)n);
        free(a); free(b); free(c); free(d);
        tensor_release(r1); tensor_release(r4); tensor_release(o64); tensor_release(r64);
    }
    assert_int_equal(tensor_set_num_threads(0), TENSOR_OK);
    tensor_release(x);
    tensor_release(y);
}

/* float32 -> float16/bfloat16 stores (the CPU kernel's vectorisable conversion) agree bit for
 * bit with the runtime's reference conversion over a dense sample of all float bit patterns,
 * NaNs, infinities, subnormals and the rounding boundaries included; contiguous and strided. */
static void test_f32_to_half_stores(void **state) {
    (void)state;
    const int64_t step = 4093, n = (int64_t)((UINT64_C(1) << 32) / (uint64_t)step) + 64;
    uint32_t *bits = malloc(sizeof(uint32_t) * (size_t)n);
    int64_t k = 0;
    for (uint64_t b = 0; b < (UINT64_C(1) << 32) && k < n - 64; b += (uint64_t)step) bits[k++] = (uint32_t)b;
    static const uint32_t special[] = {0x477FE000u, 0x477FEFFFu, 0x477FF000u, 0x477FF001u, 0x38800000u, 0x387FFFFFu,
                                       0x33000000u, 0x33000001u, 0x32FFFFFFu, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                       0x7F800001u, 0xFFC00001u, 0x00000001u, 0x80000000u, 0x3F800000u, 0x33800000u,
                                       0x337FFFFFu, 0x38000000u, 0x38001000u, 0x38003000u, 0x477FFFFFu, 0x47800000u};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) bits[k++] = special[i];
    while (k < n) bits[k++] = 0x3DCCCCCDu; /* 0.1f */
    tensor_t *f = tensor_from_buffer(bits, 1, &n, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *g = tensor_slice(f, 0, 1, n, 3); /* strided too */
    static const tensor_dtype dts[] = {TENSOR_FLOAT16, TENSOR_BFLOAT16};
    for (int t = 0; t < 2; t++) {
        tensor_t *h = tensor_cast(f, dts[t]);
        tensor_t *hs = tensor_cast(g, dts[t]);
        uint16_t *hb = malloc(sizeof(uint16_t) * (size_t)n);
        uint16_t *hsb = malloc(sizeof(uint16_t) * (size_t)tensor_numel(hs));
        assert_int_equal(tensor_to_buffer(h, hb, sizeof(uint16_t) * (size_t)n), TENSOR_OK);
        assert_int_equal(tensor_to_buffer(hs, hsb, sizeof(uint16_t) * (size_t)tensor_numel(hs)), TENSOR_OK);
        for (int64_t i = 0; i < n; i++) {
            float v;
            memcpy(&v, &bits[i], sizeof v);
            uint16_t want = dts[t] == TENSOR_FLOAT16 ? tensor_float_to_float16(v) : tensor_float_to_bfloat16(v);
            if (hb[i] != want) fail_msg("%s of 0x%08x: got 0x%04x want 0x%04x", tensor_dtype_name(dts[t]), bits[i], hb[i], want);
            if (i % 3 == 1 && hsb[i / 3] != want) fail_msg("strided %s of 0x%08x", tensor_dtype_name(dts[t]), bits[i]);
        }
        free(hb);
        free(hsb);
        tensor_release(h);
        tensor_release(hs);
    }
    tensor_release(g);
    tensor_release(f);
    free(bits);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_f32_to_half_stores),
    cmocka_unit_test(test_promotion_examples),
    cmocka_unit_test(test_division_rounding),
    cmocka_unit_test(test_pow),
    cmocka_unit_test(test_round_sign_nan),
    cmocka_unit_test(test_wrapping),
    cmocka_unit_test(test_bitwise),
    cmocka_unit_test(test_where_clamp),
    cmocka_unit_test(test_half_opmath),
    cmocka_unit_test(test_copy_cast_fill),
    cmocka_unit_test(test_inplace_casting),
    cmocka_unit_test(test_out_of_another_dtype_gets_common_values),
    cmocka_unit_test(test_bool_alpha_is_cast_to_bool),
    cmocka_unit_test(test_threads_and_paths_agree),
};

TENSOR_TEST_GROUP(ew_semantics, tests, NULL, NULL)

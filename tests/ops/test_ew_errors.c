/* Every error path of the elementwise API: NULL arguments of each form, shapes that do not
 * broadcast, outputs of the wrong shape or dtype, overlapping outputs, unknown op codes and
 * rounding modes, bad scalars, the dtype errors of PyTorch Each failing call must
 * return NULL / an error status with a message naming the function and the argument, and
 * must leave no leak (the asan preset runs this file). */
#include "ew_test_util.h"

#define I(v) tensor_scalar_int(v)
#define F(v) tensor_scalar_float(v)

static void test_null_arguments(void **state) {
    (void)state;
    tensor_t *a = ew_vec(TENSOR_FLOAT32, (double[]){1, 2}, 2);
    assert_null(tensor_add(NULL, a, I(1)));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_add: argument 'a' is NULL");
    assert_null(tensor_add(a, NULL, I(1)));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_add: argument 'b' is NULL");
    assert_int_equal(tensor_add_(NULL, a, I(1)), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_add_: argument 'self' is NULL");
    assert_int_equal(tensor_add_out(NULL, a, a, I(1)), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_add_out: argument 'out' is NULL");
    assert_null(tensor_mul_scalar(NULL, I(2)));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_mul_scalar: argument 'a' is NULL");
    assert_int_equal(tensor_mul_scalar_(NULL, I(2)), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_mul_scalar_: argument 'self' is NULL");
    assert_null(tensor_exp(NULL));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_exp: argument 'a' is NULL");
    assert_int_equal(tensor_exp_(NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_exp_out(NULL, a), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_exp_out: argument 'out' is NULL");
    assert_int_equal(tensor_exp_out(a, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_exp_out: argument 'a' is NULL");
    assert_null(tensor_div(NULL, a, TENSOR_ROUNDING_NONE));
    assert_null(tensor_binary_scalar_lhs(TENSOR_EW_SUB, I(1), NULL));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "argument 'b' is NULL");
    assert_null(tensor_where(NULL, a, a));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_where: argument 'condition' is NULL");
    assert_int_equal(tensor_where_out(NULL, a, a, a), TENSOR_ERR_INVALID_ARGUMENT);
    tensor_scalar one = I(1);
    assert_null(tensor_clamp(NULL, a, a));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_clamp: argument 'input' is NULL");
    assert_null(tensor_clamp_scalar(NULL, &one, NULL));
    assert_int_equal(tensor_clamp_(NULL, a, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_clamp_out(NULL, a, a, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_copy_(NULL, a), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_copy_: argument 'dst' is NULL");
    assert_int_equal(tensor_copy_(a, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_copy_: argument 'src' is NULL");
    assert_null(tensor_cast(NULL, TENSOR_FLOAT64));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_cast: argument 't' is NULL");
    assert_int_equal(tensor_fill_(NULL, I(0)), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_fill_: argument 't' is NULL");
    tensor_release(a);
}

static void test_shapes_and_overlap(void **state) {
    (void)state;
    int64_t s23[2] = {2, 3};
    tensor_t *a = tensor_zeros(2, s23, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *b = ew_vec(TENSOR_FLOAT32, (double[]){1, 2}, 2);
    tensor_t *c = ew_vec(TENSOR_FLOAT32, (double[]){1, 2, 3}, 3);
    assert_null(tensor_add(a, b, I(1)));
    assert_error(TENSOR_ERR_SHAPE, "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
    /* out= of the wrong shape that is also an input (it cannot be resized: test_ew_out_resize.c
     * has the other cases); in place where self would have to grow */
    assert_int_equal(tensor_add_out(c, a, c, I(1)), TENSOR_ERR_SHAPE);
    assert_error(TENSOR_ERR_SHAPE, "tensor_add_out: argument 'out' has shape [3], not the result shape "
                 "[2, 3], and shares memory with input 'b': it cannot be resized");
    assert_int_equal(tensor_add_(c, a, I(1)), TENSOR_ERR_SHAPE);
    ew_expect(c, TENSOR_FLOAT32, (double[]){1, 2, 3}, 3);
    /* an expanded (self-overlapping) output */
    tensor_t *e = tensor_expand(c, 2, s23);
    assert_int_equal(tensor_add_(e, a, I(1)), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_fill_(e, F(1)), TENSOR_ERR_INVALID_ARGUMENT);
    /* an output that partly overlaps an input */
    tensor_t *big = tensor_zeros(1, (int64_t[]){4}, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *lo = tensor_narrow(big, 0, 0, 3), *hi = tensor_narrow(big, 0, 1, 3);
    assert_int_equal(tensor_exp_out(hi, lo), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_copy_(hi, lo), TENSOR_ERR_INVALID_ARGUMENT);
    /* copy_ source that does not broadcast to dst */
    assert_int_equal(tensor_copy_(c, a), TENSOR_ERR_SHAPE);
    assert_int_equal(tensor_copy_(b, c), TENSOR_ERR_SHAPE);
    tensor_release(lo); tensor_release(hi); tensor_release(big); tensor_release(e);
    tensor_release(a); tensor_release(b); tensor_release(c);
}

static void test_bad_codes_and_scalars(void **state) {
    (void)state;
    tensor_t *a = ew_vec(TENSOR_FLOAT32, (double[]){1, 2}, 2);
    assert_null(tensor_unary(TENSOR_EW_ADD, a));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_unary: argument 'op'");
    assert_null(tensor_unary((tensor_ew_op)999, a));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_unary: argument 'op'");
    assert_null(tensor_unary(TENSOR_EW_COPY, a));
    assert_null(tensor_binary(TENSOR_EW_EXP, a, a));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "is not a binary op");
    assert_null(tensor_binary((tensor_ew_op)-3, a, a));
    assert_int_equal(tensor_unary_(TENSOR_EW_WHERE, a), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_binary_out(TENSOR_EW_NEG, a, a, a), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_binary_scalar_(TENSOR_EW_FILL, a, I(1)), TENSOR_ERR_INVALID_ARGUMENT);
    assert_null(tensor_div(a, a, (tensor_rounding_mode)7));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_div: argument 'rounding_mode' (7)");
    assert_int_equal(tensor_div_(a, a, (tensor_rounding_mode)-1), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_div_out(a, a, a, (tensor_rounding_mode)3), TENSOR_ERR_INVALID_ARGUMENT);
    assert_null(tensor_div_scalar(a, I(1), (tensor_rounding_mode)3));
    tensor_scalar bad = I(1);
    bad.type = (tensor_scalar_type)9;
    assert_null(tensor_mul_scalar(a, bad));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_mul_scalar: argument 'b' has an unknown scalar type 9");
    assert_null(tensor_add(a, a, bad));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_add: argument 'alpha' has an unknown scalar type");
    assert_int_equal(tensor_fill_(a, bad), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_fill_: argument 'value'");
    assert_null(tensor_cast(a, (tensor_dtype)42));
    assert_error(TENSOR_ERR_DTYPE, "tensor_cast: argument 'dtype'");
    assert_null(tensor_cast(a, TENSOR_DTYPE_DEFAULT));
    assert_string_equal(tensor_ew_op_name(TENSOR_EW_DIV_FLOOR), "floor_divide");
    assert_string_equal(tensor_ew_op_name((tensor_ew_op)1000), "unknown op");
    assert_string_equal(tensor_ew_op_name((tensor_ew_op)-1), "unknown op");
    tensor_release(a);
}

static void test_dtype_errors(void **state) {
    (void)state;
    tensor_t *b = ew_vec(TENSOR_BOOL, (double[]){1, 0}, 2);
    tensor_t *i = ew_vec(TENSOR_INT32, (double[]){1, 2}, 2);
    tensor_t *f = ew_vec(TENSOR_FLOAT32, (double[]){1, 2}, 2);
    assert_null(tensor_sub(b, b, I(1)));
    assert_error(TENSOR_ERR_DTYPE, "tensor_sub: Subtraction, the `-` operator, with two bool tensors is not supported. "
                                   "Use the `^` or `logical_xor()` operator instead.");
    assert_null(tensor_sub(b, i, I(1)));
    assert_error(TENSOR_ERR_DTYPE, "tensor_sub: Subtraction, the `-` operator, with a bool tensor is not supported.");
    assert_null(tensor_sub_scalar(i, tensor_scalar_bool(true), I(1)));
    assert_error(TENSOR_ERR_DTYPE, "with a bool tensor is not supported");
    assert_null(tensor_neg(b));
    assert_error(TENSOR_ERR_DTYPE, "tensor_neg: Negation, the `-` operator, on a bool tensor is not supported.");
    assert_null(tensor_add(i, i, F(1.5)));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT,
                 "tensor_add: argument 'alpha': For integral input tensors, argument alpha must not be a floating point number.");
    assert_null(tensor_add(f, f, tensor_scalar_bool(true)));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "Boolean alpha only supported for Boolean results.");
    tensor_t *ok = tensor_add(b, b, tensor_scalar_bool(true));
    ew_expect(ok, TENSOR_BOOL, (double[]){1, 0}, 2);
    tensor_release(ok);
    assert_null(tensor_pow_scalar(i, I(-2)));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_pow_scalar: Integers to negative integer powers are not allowed.");
    assert_int_equal(tensor_pow_scalar_(i, I(-2)), TENSOR_ERR_INVALID_ARGUMENT);
    assert_null(tensor_gelu(i));
    assert_error(TENSOR_ERR_DTYPE, "tensor_gelu: \"gelu\" not implemented for 'int32'");
    assert_null(tensor_floor(b));
    assert_error(TENSOR_ERR_DTYPE, "\"floor\" not implemented for 'bool'");
    assert_null(tensor_div(b, b, TENSOR_ROUNDING_FLOOR));
    assert_error(TENSOR_ERR_DTYPE, "\"floor_divide\" not implemented for 'bool'");
    tensor_scalar one = I(1);
    assert_null(tensor_clamp_scalar(b, &one, NULL));
    assert_error(TENSOR_ERR_DTYPE, "tensor_clamp_scalar: \"clamp\" not implemented for 'bool'");
    assert_null(tensor_clamp(f, NULL, NULL));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_clamp: At least one of 'min' or 'max' must not be None");
    assert_null(tensor_where(i, f, f));
    assert_error(TENSOR_ERR_DTYPE, "tensor_where: where expected condition to be a boolean tensor");
    /* float8: no arithmetic (PyTorch: NotImplementedError / promotion error) */
    tensor_t *f8 = ew_vec(TENSOR_FLOAT8_E4M3FN, (double[]){1, 2}, 2);
    assert_null(tensor_add(f8, f8, I(1)));
    assert_error(TENSOR_ERR_DTYPE, "tensor_add: \"add\" not implemented for 'float8_e4m3fn'");
    assert_null(tensor_mul(f8, f));
    assert_error(TENSOR_ERR_DTYPE, "Promotion for Float8 Types is not supported");
    assert_null(tensor_exp(f8));
    assert_error(TENSOR_ERR_DTYPE, "not implemented for 'float8_e4m3fn'");
    /* but copy, cast and fill work on float8 */
    tensor_t *g = tensor_cast(f8, TENSOR_FLOAT32);
    ew_expect(g, TENSOR_FLOAT32, (double[]){1, 2}, 2);
    assert_int_equal(tensor_copy_(f8, f), TENSOR_OK);
    assert_int_equal(tensor_fill_(f8, F(0.5)), TENSOR_OK);
    ew_expect(f8, TENSOR_FLOAT8_E4M3FN, (double[]){0.5, 0.5}, 2);
    /* in place: the result must be castable to self */
    assert_int_equal(tensor_sqrt_(i), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_sqrt_: result type float32 can't be cast to the desired output type int32");
    assert_int_equal(tensor_eq_(i, i), TENSOR_OK); /* bool results cast to anything */
    ew_expect(i, TENSOR_INT32, (double[]){1, 1}, 2);
    assert_int_equal(tensor_mul_scalar_(i, F(2.0)), TENSOR_ERR_DTYPE);
    tensor_release(g); tensor_release(f8); tensor_release(b); tensor_release(i); tensor_release(f);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_null_arguments),
    cmocka_unit_test(test_shapes_and_overlap),
    cmocka_unit_test(test_bad_codes_and_scalars),
    cmocka_unit_test(test_dtype_errors),
};

TENSOR_TEST_GROUP(ew_errors, tests, NULL, NULL)

/* The compute loops of the CPU elementwise kernels (cpu/elementwise_compute.h): a switch on
 * the op outside, a plain loop over the functor inside, so that each case is one loop the
 * compiler can vectorise. */
#include "cpu/elementwise_compute.h"
#include "ops/functors/ew_arith.h"
#include "ops/functors/ew_compare.h"
#include "ops/functors/ew_logical.h"
#include "ops/functors/ew_unary.h"

bool tt_cpu_ew_is_predicate(tensor_ew_op op) {
    switch (op) {
    case TENSOR_EW_EQ: case TENSOR_EW_NE: case TENSOR_EW_LT: case TENSOR_EW_LE: case TENSOR_EW_GT: case TENSOR_EW_GE:
    case TENSOR_EW_LOGICAL_AND: case TENSOR_EW_LOGICAL_OR: case TENSOR_EW_LOGICAL_XOR:
    case TENSOR_EW_ISNAN: case TENSOR_EW_ISINF: case TENSOR_EW_ISFINITE: case TENSOR_EW_LOGICAL_NOT:
        return true;
    default: return false;
    }
}

#define U(OP, FN) case OP: for (int64_t i = 0; i < n; i++) o[i] = FN(a[i]); return true;
#define UB(OP, FN) case OP: for (int64_t i = 0; i < n; i++) ob[i] = (uint8_t)FN(a[i]); return true;
#define B(OP, FN) case OP: for (int64_t i = 0; i < n; i++) o[i] = FN(a[i], b[i]); return true;
#define BA(OP, FN, AL) case OP: for (int64_t i = 0; i < n; i++) o[i] = FN(a[i], b[i], AL); return true;
#define BB(OP, FN) case OP: for (int64_t i = 0; i < n; i++) ob[i] = (uint8_t)FN(a[i], b[i]); return true;

/* unary ops shared by f32 and f64 (SFX pastes the functor suffix) */
#define FLOAT_UNARY(SFX)                                                                           \
    U(TENSOR_EW_NEG, tensor_ew_neg_##SFX) U(TENSOR_EW_ABS, tensor_ew_abs_##SFX)                    \
    U(TENSOR_EW_SIGN, tensor_ew_sign_##SFX) U(TENSOR_EW_EXP, tensor_ew_exp_##SFX)                  \
    U(TENSOR_EW_EXP2, tensor_ew_exp2_##SFX) U(TENSOR_EW_LOG, tensor_ew_log_##SFX)                  \
    U(TENSOR_EW_LOG2, tensor_ew_log2_##SFX) U(TENSOR_EW_LOG1P, tensor_ew_log1p_##SFX)              \
    U(TENSOR_EW_EXPM1, tensor_ew_expm1_##SFX) U(TENSOR_EW_SQRT, tensor_ew_sqrt_##SFX)              \
    U(TENSOR_EW_RSQRT, tensor_ew_rsqrt_##SFX) U(TENSOR_EW_SIN, tensor_ew_sin_##SFX)                \
    U(TENSOR_EW_COS, tensor_ew_cos_##SFX) U(TENSOR_EW_TAN, tensor_ew_tan_##SFX)                    \
    U(TENSOR_EW_TANH, tensor_ew_tanh_##SFX) U(TENSOR_EW_SIGMOID, tensor_ew_sigmoid_##SFX)          \
    U(TENSOR_EW_ERF, tensor_ew_erf_##SFX) U(TENSOR_EW_RECIPROCAL, tensor_ew_reciprocal_##SFX)      \
    U(TENSOR_EW_RELU, tensor_ew_relu_##SFX) U(TENSOR_EW_GELU, tensor_ew_gelu_##SFX)                \
    U(TENSOR_EW_GELU_TANH, tensor_ew_gelu_tanh_##SFX)                                              \
    U(TENSOR_EW_SILU, tensor_ew_silu_##SFX) U(TENSOR_EW_FLOOR, tensor_ew_floor_##SFX)              \
    U(TENSOR_EW_CEIL, tensor_ew_ceil_##SFX) U(TENSOR_EW_ROUND, tensor_ew_round_##SFX)              \
    U(TENSOR_EW_TRUNC, tensor_ew_trunc_##SFX) U(TENSOR_EW_COPY, )                                  \
    UB(TENSOR_EW_ISNAN, tensor_ew_isnan_##SFX) UB(TENSOR_EW_ISINF, tensor_ew_isinf_##SFX)          \
    UB(TENSOR_EW_ISFINITE, tensor_ew_isfinite_##SFX) UB(TENSOR_EW_LOGICAL_NOT, tensor_ew_logical_not_##SFX)

bool tt_cpu_ew_unary_f32(tensor_ew_op op, const float *a, float *o, uint8_t *ob, int64_t n) {
    switch (op) {
    FLOAT_UNARY(f32)
    default: return false;
    }
}

bool tt_cpu_ew_unary_f64(tensor_ew_op op, const double *a, double *o, uint8_t *ob, int64_t n) {
    switch (op) {
    FLOAT_UNARY(f64)
    default: return false;
    }
}

bool tt_cpu_ew_unary_i64(tensor_ew_op op, const int64_t *a, int64_t *o, uint8_t *ob, int64_t n) {
    switch (op) {
    U(TENSOR_EW_NEG, tensor_ew_neg_i64) U(TENSOR_EW_ABS, tensor_ew_abs_i64) U(TENSOR_EW_SIGN, tensor_ew_sign_i64)
    U(TENSOR_EW_RELU, tensor_ew_relu_i64) U(TENSOR_EW_FLOOR, tensor_ew_floor_i64)
    U(TENSOR_EW_CEIL, tensor_ew_ceil_i64) U(TENSOR_EW_ROUND, tensor_ew_round_i64)
    U(TENSOR_EW_TRUNC, tensor_ew_trunc_i64) U(TENSOR_EW_BITWISE_NOT, tensor_ew_bitwise_not_i64)
    U(TENSOR_EW_COPY, )
    UB(TENSOR_EW_ISNAN, tensor_ew_isnan_i64) UB(TENSOR_EW_ISINF, tensor_ew_isinf_i64)
    UB(TENSOR_EW_ISFINITE, tensor_ew_isfinite_i64) UB(TENSOR_EW_LOGICAL_NOT, tensor_ew_logical_not_i64)
    default: return false;
    }
}

/* binary ops shared by every compute type */
#define COMMON_BINARY(SFX)                                                                         \
    B(TENSOR_EW_MUL, tensor_ew_mul_##SFX) B(TENSOR_EW_POW, tensor_ew_pow_##SFX)                    \
    B(TENSOR_EW_DIV_FLOOR, tensor_ew_div_floor_##SFX) B(TENSOR_EW_DIV_TRUNC, tensor_ew_div_trunc_##SFX) \
    B(TENSOR_EW_REMAINDER, tensor_ew_remainder_##SFX)                                              \
    B(TENSOR_EW_MAXIMUM, tensor_ew_maximum_##SFX) B(TENSOR_EW_MINIMUM, tensor_ew_minimum_##SFX)    \
    B(TENSOR_EW_FMAX, tensor_ew_fmax_##SFX) B(TENSOR_EW_FMIN, tensor_ew_fmin_##SFX)                \
    BB(TENSOR_EW_EQ, tensor_ew_eq_##SFX) BB(TENSOR_EW_NE, tensor_ew_ne_##SFX)                      \
    BB(TENSOR_EW_LT, tensor_ew_lt_##SFX) BB(TENSOR_EW_LE, tensor_ew_le_##SFX)                      \
    BB(TENSOR_EW_GT, tensor_ew_gt_##SFX) BB(TENSOR_EW_GE, tensor_ew_ge_##SFX)                      \
    BB(TENSOR_EW_LOGICAL_AND, tensor_ew_logical_and_##SFX)                                         \
    BB(TENSOR_EW_LOGICAL_OR, tensor_ew_logical_or_##SFX)                                           \
    BB(TENSOR_EW_LOGICAL_XOR, tensor_ew_logical_xor_##SFX)

bool tt_cpu_ew_binary_f32(tensor_ew_op op, const float *a, const float *b, float *o, uint8_t *ob, int64_t n,
                       cpu_ew_args *args) {
    const float alpha = args->alpha_f32;
    switch (op) {
    /* alpha == 1 (the usual case) gets its own loop: a + b, bitwise the same as a + 1 * b */
    case TENSOR_EW_ADD:
        if (alpha == 1.0f) { for (int64_t i = 0; i < n; i++) o[i] = a[i] + b[i]; return true; }
        for (int64_t i = 0; i < n; i++) o[i] = tensor_ew_add_f32(a[i], b[i], alpha);
        return true;
    case TENSOR_EW_SUB:
        if (alpha == 1.0f) { for (int64_t i = 0; i < n; i++) o[i] = a[i] - b[i]; return true; }
        for (int64_t i = 0; i < n; i++) o[i] = tensor_ew_sub_f32(a[i], b[i], alpha);
        return true;
    B(TENSOR_EW_DIV, tensor_ew_div_f32)
    COMMON_BINARY(f32)
    default: return false;
    }
}

bool tt_cpu_ew_binary_f64(tensor_ew_op op, const double *a, const double *b, double *o, uint8_t *ob, int64_t n,
                       cpu_ew_args *args) {
    const double alpha = args->alpha_f64;
    switch (op) {
    case TENSOR_EW_ADD:
        if (alpha == 1.0) { for (int64_t i = 0; i < n; i++) o[i] = a[i] + b[i]; return true; }
        for (int64_t i = 0; i < n; i++) o[i] = tensor_ew_add_f64(a[i], b[i], alpha);
        return true;
    case TENSOR_EW_SUB:
        if (alpha == 1.0) { for (int64_t i = 0; i < n; i++) o[i] = a[i] - b[i]; return true; }
        for (int64_t i = 0; i < n; i++) o[i] = tensor_ew_sub_f64(a[i], b[i], alpha);
        return true;
    B(TENSOR_EW_DIV, tensor_ew_div_f64)
    COMMON_BINARY(f64)
    default: return false;
    }
}

bool tt_cpu_ew_binary_i64(tensor_ew_op op, const int64_t *a, const int64_t *b, int64_t *o, uint8_t *ob, int64_t n,
                       cpu_ew_args *args) {
    const int64_t alpha = args->alpha_i64;
    if (op == TENSOR_EW_DIV_FLOOR || op == TENSOR_EW_DIV_TRUNC || op == TENSOR_EW_REMAINDER) {
        int zero = 0;
        for (int64_t i = 0; i < n; i++) zero |= tensor_ew_int_div_by_zero(b[i]);
        if (zero) args->zero_divisor = 1;
    }
    switch (op) {
    BA(TENSOR_EW_ADD, tensor_ew_add_i64, alpha)
    BA(TENSOR_EW_SUB, tensor_ew_sub_i64, alpha)
    B(TENSOR_EW_BITWISE_AND, tensor_ew_bitwise_and_i64)
    B(TENSOR_EW_BITWISE_OR, tensor_ew_bitwise_or_i64)
    B(TENSOR_EW_BITWISE_XOR, tensor_ew_bitwise_xor_i64)
    COMMON_BINARY(i64)
    default: return false;
    }
}

#define TERNARY(SFX)                                                                               \
    switch (op) {                                                                                  \
    case TENSOR_EW_WHERE: for (int64_t i = 0; i < n; i++) o[i] = tensor_ew_where_##SFX(cond[i] != 0, b[i], c[i]); return true; \
    case TENSOR_EW_CLAMP: for (int64_t i = 0; i < n; i++) o[i] = tensor_ew_clamp_##SFX(a[i], b[i], c[i]); return true; \
    default: return false;                                                                         \
    }

bool tt_cpu_ew_ternary_f32(tensor_ew_op op, const uint8_t *cond, const float *a, const float *b, const float *c,
                        float *o, int64_t n) {
    TERNARY(f32)
}
bool tt_cpu_ew_ternary_f64(tensor_ew_op op, const uint8_t *cond, const double *a, const double *b, const double *c,
                        double *o, int64_t n) {
    TERNARY(f64)
}
bool tt_cpu_ew_ternary_i64(tensor_ew_op op, const uint8_t *cond, const int64_t *a, const int64_t *b, const int64_t *c,
                        int64_t *o, int64_t n) {
    TERNARY(i64)
}

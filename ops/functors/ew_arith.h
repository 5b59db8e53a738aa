/* Elementwise arithmetic functors: add, sub (with alpha), mul, true / floor / trunc division,
 * remainder, pow. Conventions: ops/functors/ew_common.h. PyTorch references:
 * aten/src/ATen/native/cpu/BinaryOpsKernel.cpp, c10/util/generic_math.h (div_floor_*),
 * aten/src/ATen/native/Pow.h (powi). */
#ifndef TENSOR_FUNCTORS_EW_ARITH_H
#define TENSOR_FUNCTORS_EW_ARITH_H

#include "tinytensor/ops/functors/ew_common.h"

/* ---- add / sub: a + alpha * b, a - alpha * b (int64 wraps) ---- */
TENSOR_INLINE float tensor_ew_add_f32(float a, float b, float alpha) { return a + alpha * b; }
TENSOR_INLINE double tensor_ew_add_f64(double a, double b, double alpha) { return a + alpha * b; }
TENSOR_INLINE int64_t tensor_ew_add_i64(int64_t a, int64_t b, int64_t alpha) {
    return (int64_t)((uint64_t)a + (uint64_t)alpha * (uint64_t)b);
}
TENSOR_INLINE float tensor_ew_sub_f32(float a, float b, float alpha) { return a - alpha * b; }
TENSOR_INLINE double tensor_ew_sub_f64(double a, double b, double alpha) { return a - alpha * b; }
TENSOR_INLINE int64_t tensor_ew_sub_i64(int64_t a, int64_t b, int64_t alpha) {
    return (int64_t)((uint64_t)a - (uint64_t)alpha * (uint64_t)b);
}

/* ---- mul ---- */
TENSOR_INLINE float tensor_ew_mul_f32(float a, float b) { return a * b; }
TENSOR_INLINE double tensor_ew_mul_f64(double a, double b) { return a * b; }
TENSOR_INLINE int64_t tensor_ew_mul_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* ---- true division (integers never get here: their result dtype is float32) ---- */
TENSOR_INLINE float tensor_ew_div_f32(float a, float b) { return a / b; }
TENSOR_INLINE double tensor_ew_div_f64(double a, double b) { return a / b; }

/* ---- integer division helpers: b == 0 returns 0 (the backend reports the error: PyTorch's
 * CPU raises ZeroDivisionError), b == -1 wraps (INT64_MIN / -1 is undefined in C) ---- */
TENSOR_INLINE bool tensor_ew_int_div_by_zero(int64_t b) { return b == 0; }
TENSOR_INLINE int64_t tensor_ew_div_trunc_i64(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return (int64_t)(0u - (uint64_t)a);
    return a / b;
}
/* floor division: truncation, minus one when the signs differ and the remainder is non-zero */
TENSOR_INLINE int64_t tensor_ew_div_floor_i64(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return (int64_t)(0u - (uint64_t)a);
    const int64_t q = a / b, r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
/* remainder with the divisor's sign (Python's %) */
TENSOR_INLINE int64_t tensor_ew_remainder_i64(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    const int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/* ---- float trunc / floor division and remainder (c10's div_floor_floating) ---- */
TENSOR_INLINE float tensor_ew_div_trunc_f32(float a, float b) { return truncf(a / b); }
TENSOR_INLINE double tensor_ew_div_trunc_f64(double a, double b) { return trunc(a / b); }
TENSOR_INLINE float tensor_ew_div_floor_f32(float a, float b) {
    if (b == 0.0f) return a / b; /* IEEE: +-inf or NaN */
    const float mod = fmodf(a, b);
    float div = (a - mod) / b;
    if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) div -= 1.0f;
    if (div == 0.0f) return copysignf(0.0f, a / b);
    float fl = floorf(div);
    if (div - fl > 0.5f) fl += 1.0f;
    return fl;
}
TENSOR_INLINE double tensor_ew_div_floor_f64(double a, double b) {
    if (b == 0.0) return a / b;
    const double mod = fmod(a, b);
    double div = (a - mod) / b;
    if (mod != 0.0 && ((b < 0.0) != (mod < 0.0))) div -= 1.0;
    if (div == 0.0) return copysign(0.0, a / b);
    double fl = floor(div);
    if (div - fl > 0.5) fl += 1.0;
    return fl;
}
TENSOR_INLINE float tensor_ew_remainder_f32(float a, float b) {
    float mod = fmodf(a, b);
    if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) mod += b;
    return mod;
}
TENSOR_INLINE double tensor_ew_remainder_f64(double a, double b) {
    double mod = fmod(a, b);
    if (mod != 0.0 && ((b < 0.0) != (mod < 0.0))) mod += b;
    return mod;
}

/* ---- pow ---- */
TENSOR_INLINE float tensor_ew_pow_f32(float a, float b) { return powf(a, b); }
TENSOR_INLINE double tensor_ew_pow_f64(double a, double b) { return pow(a, b); }
/* Exact, wrapping, by squaring. A negative exponent gives 1 for a == 1, +-1 for a == -1 and
 * 0 otherwise (PyTorch's powi for tensor exponents; a negative SCALAR exponent is rejected
 * by ops/ before any kernel runs). */
TENSOR_INLINE int64_t tensor_ew_pow_i64(int64_t a, int64_t b) {
    if (b < 0) {
        if (a == 1) return 1;
        if (a == -1) return (b & 1) ? -1 : 1;
        return 0;
    }
    uint64_t result = 1, base = (uint64_t)a;
    uint64_t e = (uint64_t)b;
    while (e != 0) {
        if (e & 1u) result *= base;
        base *= base;
        e >>= 1;
    }
    return (int64_t)result;
}

#endif

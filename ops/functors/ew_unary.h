/* Elementwise unary functors. Math functions exist for f32 (float16, bfloat16 and float32
 * compute in float) and f64; the ops that keep integer dtypes (neg, abs, sign, relu, floor,
 * ceil, round, trunc) also have i64 forms (floor .. trunc are the identity on integers).
 * isnan/isinf/isfinite return bool. Conventions: ops/functors/ew_common.h.
 * CPU and CUDA use their own libm (expf, sinf, ...): results may differ by an ulp between
 * backends; within one backend they are bitwise reproducible. */
#ifndef TENSOR_FUNCTORS_EW_UNARY_H
#define TENSOR_FUNCTORS_EW_UNARY_H

#include "tinytensor/ops/functors/ew_common.h"

/* Math functions by suffix: NAME_f32 uses FN32 (float libm), NAME_f64 uses FN64. */
#define TENSOR_EW_DEFINE_MATH(NAME, FN32, FN64)                                                    \
    TENSOR_INLINE float tensor_ew_##NAME##_f32(float a) { return FN32(a); }                        \
    TENSOR_INLINE double tensor_ew_##NAME##_f64(double a) { return FN64(a); }
TENSOR_EW_DEFINE_MATH(exp, expf, exp)
TENSOR_EW_DEFINE_MATH(exp2, exp2f, exp2)
TENSOR_EW_DEFINE_MATH(log, logf, log)
TENSOR_EW_DEFINE_MATH(log2, log2f, log2)
TENSOR_EW_DEFINE_MATH(log1p, log1pf, log1p)
TENSOR_EW_DEFINE_MATH(expm1, expm1f, expm1)
TENSOR_EW_DEFINE_MATH(sqrt, sqrtf, sqrt)
TENSOR_EW_DEFINE_MATH(sin, sinf, sin)
TENSOR_EW_DEFINE_MATH(cos, cosf, cos)
TENSOR_EW_DEFINE_MATH(tan, tanf, tan)
TENSOR_EW_DEFINE_MATH(tanh, tanhf, tanh)
TENSOR_EW_DEFINE_MATH(erf, erff, erf)
TENSOR_EW_DEFINE_MATH(floor, floorf, floor)
TENSOR_EW_DEFINE_MATH(ceil, ceilf, ceil)
TENSOR_EW_DEFINE_MATH(round, rintf, rint) /* half to even in the default rounding mode */
TENSOR_EW_DEFINE_MATH(trunc, truncf, trunc)
#undef TENSOR_EW_DEFINE_MATH

/* integers: floor, ceil, round and trunc are the identity */
TENSOR_INLINE int64_t tensor_ew_floor_i64(int64_t a) { return a; }
TENSOR_INLINE int64_t tensor_ew_ceil_i64(int64_t a) { return a; }
TENSOR_INLINE int64_t tensor_ew_round_i64(int64_t a) { return a; }
TENSOR_INLINE int64_t tensor_ew_trunc_i64(int64_t a) { return a; }

/* 1 / sqrt(x) with both operations correctly rounded (not the device's approximate rsqrtf) */
TENSOR_INLINE float tensor_ew_rsqrt_f32(float a) { return 1.0f / sqrtf(a); }
TENSOR_INLINE double tensor_ew_rsqrt_f64(double a) { return 1.0 / sqrt(a); }
TENSOR_INLINE float tensor_ew_reciprocal_f32(float a) { return 1.0f / a; }
TENSOR_INLINE double tensor_ew_reciprocal_f64(double a) { return 1.0 / a; }

/* sigmoid(x) = 1 / (1 + exp(-x)); silu(x) = x * sigmoid(x) computed as x / (1 + exp(-x));
 * gelu(x) = x / 2 * (1 + erf(x / sqrt(2))) (PyTorch's approximate='none'; the tanh form is below) */
TENSOR_INLINE float tensor_ew_sigmoid_f32(float a) { return 1.0f / (1.0f + expf(-a)); }
TENSOR_INLINE double tensor_ew_sigmoid_f64(double a) { return 1.0 / (1.0 + exp(-a)); }
TENSOR_INLINE float tensor_ew_silu_f32(float a) { return a / (1.0f + expf(-a)); }
TENSOR_INLINE double tensor_ew_silu_f64(double a) { return a / (1.0 + exp(-a)); }
TENSOR_INLINE float tensor_ew_gelu_f32(float a) { return a * 0.5f * (1.0f + erff(a * 0.70710678118654752440f)); }
TENSOR_INLINE double tensor_ew_gelu_f64(double a) { return a * 0.5 * (1.0 + erf(a * 0.70710678118654752440)); }

/* gelu, approximate='tanh': 0.5 x (1 + tanh(kBeta (x + kKappa x^3))), with PyTorch's
 * constants and order of operations (GeluKernel.cpp, GeluKernel.cu: kBeta = sqrt(2) *
 * (2 / sqrt(pi)) * 0.5 = sqrt(2 / pi) rounded to the compute type, kKappa = 0.044715).
 * A compiler that contracts `x + kKappa * x3` into an FMA (nvcc does by default) rounds once
 * less: the CUDA backend defines its own form with the product rounded on its own. */
#define TENSOR_EW_GELU_TANH_BETA 0.79788456080286535588
#define TENSOR_EW_GELU_TANH_KAPPA 0.044715
TENSOR_INLINE float tensor_ew_gelu_tanh_f32(float a) {
    const float x3 = a * a * a;
    const float inner = (float)TENSOR_EW_GELU_TANH_BETA * (a + (float)TENSOR_EW_GELU_TANH_KAPPA * x3);
    return 0.5f * a * (1.0f + tanhf(inner));
}
TENSOR_INLINE double tensor_ew_gelu_tanh_f64(double a) {
    const double x3 = a * a * a;
    const double inner = TENSOR_EW_GELU_TANH_BETA * (a + TENSOR_EW_GELU_TANH_KAPPA * x3);
    return 0.5 * a * (1.0 + tanh(inner));
}

/* neg, abs (int64: INT64_MIN stays INT64_MIN, wrapping, as PyTorch's int types) */
TENSOR_INLINE float tensor_ew_neg_f32(float a) { return -a; }
TENSOR_INLINE double tensor_ew_neg_f64(double a) { return -a; }
TENSOR_INLINE int64_t tensor_ew_neg_i64(int64_t a) { return (int64_t)(0u - (uint64_t)a); }
TENSOR_INLINE float tensor_ew_abs_f32(float a) { return fabsf(a); }
TENSOR_INLINE double tensor_ew_abs_f64(double a) { return fabs(a); }
TENSOR_INLINE int64_t tensor_ew_abs_i64(int64_t a) { return a < 0 ? (int64_t)(0u - (uint64_t)a) : a; }

/* sign: -1, 0 or 1; sign(NaN) = 0 and sign(-0.0) = +0 (PyTorch's (0 < a) - (a < 0)) */
TENSOR_INLINE float tensor_ew_sign_f32(float a) { return (float)((0.0f < a) - (a < 0.0f)); }
TENSOR_INLINE double tensor_ew_sign_f64(double a) { return (double)((0.0 < a) - (a < 0.0)); }
TENSOR_INLINE int64_t tensor_ew_sign_i64(int64_t a) { return (int64_t)((0 < a) - (a < 0)); }

/* relu: max(x, 0) with NaN kept */
TENSOR_INLINE float tensor_ew_relu_f32(float a) { return (a != a || a > 0.0f) ? a : 0.0f; }
TENSOR_INLINE double tensor_ew_relu_f64(double a) { return (a != a || a > 0.0) ? a : 0.0; }
TENSOR_INLINE int64_t tensor_ew_relu_i64(int64_t a) { return a > 0 ? a : 0; }

/* classification */
TENSOR_INLINE bool tensor_ew_isnan_f32(float a) { return a != a; }
TENSOR_INLINE bool tensor_ew_isnan_f64(double a) { return a != a; }
TENSOR_INLINE bool tensor_ew_isnan_i64(int64_t a) { (void)a; return false; }
TENSOR_INLINE bool tensor_ew_isinf_f32(float a) { return fabsf(a) == HUGE_VALF; }
TENSOR_INLINE bool tensor_ew_isinf_f64(double a) { return fabs(a) == HUGE_VAL; }
TENSOR_INLINE bool tensor_ew_isinf_i64(int64_t a) { (void)a; return false; }
TENSOR_INLINE bool tensor_ew_isfinite_f32(float a) { return fabsf(a) < HUGE_VALF; }
TENSOR_INLINE bool tensor_ew_isfinite_f64(double a) { return fabs(a) < HUGE_VAL; }
TENSOR_INLINE bool tensor_ew_isfinite_i64(int64_t a) { (void)a; return true; }

#endif

/* Elementwise comparison-like functors: maximum / minimum (NaN propagates), fmax / fmin (NaN
 * ignored), eq .. ge (bool results), clamp and where. Conventions: ops/functors/ew_common.h. */
#ifndef TENSOR_FUNCTORS_EW_COMPARE_H
#define TENSOR_FUNCTORS_EW_COMPARE_H

#include "tinytensor/ops/functors/ew_common.h"

/* maximum / minimum: a NaN operand gives NaN (PyTorch returns a quiet NaN); otherwise
 * std::max / std::min, i.e. `a` on ties (max(-0.0, +0.0) is -0.0). */
TENSOR_INLINE float tensor_ew_maximum_f32(float a, float b) {
    return (a != a || b != b) ? tensor_fn_nan_f32() : (a < b ? b : a);
}
TENSOR_INLINE double tensor_ew_maximum_f64(double a, double b) {
    return (a != a || b != b) ? tensor_fn_nan_f64() : (a < b ? b : a);
}
TENSOR_INLINE int64_t tensor_ew_maximum_i64(int64_t a, int64_t b) { return a < b ? b : a; }
TENSOR_INLINE float tensor_ew_minimum_f32(float a, float b) {
    return (a != a || b != b) ? tensor_fn_nan_f32() : (b < a ? b : a);
}
TENSOR_INLINE double tensor_ew_minimum_f64(double a, double b) {
    return (a != a || b != b) ? tensor_fn_nan_f64() : (b < a ? b : a);
}
TENSOR_INLINE int64_t tensor_ew_minimum_i64(int64_t a, int64_t b) { return b < a ? b : a; }

/* fmax / fmin: C's fmax/fmin (a NaN operand yields the other; both NaN give NaN). */
TENSOR_INLINE float tensor_ew_fmax_f32(float a, float b) { return fmaxf(a, b); }
TENSOR_INLINE double tensor_ew_fmax_f64(double a, double b) { return fmax(a, b); }
TENSOR_INLINE int64_t tensor_ew_fmax_i64(int64_t a, int64_t b) { return a < b ? b : a; }
TENSOR_INLINE float tensor_ew_fmin_f32(float a, float b) { return fminf(a, b); }
TENSOR_INLINE double tensor_ew_fmin_f64(double a, double b) { return fmin(a, b); }
TENSOR_INLINE int64_t tensor_ew_fmin_i64(int64_t a, int64_t b) { return b < a ? b : a; }

/* comparisons: IEEE (NaN compares unequal to everything, ne is true) */
#define TENSOR_EW_DEFINE_CMP(NAME, OP)                                                             \
    TENSOR_INLINE bool tensor_ew_##NAME##_f32(float a, float b) { return a OP b; }                 \
    TENSOR_INLINE bool tensor_ew_##NAME##_f64(double a, double b) { return a OP b; }               \
    TENSOR_INLINE bool tensor_ew_##NAME##_i64(int64_t a, int64_t b) { return a OP b; }
TENSOR_EW_DEFINE_CMP(eq, ==)
TENSOR_EW_DEFINE_CMP(ne, !=)
TENSOR_EW_DEFINE_CMP(lt, <)
TENSOR_EW_DEFINE_CMP(le, <=)
TENSOR_EW_DEFINE_CMP(gt, >)
TENSOR_EW_DEFINE_CMP(ge, >=)
#undef TENSOR_EW_DEFINE_CMP

/* clamp(x, lo, hi) = min(max(x, lo), hi): any NaN operand gives NaN; lo > hi gives hi. */
TENSOR_INLINE float tensor_ew_clamp_f32(float x, float lo, float hi) {
    if (x != x || lo != lo || hi != hi) return tensor_fn_nan_f32();
    const float t = x < lo ? lo : x;
    return hi < t ? hi : t;
}
TENSOR_INLINE double tensor_ew_clamp_f64(double x, double lo, double hi) {
    if (x != x || lo != lo || hi != hi) return tensor_fn_nan_f64();
    const double t = x < lo ? lo : x;
    return hi < t ? hi : t;
}
TENSOR_INLINE int64_t tensor_ew_clamp_i64(int64_t x, int64_t lo, int64_t hi) {
    const int64_t t = x < lo ? lo : x;
    return hi < t ? hi : t;
}

/* where(cond, a, b) */
TENSOR_INLINE float tensor_ew_where_f32(bool c, float a, float b) { return c ? a : b; }
TENSOR_INLINE double tensor_ew_where_f64(bool c, double a, double b) { return c ? a : b; }
TENSOR_INLINE int64_t tensor_ew_where_i64(bool c, int64_t a, int64_t b) { return c ? a : b; }

#endif

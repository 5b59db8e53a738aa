/* Elementwise logical and bitwise functors. Logical ops look at x != 0 (NaN is true) and give
 * bool; bitwise ops are for integers and bool (i64 only: ops/ rejects floating dtypes, and
 * turns bitwise_not of bool into logical_not, since ~1 is not a bool). Conventions:
 * ops/functors/ew_common.h. */
#ifndef TENSOR_FUNCTORS_EW_LOGICAL_H
#define TENSOR_FUNCTORS_EW_LOGICAL_H

#include "tinytensor/ops/functors/ew_common.h"

#define TENSOR_EW_DEFINE_LOGICAL(NAME, EXPR)                                                       \
    TENSOR_INLINE bool tensor_ew_##NAME##_f32(float a, float b) { const bool x = a != 0.0f, y = b != 0.0f; return EXPR; } \
    TENSOR_INLINE bool tensor_ew_##NAME##_f64(double a, double b) { const bool x = a != 0.0, y = b != 0.0; return EXPR; } \
    TENSOR_INLINE bool tensor_ew_##NAME##_i64(int64_t a, int64_t b) { const bool x = a != 0, y = b != 0; return EXPR; }
TENSOR_EW_DEFINE_LOGICAL(logical_and, x && y)
TENSOR_EW_DEFINE_LOGICAL(logical_or, x || y)
TENSOR_EW_DEFINE_LOGICAL(logical_xor, x != y)
#undef TENSOR_EW_DEFINE_LOGICAL

TENSOR_INLINE bool tensor_ew_logical_not_f32(float a) { return !(a != 0.0f); }
TENSOR_INLINE bool tensor_ew_logical_not_f64(double a) { return !(a != 0.0); }
TENSOR_INLINE bool tensor_ew_logical_not_i64(int64_t a) { return a == 0; }

TENSOR_INLINE int64_t tensor_ew_bitwise_and_i64(int64_t a, int64_t b) { return a & b; }
TENSOR_INLINE int64_t tensor_ew_bitwise_or_i64(int64_t a, int64_t b) { return a | b; }
TENSOR_INLINE int64_t tensor_ew_bitwise_xor_i64(int64_t a, int64_t b) { return a ^ b; }
TENSOR_INLINE int64_t tensor_ew_bitwise_not_i64(int64_t a) { return ~a; }

#endif

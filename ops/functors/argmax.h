/* argmax / argmin: max.h's (value, index) accumulator, projected to the index (int64).
 * First index on ties, first NaN wins (argmax([1, nan, 3, nan, -inf]) == argmin(...) == 1).
 * The index is the element's position along the reduced dim (the frontend flattens the
 * input when no dim is given, so it is then the row-major flat index). Variants f32 / f64 /
 * i64. */
#ifndef TENSOR_FUNCTOR_ARGMAX_H
#define TENSOR_FUNCTOR_ARGMAX_H

#include "tinytensor/ops/functors/max.h"

#define TENSOR_ARGMAXMIN_FUNCTOR(SFX, T)                                                           \
    TENSOR_INLINE tensor_validx_##SFX tensor_argmax_##SFX##_identity(void) {                       \
        return tensor_max_##SFX##_identity();                                                      \
    }                                                                                              \
    TENSOR_INLINE tensor_validx_##SFX tensor_argmax_##SFX##_reduce(tensor_validx_##SFX acc, T x,   \
                                                                  int64_t index) {                 \
        return tensor_max_##SFX##_reduce(acc, x, index);                                           \
    }                                                                                              \
    TENSOR_INLINE tensor_validx_##SFX tensor_argmax_##SFX##_combine(tensor_validx_##SFX a,         \
                                                                   tensor_validx_##SFX b) {        \
        return tensor_max_##SFX##_combine(a, b);                                                   \
    }                                                                                              \
    TENSOR_INLINE int64_t tensor_argmax_##SFX##_project(tensor_validx_##SFX acc) { return acc.index; } \
                                                                                                   \
    TENSOR_INLINE tensor_validx_##SFX tensor_argmin_##SFX##_identity(void) {                       \
        return tensor_min_##SFX##_identity();                                                      \
    }                                                                                              \
    TENSOR_INLINE tensor_validx_##SFX tensor_argmin_##SFX##_reduce(tensor_validx_##SFX acc, T x,   \
                                                                  int64_t index) {                 \
        return tensor_min_##SFX##_reduce(acc, x, index);                                           \
    }                                                                                              \
    TENSOR_INLINE tensor_validx_##SFX tensor_argmin_##SFX##_combine(tensor_validx_##SFX a,         \
                                                                   tensor_validx_##SFX b) {        \
        return tensor_min_##SFX##_combine(a, b);                                                   \
    }                                                                                              \
    TENSOR_INLINE int64_t tensor_argmin_##SFX##_project(tensor_validx_##SFX acc) { return acc.index; }

TENSOR_ARGMAXMIN_FUNCTOR(f32, float)
TENSOR_ARGMAXMIN_FUNCTOR(f64, double)
TENSOR_ARGMAXMIN_FUNCTOR(i64, int64_t)

#endif

/* prod: acc * x. Identity 1. NaN propagates through the multiplication (prod([0, nan]) is
 * nan). The i64 variant wraps (prod(int64 [2^62, 4]) == 0). Variants f32 / f64 / i64. */
#ifndef TENSOR_FUNCTOR_PROD_H
#define TENSOR_FUNCTOR_PROD_H

#include "tinytensor/ops/functors/common.h"

#define TENSOR_PROD_FUNCTOR(SFX, T)                                                                \
    TENSOR_INLINE T tensor_prod_##SFX##_identity(void) { return (T)1; }                            \
    TENSOR_INLINE T tensor_prod_##SFX##_reduce(T acc, T x, int64_t index) {                        \
        (void)index;                                                                               \
        return tensor_fn_mul_##SFX(acc, x);                                                        \
    }                                                                                              \
    TENSOR_INLINE T tensor_prod_##SFX##_combine(T a, T b) { return tensor_fn_mul_##SFX(a, b); }    \
    TENSOR_INLINE T tensor_prod_##SFX##_project(T acc) { return acc; }

TENSOR_PROD_FUNCTOR(f32, float)
TENSOR_PROD_FUNCTOR(f64, double)
TENSOR_PROD_FUNCTOR(i64, int64_t)

#endif

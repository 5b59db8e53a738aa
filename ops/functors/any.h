/* any: true when some element is != 0 (NaN is true). Identity false (any of nothing is
 * false). The accumulator is a bool; the output is bool (uint8 0/1 for a uint8 input, as
 * PyTorch). SFX = f32 / f64 / i64 names the element's value type. */
#ifndef TENSOR_FUNCTOR_ANY_H
#define TENSOR_FUNCTOR_ANY_H

#include "tinytensor/ops/functors/common.h"

#define TENSOR_ANY_FUNCTOR(SFX, T)                                                                 \
    TENSOR_INLINE bool tensor_any_##SFX##_identity(void) { return false; }                         \
    TENSOR_INLINE bool tensor_any_##SFX##_reduce(bool acc, T x, int64_t index) {                   \
        (void)index;                                                                               \
        return acc || x != (T)0;                                                                   \
    }                                                                                              \
    TENSOR_INLINE bool tensor_any_##SFX##_combine(bool a, bool b) { return a || b; }               \
    TENSOR_INLINE bool tensor_any_##SFX##_project(bool acc) { return acc; }

TENSOR_ANY_FUNCTOR(f32, float)
TENSOR_ANY_FUNCTOR(f64, double)
TENSOR_ANY_FUNCTOR(i64, int64_t)

#endif

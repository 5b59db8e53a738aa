/* count_nonzero: the number of elements != 0, as int64 (NaN counts; -0.0 does not). The
 * element is compared in its own value type (SFX = f32 / f64 / i64 names the value type);
 * the accumulator is always int64_t. */
#ifndef TENSOR_FUNCTOR_COUNT_NONZERO_H
#define TENSOR_FUNCTOR_COUNT_NONZERO_H

#include "tinytensor/ops/functors/common.h"

#define TENSOR_COUNT_NONZERO_FUNCTOR(SFX, T)                                                       \
    TENSOR_INLINE int64_t tensor_count_nonzero_##SFX##_identity(void) { return 0; }                \
    TENSOR_INLINE int64_t tensor_count_nonzero_##SFX##_reduce(int64_t acc, T x, int64_t index) {   \
        (void)index;                                                                               \
        return acc + (x != (T)0);                                                                  \
    }                                                                                              \
    TENSOR_INLINE int64_t tensor_count_nonzero_##SFX##_combine(int64_t a, int64_t b) { return a + b; } \
    TENSOR_INLINE int64_t tensor_count_nonzero_##SFX##_project(int64_t acc) { return acc; }

TENSOR_COUNT_NONZERO_FUNCTOR(f32, float)
TENSOR_COUNT_NONZERO_FUNCTOR(f64, double)
TENSOR_COUNT_NONZERO_FUNCTOR(i64, int64_t)

#endif

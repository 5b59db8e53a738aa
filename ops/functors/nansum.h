/* nansum: sum that treats NaN as 0 (nansum([1, nan, 3, nan, -inf]) == -inf). Integers have no
 * NaN: the i64 variant is the plain (wrapping) sum. Variants f32 / f64 / i64 as sum.h. */
#ifndef TENSOR_FUNCTOR_NANSUM_H
#define TENSOR_FUNCTOR_NANSUM_H

#include "tinytensor/ops/functors/common.h"

#define TENSOR_NANSUM_FUNCTOR(SFX, T)                                                              \
    TENSOR_INLINE T tensor_nansum_##SFX##_identity(void) { return (T)0; }                          \
    TENSOR_INLINE T tensor_nansum_##SFX##_reduce(T acc, T x, int64_t index) {                      \
        (void)index;                                                                               \
        return tensor_fn_isnan_##SFX(x) ? acc : tensor_fn_add_##SFX(acc, x);                       \
    }                                                                                              \
    TENSOR_INLINE T tensor_nansum_##SFX##_combine(T a, T b) { return tensor_fn_add_##SFX(a, b); }  \
    TENSOR_INLINE T tensor_nansum_##SFX##_project(T acc) { return acc; }

TENSOR_NANSUM_FUNCTOR(f32, float)
TENSOR_NANSUM_FUNCTOR(f64, double)
TENSOR_NANSUM_FUNCTOR(i64, int64_t)

#endif

/* amax / amin: the largest / smallest value; NaN propagates (any NaN gives NaN). The sign of
 * a zero result is unspecified, as in PyTorch (the CPU keeps the earlier of -0.0 and +0.0).
 * Identity: -inf / +inf (floats), INT64_MIN / INT64_MAX (i64). The value type is the input's
 * own (amax never widens: a float16 input is compared as float, exactly). Variants f32 / f64
 * / i64. */
#ifndef TENSOR_FUNCTOR_AMAX_H
#define TENSOR_FUNCTOR_AMAX_H

#include "tinytensor/ops/functors/common.h"

#define TENSOR_AMAX_FUNCTOR(SFX, T)                                                                \
    TENSOR_INLINE T tensor_amax_##SFX##_identity(void) { return tensor_fn_lowest_##SFX(); }        \
    TENSOR_INLINE T tensor_amax_##SFX##_combine(T a, T b) {                                        \
        /* a NaN in a stays (b > NaN is false); a NaN in b is taken. */                            \
        return (tensor_fn_isnan_##SFX(b) || b > a) ? b : a;                                        \
    }                                                                                              \
    TENSOR_INLINE T tensor_amax_##SFX##_reduce(T acc, T x, int64_t index) {                        \
        (void)index;                                                                               \
        return tensor_amax_##SFX##_combine(acc, x);                                                \
    }                                                                                              \
    TENSOR_INLINE T tensor_amax_##SFX##_project(T acc) { return acc; }                             \
                                                                                                   \
    TENSOR_INLINE T tensor_amin_##SFX##_identity(void) { return tensor_fn_highest_##SFX(); }       \
    TENSOR_INLINE T tensor_amin_##SFX##_combine(T a, T b) {                                        \
        return (tensor_fn_isnan_##SFX(b) || b < a) ? b : a;                                        \
    }                                                                                              \
    TENSOR_INLINE T tensor_amin_##SFX##_reduce(T acc, T x, int64_t index) {                        \
        (void)index;                                                                               \
        return tensor_amin_##SFX##_combine(acc, x);                                                \
    }                                                                                              \
    TENSOR_INLINE T tensor_amin_##SFX##_project(T acc) { return acc; }

TENSOR_AMAX_FUNCTOR(f32, float)
TENSOR_AMAX_FUNCTOR(f64, double)
TENSOR_AMAX_FUNCTOR(i64, int64_t)

#endif

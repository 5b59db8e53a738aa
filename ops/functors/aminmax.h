/* aminmax: the smallest and the largest value in one pass, each with amin's / amax's rules
 * (amax.h): NaN propagates into both, the value type is the input's own. Two outputs: min,
 * then max (torch.aminmax's order). Variants f32 / f64 / i64. */
#ifndef TENSOR_FUNCTOR_AMINMAX_H
#define TENSOR_FUNCTOR_AMINMAX_H

#include "tinytensor/ops/functors/amax.h"

#define TENSOR_AMINMAX_FUNCTOR(SFX, T)                                                             \
    typedef struct tensor_minmax_##SFX {                                                           \
        T min;                                                                                     \
        T max;                                                                                     \
    } tensor_minmax_##SFX;                                                                         \
    TENSOR_INLINE tensor_minmax_##SFX tensor_aminmax_##SFX##_identity(void) {                      \
        tensor_minmax_##SFX r;                                                                     \
        r.min = tensor_amin_##SFX##_identity();                                                    \
        r.max = tensor_amax_##SFX##_identity();                                                    \
        return r;                                                                                  \
    }                                                                                              \
    TENSOR_INLINE tensor_minmax_##SFX tensor_aminmax_##SFX##_combine(tensor_minmax_##SFX a,        \
                                                                    tensor_minmax_##SFX b) {       \
        a.min = tensor_amin_##SFX##_combine(a.min, b.min);                                         \
        a.max = tensor_amax_##SFX##_combine(a.max, b.max);                                         \
        return a;                                                                                  \
    }                                                                                              \
    TENSOR_INLINE tensor_minmax_##SFX tensor_aminmax_##SFX##_reduce(tensor_minmax_##SFX acc, T x,  \
                                                                   int64_t index) {                \
        (void)index;                                                                               \
        acc.min = tensor_amin_##SFX##_combine(acc.min, x);                                         \
        acc.max = tensor_amax_##SFX##_combine(acc.max, x);                                         \
        return acc;                                                                                \
    }                                                                                              \
    TENSOR_INLINE T tensor_aminmax_##SFX##_project_min(tensor_minmax_##SFX acc) { return acc.min; } \
    TENSOR_INLINE T tensor_aminmax_##SFX##_project_max(tensor_minmax_##SFX acc) { return acc.max; }

TENSOR_AMINMAX_FUNCTOR(f32, float)
TENSOR_AMINMAX_FUNCTOR(f64, double)
TENSOR_AMINMAX_FUNCTOR(i64, int64_t)

#endif

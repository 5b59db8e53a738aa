/* logsumexp: log(sum(exp(x))), computed in one pass with a running maximum m and a sum s of
 * exp(x - m) (rescaled when m grows), so large inputs do not overflow:
 * logsumexp([1000, 1000]) == 1000 + log 2.
 *
 * Infinities and NaN:
 *   all -inf (or empty)  -> -inf   (m stays -inf, s stays 0; -inf adds nothing)
 *   any +inf, no NaN     -> +inf   (m becomes +inf and absorbs the rest, [inf, -inf] too)
 *   any NaN              -> NaN    (m becomes NaN and stays)
 * Variants f32 (float16/bfloat16/float32/float8 and, as PyTorch, integer inputs converted to
 * float32) and f64. */
#ifndef TENSOR_FUNCTOR_LOGSUMEXP_H
#define TENSOR_FUNCTOR_LOGSUMEXP_H

#include "tinytensor/ops/functors/common.h"

#define TENSOR_LOGSUMEXP_FUNCTOR(SFX, T)                                                           \
    typedef struct tensor_logsumexp_##SFX {                                                        \
        T max; /* the largest element so far (-inf: none yet; NaN: a NaN was seen) */             \
        T sum; /* sum of exp(x - max) over the elements so far (finite max only) */               \
    } tensor_logsumexp_##SFX;                                                                      \
    TENSOR_INLINE tensor_logsumexp_##SFX tensor_logsumexp_##SFX##_make(T max, T sum) {             \
        tensor_logsumexp_##SFX r;                                                                  \
        r.max = max;                                                                               \
        r.sum = sum;                                                                               \
        return r;                                                                                  \
    }                                                                                              \
    TENSOR_INLINE tensor_logsumexp_##SFX tensor_logsumexp_##SFX##_identity(void) {                 \
        return tensor_logsumexp_##SFX##_make(tensor_fn_lowest_##SFX(), (T)0);                      \
    }                                                                                              \
    TENSOR_INLINE tensor_logsumexp_##SFX tensor_logsumexp_##SFX##_combine(tensor_logsumexp_##SFX a, \
                                                                         tensor_logsumexp_##SFX b) { \
        if (tensor_fn_isnan_##SFX(a.max)) return a;                                                \
        if (tensor_fn_isnan_##SFX(b.max)) return b;                                                \
        if (b.max == tensor_fn_lowest_##SFX()) return a; /* b is empty or all -inf */              \
        if (a.max == tensor_fn_lowest_##SFX()) return b;                                           \
        if (a.max == tensor_fn_highest_##SFX()) return a; /* +inf absorbs everything */            \
        if (b.max == tensor_fn_highest_##SFX()) return b;                                          \
        if (a.max >= b.max)                                                                        \
            return tensor_logsumexp_##SFX##_make(a.max,                                            \
                                                 a.sum + b.sum * tensor_fn_exp_##SFX(b.max - a.max)); \
        return tensor_logsumexp_##SFX##_make(b.max, b.sum + a.sum * tensor_fn_exp_##SFX(a.max - b.max)); \
    }                                                                                              \
    TENSOR_INLINE tensor_logsumexp_##SFX tensor_logsumexp_##SFX##_reduce(tensor_logsumexp_##SFX acc, \
                                                                        T x, int64_t index) {      \
        (void)index;                                                                               \
        if (tensor_fn_isnan_##SFX(acc.max)) return acc;                                            \
        if (tensor_fn_isnan_##SFX(x)) return tensor_logsumexp_##SFX##_make(x, acc.sum);            \
        if (x == tensor_fn_lowest_##SFX() || acc.max == tensor_fn_highest_##SFX()) return acc;     \
        if (x > acc.max) /* rescale; exp(-inf - x) == 0 when acc was empty */                      \
            return tensor_logsumexp_##SFX##_make(x, acc.sum * tensor_fn_exp_##SFX(acc.max - x) + (T)1); \
        acc.sum += tensor_fn_exp_##SFX(x - acc.max);                                               \
        return acc;                                                                                \
    }                                                                                              \
    TENSOR_INLINE T tensor_logsumexp_##SFX##_project(tensor_logsumexp_##SFX acc) {                 \
        /* NaN, +inf and -inf (empty / all -inf) are their own answer. */                          \
        if (tensor_fn_isnan_##SFX(acc.max) || acc.max == tensor_fn_lowest_##SFX() ||               \
            acc.max == tensor_fn_highest_##SFX())                                                  \
            return acc.max;                                                                        \
        return acc.max + tensor_fn_log_##SFX(acc.sum);                                             \
    }

TENSOR_LOGSUMEXP_FUNCTOR(f32, float)
TENSOR_LOGSUMEXP_FUNCTOR(f64, double)

#endif

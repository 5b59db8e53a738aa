/* mean and nanmean.
 *
 * mean: the sum (as sum.h), then project(acc, count) divides by the number of reduced
 * elements, a true division in the accumulator type (PyTorch's CPU: sum, then div by N; for
 * float16/bfloat16 the float32 sum is divided, then rounded once). count == 0 gives NaN (0/0).
 *
 * nanmean: the accumulator carries the count of non-NaN elements, the result is their sum
 * divided by it (all-NaN gives 0/0 = NaN).
 *
 * Floating accumulators only (mean of integers is an error, or computed in the requested
 * floating dtype): variants f32 (float) and f64 (double). */
#ifndef TENSOR_FUNCTOR_MEAN_H
#define TENSOR_FUNCTOR_MEAN_H

#include "tinytensor/ops/functors/common.h"

#define TENSOR_MEAN_FUNCTOR(SFX, T)                                                                \
    TENSOR_INLINE T tensor_mean_##SFX##_identity(void) { return (T)0; }                            \
    TENSOR_INLINE T tensor_mean_##SFX##_reduce(T acc, T x, int64_t index) {                        \
        (void)index;                                                                               \
        return acc + x;                                                                            \
    }                                                                                              \
    TENSOR_INLINE T tensor_mean_##SFX##_combine(T a, T b) { return a + b; }                        \
    TENSOR_INLINE T tensor_mean_##SFX##_project(T acc, int64_t count) { return acc / (T)count; }   \
                                                                                                   \
    typedef struct tensor_nanmean_##SFX {                                                          \
        T sum;                                                                                     \
        int64_t count; /* non-NaN elements folded in */                                            \
    } tensor_nanmean_##SFX;                                                                        \
    TENSOR_INLINE tensor_nanmean_##SFX tensor_nanmean_##SFX##_identity(void) {                     \
        tensor_nanmean_##SFX r;                                                                    \
        r.sum = (T)0;                                                                              \
        r.count = 0;                                                                               \
        return r;                                                                                  \
    }                                                                                              \
    TENSOR_INLINE tensor_nanmean_##SFX tensor_nanmean_##SFX##_reduce(tensor_nanmean_##SFX acc, T x, \
                                                                     int64_t index) {              \
        (void)index;                                                                               \
        if (!tensor_fn_isnan_##SFX(x)) {                                                           \
            acc.sum += x;                                                                          \
            acc.count += 1;                                                                        \
        }                                                                                          \
        return acc;                                                                                \
    }                                                                                              \
    TENSOR_INLINE tensor_nanmean_##SFX tensor_nanmean_##SFX##_combine(tensor_nanmean_##SFX a,      \
                                                                      tensor_nanmean_##SFX b) {    \
        a.sum += b.sum;                                                                            \
        a.count += b.count;                                                                        \
        return a;                                                                                  \
    }                                                                                              \
    TENSOR_INLINE T tensor_nanmean_##SFX##_project(tensor_nanmean_##SFX acc) {                     \
        return acc.sum / (T)acc.count;                                                             \
    }

TENSOR_MEAN_FUNCTOR(f32, float)
TENSOR_MEAN_FUNCTOR(f64, double)

#endif

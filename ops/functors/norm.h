/* Vector norms (torch.linalg.vector_norm), one functor per kind of order p; the backend picks
 * the functor from p once per call:
 *   tensor_norm0_*    p == 0:    count of non-zero elements (NaN counts: NaN != 0)
 *   tensor_norm1_*    p == 1:    sum |x|
 *   tensor_norm2_*    p == 2:    sqrt(sum x^2)
 *   tensor_norminf_*  p == inf:  max |x| (NaN propagates), identity 0
 *   tensor_normninf_* p == -inf: min |x| (NaN propagates), identity +inf (an empty -inf norm
 *                                is an error in the frontend: min has no identity)
 *   tensor_normp_*    other p:   (sum |x|^p)^(1/p), p passed by value to reduce and project
 *                                (in the accumulator type, as PyTorch's NormOps)
 * No scaling: float32 [3e20, 4e20] gives inf, as PyTorch. Variants f32 / f64. */
#ifndef TENSOR_FUNCTOR_NORM_H
#define TENSOR_FUNCTOR_NORM_H

#include "tinytensor/ops/functors/common.h"

#define TENSOR_NORM_FUNCTOR(SFX, T)                                                                \
    TENSOR_INLINE T tensor_norm0_##SFX##_identity(void) { return (T)0; }                           \
    TENSOR_INLINE T tensor_norm0_##SFX##_reduce(T acc, T x, int64_t index) {                       \
        (void)index;                                                                               \
        return acc + (x != (T)0 ? (T)1 : (T)0);                                                    \
    }                                                                                              \
    TENSOR_INLINE T tensor_norm0_##SFX##_combine(T a, T b) { return a + b; }                       \
    TENSOR_INLINE T tensor_norm0_##SFX##_project(T acc) { return acc; }                            \
                                                                                                   \
    TENSOR_INLINE T tensor_norm1_##SFX##_identity(void) { return (T)0; }                           \
    TENSOR_INLINE T tensor_norm1_##SFX##_reduce(T acc, T x, int64_t index) {                       \
        (void)index;                                                                               \
        return acc + tensor_fn_abs_##SFX(x);                                                       \
    }                                                                                              \
    TENSOR_INLINE T tensor_norm1_##SFX##_combine(T a, T b) { return a + b; }                       \
    TENSOR_INLINE T tensor_norm1_##SFX##_project(T acc) { return acc; }                            \
                                                                                                   \
    TENSOR_INLINE T tensor_norm2_##SFX##_identity(void) { return (T)0; }                           \
    TENSOR_INLINE T tensor_norm2_##SFX##_reduce(T acc, T x, int64_t index) {                       \
        (void)index;                                                                               \
        return acc + x * x;                                                                        \
    }                                                                                              \
    TENSOR_INLINE T tensor_norm2_##SFX##_combine(T a, T b) { return a + b; }                       \
    TENSOR_INLINE T tensor_norm2_##SFX##_project(T acc) { return tensor_fn_sqrt_##SFX(acc); }      \
                                                                                                   \
    TENSOR_INLINE T tensor_norminf_##SFX##_identity(void) { return (T)0; }                         \
    TENSOR_INLINE T tensor_norminf_##SFX##_combine(T a, T b) {                                     \
        return (tensor_fn_isnan_##SFX(b) || b > a) ? b : a;                                        \
    }                                                                                              \
    TENSOR_INLINE T tensor_norminf_##SFX##_reduce(T acc, T x, int64_t index) {                     \
        (void)index;                                                                               \
        return tensor_norminf_##SFX##_combine(acc, tensor_fn_abs_##SFX(x));                        \
    }                                                                                              \
    TENSOR_INLINE T tensor_norminf_##SFX##_project(T acc) { return acc; }                          \
                                                                                                   \
    TENSOR_INLINE T tensor_normninf_##SFX##_identity(void) { return tensor_fn_highest_##SFX(); }   \
    TENSOR_INLINE T tensor_normninf_##SFX##_combine(T a, T b) {                                    \
        return (tensor_fn_isnan_##SFX(b) || b < a) ? b : a;                                        \
    }                                                                                              \
    TENSOR_INLINE T tensor_normninf_##SFX##_reduce(T acc, T x, int64_t index) {                    \
        (void)index;                                                                               \
        return tensor_normninf_##SFX##_combine(acc, tensor_fn_abs_##SFX(x));                       \
    }                                                                                              \
    TENSOR_INLINE T tensor_normninf_##SFX##_project(T acc) { return acc; }                         \
                                                                                                   \
    TENSOR_INLINE T tensor_normp_##SFX##_identity(void) { return (T)0; }                           \
    TENSOR_INLINE T tensor_normp_##SFX##_reduce(T acc, T x, int64_t index, T p) {                  \
        (void)index;                                                                               \
        return acc + tensor_fn_pow_##SFX(tensor_fn_abs_##SFX(x), p);                               \
    }                                                                                              \
    TENSOR_INLINE T tensor_normp_##SFX##_combine(T a, T b) { return a + b; }                       \
    TENSOR_INLINE T tensor_normp_##SFX##_project(T acc, T p) {                                     \
        return tensor_fn_pow_##SFX(acc, (T)1 / p);                                                 \
    }

TENSOR_NORM_FUNCTOR(f32, float)
TENSOR_NORM_FUNCTOR(f64, double)

#endif

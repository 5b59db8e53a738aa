/* max / min with index (torch.max(t, dim) -> values, indices), the base of argmax/argmin.
 *
 * The accumulator is (value, index). Which of two candidates wins:
 *   - a NaN beats any number; of two NaNs, the lower index wins (the first NaN);
 *   - otherwise the larger (max) / smaller (min) value wins;
 *   - equal values: the lower index wins (first index on ties; -0.0 == +0.0).
 * The rule looks only at (value, index), so combine is associative and commutative: the
 * result is the same whatever order partials meet in (CPU chunk folds, CUDA trees).
 * Identity: (-inf or INT64_MIN, index 0) for max, (+inf or INT64_MAX, 0) for min. It only
 * ties with elements equal to the type's extreme, and then every element is that extreme
 * and 0 is the right answer, so it never gives a wrong index.
 * Variants f32 / f64 / i64 (the value type is the input's own, compared exactly). */
#ifndef TENSOR_FUNCTOR_MAX_H
#define TENSOR_FUNCTOR_MAX_H

#include "tinytensor/ops/functors/common.h"

#define TENSOR_MAXMIN_FUNCTOR(SFX, T)                                                              \
    typedef struct tensor_validx_##SFX {                                                           \
        T value;                                                                                   \
        int64_t index;                                                                             \
    } tensor_validx_##SFX;                                                                         \
    TENSOR_INLINE tensor_validx_##SFX tensor_validx_##SFX##_make(T value, int64_t index) {         \
        tensor_validx_##SFX r;                                                                     \
        r.value = value;                                                                           \
        r.index = index;                                                                           \
        return r;                                                                                  \
    }                                                                                              \
    /* true when (bv, bi) should replace (av, ai) as the max. */                                   \
    TENSOR_INLINE bool tensor_max_##SFX##_better(T av, int64_t ai, T bv, int64_t bi) {             \
        bool an = tensor_fn_isnan_##SFX(av), bn = tensor_fn_isnan_##SFX(bv);                       \
        if (an || bn) return an && bn ? bi < ai : bn;                                              \
        return bv > av || (bv == av && bi < ai);                                                   \
    }                                                                                              \
    TENSOR_INLINE bool tensor_min_##SFX##_better(T av, int64_t ai, T bv, int64_t bi) {             \
        bool an = tensor_fn_isnan_##SFX(av), bn = tensor_fn_isnan_##SFX(bv);                       \
        if (an || bn) return an && bn ? bi < ai : bn;                                              \
        return bv < av || (bv == av && bi < ai);                                                   \
    }                                                                                              \
    TENSOR_INLINE tensor_validx_##SFX tensor_max_##SFX##_identity(void) {                          \
        return tensor_validx_##SFX##_make(tensor_fn_lowest_##SFX(), 0);                            \
    }                                                                                              \
    TENSOR_INLINE tensor_validx_##SFX tensor_max_##SFX##_reduce(tensor_validx_##SFX acc, T x,      \
                                                               int64_t index) {                    \
        return tensor_max_##SFX##_better(acc.value, acc.index, x, index)                           \
                   ? tensor_validx_##SFX##_make(x, index)                                          \
                   : acc;                                                                          \
    }                                                                                              \
    TENSOR_INLINE tensor_validx_##SFX tensor_max_##SFX##_combine(tensor_validx_##SFX a,            \
                                                                tensor_validx_##SFX b) {           \
        return tensor_max_##SFX##_better(a.value, a.index, b.value, b.index) ? b : a;              \
    }                                                                                              \
    /* Two outputs: the value and the index. */                                                    \
    TENSOR_INLINE T tensor_max_##SFX##_project_value(tensor_validx_##SFX acc) { return acc.value; } \
    TENSOR_INLINE int64_t tensor_max_##SFX##_project_index(tensor_validx_##SFX acc) {              \
        return acc.index;                                                                          \
    }                                                                                              \
                                                                                                   \
    TENSOR_INLINE tensor_validx_##SFX tensor_min_##SFX##_identity(void) {                          \
        return tensor_validx_##SFX##_make(tensor_fn_highest_##SFX(), 0);                           \
    }                                                                                              \
    TENSOR_INLINE tensor_validx_##SFX tensor_min_##SFX##_reduce(tensor_validx_##SFX acc, T x,      \
                                                               int64_t index) {                    \
        return tensor_min_##SFX##_better(acc.value, acc.index, x, index)                           \
                   ? tensor_validx_##SFX##_make(x, index)                                          \
                   : acc;                                                                          \
    }                                                                                              \
    TENSOR_INLINE tensor_validx_##SFX tensor_min_##SFX##_combine(tensor_validx_##SFX a,            \
                                                                tensor_validx_##SFX b) {           \
        return tensor_min_##SFX##_better(a.value, a.index, b.value, b.index) ? b : a;              \
    }                                                                                              \
    TENSOR_INLINE T tensor_min_##SFX##_project_value(tensor_validx_##SFX acc) { return acc.value; } \
    TENSOR_INLINE int64_t tensor_min_##SFX##_project_index(tensor_validx_##SFX acc) {              \
        return acc.index;                                                                          \
    }

TENSOR_MAXMIN_FUNCTOR(f32, float)
TENSOR_MAXMIN_FUNCTOR(f64, double)
TENSOR_MAXMIN_FUNCTOR(i64, int64_t)

#endif

/* all: true when every element is != 0 (NaN is true). Identity true (all of nothing is
 * true). The accumulator is a bool; the output is bool (uint8 0/1 for a uint8 input, as
 * PyTorch). SFX = f32 / f64 / i64 names the element's value type. */
#ifndef TENSOR_FUNCTOR_ALL_H
#define TENSOR_FUNCTOR_ALL_H

#include "tinytensor/ops/functors/common.h"

#define TENSOR_ALL_FUNCTOR(SFX, T)                                                                 \
    TENSOR_INLINE bool tensor_all_##SFX##_identity(void) { return true; }                          \
    TENSOR_INLINE bool tensor_all_##SFX##_reduce(bool acc, T x, int64_t index) {                   \
        (void)index;                                                                               \
        return acc && x != (T)0;                                                                   \
    }                                                                                              \
    TENSOR_INLINE bool tensor_all_##SFX##_combine(bool a, bool b) { return a && b; }               \
    TENSOR_INLINE bool tensor_all_##SFX##_project(bool acc) { return acc; }

TENSOR_ALL_FUNCTOR(f32, float)
TENSOR_ALL_FUNCTOR(f64, double)
TENSOR_ALL_FUNCTOR(i64, int64_t)

#endif

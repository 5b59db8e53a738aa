/* sum_of_squares: sum of x * x. The worked example of docs/functors.md: a new reduction is
 * this header, one registration line per backend, one public function, and a test.
 *
 * Same accumulator rules as sum: float16/bfloat16/float32/float8 elements arrive as float,
 * float64 as double, integers and bool as int64_t (squares and sums wrap, two's complement).
 * Identity 0. Variants f32 / f64 / i64. */
#ifndef TENSOR_FUNCTOR_SUM_OF_SQUARES_H
#define TENSOR_FUNCTOR_SUM_OF_SQUARES_H

#include "tinytensor/ops/functors/common.h"

#define TENSOR_SUM_OF_SQUARES_FUNCTOR(SFX, T)                                                      \
    TENSOR_INLINE T tensor_sum_of_squares_##SFX##_identity(void) { return (T)0; }                  \
    TENSOR_INLINE T tensor_sum_of_squares_##SFX##_reduce(T acc, T x, int64_t index) {              \
        (void)index;                                                                               \
        return tensor_fn_add_##SFX(acc, tensor_fn_mul_##SFX(x, x));                                \
    }                                                                                              \
    TENSOR_INLINE T tensor_sum_of_squares_##SFX##_combine(T a, T b) {                              \
        return tensor_fn_add_##SFX(a, b);                                                          \
    }                                                                                              \
    TENSOR_INLINE T tensor_sum_of_squares_##SFX##_project(T acc) { return acc; }

TENSOR_SUM_OF_SQUARES_FUNCTOR(f32, float)
TENSOR_SUM_OF_SQUARES_FUNCTOR(f64, double)
TENSOR_SUM_OF_SQUARES_FUNCTOR(i64, int64_t)

#endif

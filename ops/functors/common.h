/* Shared helpers of the reduction functors (ops/functors/<op>.h).
 *
 * A reduction functor is four small pure functions over an accumulator type ACC:
 *
 *     ACC  <op>_<sfx>_identity(void)                 the neutral element
 *     ACC  <op>_<sfx>_reduce(ACC acc, T x, int64_t index)   fold one element
 *     ACC  <op>_<sfx>_combine(ACC a, ACC b)          merge two partials; `a` holds the EARLIER
 *                                                    part of the reduced index space
 *     OUT  <op>_<sfx>_project(ACC acc)               the final value
 *
 * <sfx> names the value type T the element has been converted to before reduce() sees it
 * (the backend converts while loading): f32 = float (float16, bfloat16, float32 and float8
 * inputs), f64 = double (float64), i64 = int64_t (integers and bool, wrapping two's
 * complement). `index` is the element's position in the reduced index space (only
 * arg-reductions use it). Ops that need a scalar parameter (norm's p, var's correction,
 * mean's count) take it as an extra trailing argument, by value.
 *
 * Rules that keep a functor usable by both backends:
 *  - combine must be associative and, up to the tie-break rules of arg-reductions, commutative:
 *    the CUDA engine combines interleaved subsequences, the CPU driver folds chunks in order;
 *  - identity must be neutral for combine;
 *  - no C-only constructs (no compound literals, designated initialisers, VLAs, restrict):
 *    these headers compile as C11 and as CUDA C++ (TENSOR_INLINE is static inline in C and
 *    __host__ __device__ __forceinline__ under nvcc).
 *
 * docs/functors.md walks through writing one. */
#ifndef TENSOR_FUNCTORS_COMMON_H
#define TENSOR_FUNCTORS_COMMON_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "tinytensor/runtime/hostdevice.h"

/* ---- per value type primitives: <name>_f32 / _f64 / _i64, so that functor macros can paste
 * the suffix ---- */

/* x != x is the portable NaN test (C and device code alike; we never build with -ffast-math). */
TENSOR_INLINE bool tensor_fn_isnan_f32(float x) { return x != x; }
TENSOR_INLINE bool tensor_fn_isnan_f64(double x) { return x != x; }
TENSOR_INLINE bool tensor_fn_isnan_i64(int64_t x) { (void)x; return false; }

/* Addition and multiplication; int64 wraps (done in uint64_t: signed overflow is UB in C). */
TENSOR_INLINE float tensor_fn_add_f32(float a, float b) { return a + b; }
TENSOR_INLINE double tensor_fn_add_f64(double a, double b) { return a + b; }
TENSOR_INLINE int64_t tensor_fn_add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
TENSOR_INLINE float tensor_fn_mul_f32(float a, float b) { return a * b; }
TENSOR_INLINE double tensor_fn_mul_f64(double a, double b) { return a * b; }
TENSOR_INLINE int64_t tensor_fn_mul_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* The smallest / largest value of the type (floats: -inf / +inf). */
TENSOR_INLINE float tensor_fn_lowest_f32(void) { return -HUGE_VALF; }
TENSOR_INLINE double tensor_fn_lowest_f64(void) { return -HUGE_VAL; }
TENSOR_INLINE int64_t tensor_fn_lowest_i64(void) { return INT64_MIN; }
TENSOR_INLINE float tensor_fn_highest_f32(void) { return HUGE_VALF; }
TENSOR_INLINE double tensor_fn_highest_f64(void) { return HUGE_VAL; }
TENSOR_INLINE int64_t tensor_fn_highest_i64(void) { return INT64_MAX; }

/* A quiet NaN (0/0 would trap under some flags; this is a constant expression). */
TENSOR_INLINE float tensor_fn_nan_f32(void) { return (float)NAN; }
TENSOR_INLINE double tensor_fn_nan_f64(void) { return (double)NAN; }

/* |x| (fabs keeps NaN a NaN and turns -0 into +0). */
TENSOR_INLINE float tensor_fn_abs_f32(float x) { return fabsf(x); }
TENSOR_INLINE double tensor_fn_abs_f64(double x) { return fabs(x); }

/* Math functions by suffix (CUDA provides the same names in device code). */
TENSOR_INLINE float tensor_fn_sqrt_f32(float x) { return sqrtf(x); }
TENSOR_INLINE double tensor_fn_sqrt_f64(double x) { return sqrt(x); }
TENSOR_INLINE float tensor_fn_exp_f32(float x) { return expf(x); }
TENSOR_INLINE double tensor_fn_exp_f64(double x) { return exp(x); }
TENSOR_INLINE float tensor_fn_log_f32(float x) { return logf(x); }
TENSOR_INLINE double tensor_fn_log_f64(double x) { return log(x); }
TENSOR_INLINE float tensor_fn_pow_f32(float x, float y) { return powf(x, y); }
TENSOR_INLINE double tensor_fn_pow_f64(double x, double y) { return pow(x, y); }

#endif

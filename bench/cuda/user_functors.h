/* The user reductions the CUDA benchmarks time against the built-ins doing the same math: a sum
 * (tensor_sum) and an abs-sum (tensor_norm(p = 1)), float value type, written once as C for
 * the CPU and carried as source text for the run-time compile on CUDA. Include once per
 * program: sum_fns and abs_fns are static. */
#ifndef TENSOR_BENCH_USER_FUNCTORS_H
#define TENSOR_BENCH_USER_FUNCTORS_H

#include <math.h>

#include "ops/reduction_kit.h"

#define BENCH_FUNCTORS                                                                             \
    static float bz(void) { return 0.0f; }                                                         \
    static float bfirst(const float *x) { return x[0]; }                                           \
    static float babs(const float *x) { return fabsf(x[0]); }                                      \
    static float badd(float a, float b) { return a + b; }                                          \
    static float bdone(float a, int64_t n) { return (void)n, a; }
BENCH_FUNCTORS
#define BENCH_STR_(...) #__VA_ARGS__
#define BENCH_STR(...) BENCH_STR_(__VA_ARGS__)
static const char bench_functor_src[] = BENCH_STR(BENCH_FUNCTORS);
TENSOR_REDUCTION_FNS_SOURCE(sum_fns, 1, float, float, bz, bfirst, badd, badd, bdone, bench_functor_src)
TENSOR_REDUCTION_FNS_SOURCE(abs_fns, 1, float, float, bz, babs, badd, badd, bdone, bench_functor_src)

#endif

/* Internal to cpu/: hand-vectorised pieces of the float sums (cpu/reduce_sum.c) for shapes
 * where the compiler's vectorisation of cpu/sum_tmpl.h falls short. Each gives the same bits
 * as the template code it replaces (tests/cpu checks them against the strided tile paths,
 * which share the template's arithmetic); only the order of independent work changes.
 * Available on x86-64 GCC/Clang with AVX2 at run time (cpu_sum_simd_avx2()); elsewhere the
 * functions exist but handle nothing (they return 0), and the callers fall back. */
#ifndef TENSOR_CPU_SUM_SIMD_H
#define TENSOR_CPU_SUM_SIMD_H

#include <stdbool.h>
#include <stdint.h>

/* true when the CPU runs AVX2 (checked once). */
bool cpu_sum_simd_avx2(void);

/* Short float32 rows, vectorised across rows: nrows runs of n contiguous floats (1 <= n <=
 * 32), run j at x + j * stride bytes, each inside one anchored block of the sum (the
 * caller checks), folded into the float {s, c} accumulator pairs at acc[2 * j], acc[2 * j + 1]
 * (dense: the accumulator buffer's stride is 8 bytes). The arithmetic of sum_tmpl.h's
 * short_n: lanes 0 .. n hold the elements (NaN as 0 when nanskip), the lanes up to 8, 16 or
 * 32 zeros, the pairwise tree, one TwoSum fold. Handles the rows in groups of 8 and returns
 * how many it did (a multiple of 8; 0 without AVX2): the caller folds the rest. */
int64_t cpu_sum_short_f32_avx2(const char *x, int64_t stride, int64_t n, int64_t nrows, float *acc, bool nanskip);

#endif

/* Internal to cpu/: hand-vectorised pieces of the float sums (cpu/reduce_sum.c) for shapes
 * where the compiler's vectorisation of cpu/sum_tmpl.h falls short. Each gives the same bits
 * as the template code it replaces (tests/cpu checks them against the strided tile paths,
 * which share the template's arithmetic); only the order of independent work changes.
 * Available on x86-64 GCC/Clang with AVX2 at run time (tt_cpu_sum_simd_avx2()); elsewhere the
 * functions exist but handle nothing (they return 0), and the callers fall back. */
#ifndef TENSOR_CPU_SUM_SIMD_H
#define TENSOR_CPU_SUM_SIMD_H

#include <stdbool.h>
#include <stdint.h>

/* true when the CPU runs AVX2 (checked once); _f16c: AVX2 and F16C. */
bool tt_cpu_sum_simd_avx2(void);
bool tt_cpu_sum_simd_f16c(void);

/* Element types of the float32-accumulating fast paths. */
typedef enum cpu_sum_elem { CPU_SUM_ELEM_F32, CPU_SUM_ELEM_F16, CPU_SUM_ELEM_BF16 } cpu_sum_elem;

/* Short float32 rows, vectorised across rows: nrows runs of n contiguous floats (1 <= n <=
 * 32), run j at x + j * stride bytes, each inside one anchored block of the sum (the
 * caller checks), folded into the float {s, c} accumulator pairs at acc[2 * j], acc[2 * j + 1]
 * (dense: the accumulator buffer's stride is 8 bytes). The arithmetic of sum_tmpl.h's
 * short_n: lanes 0 .. n hold the elements (NaN as 0 when nanskip), the lanes up to 8, 16 or
 * 32 zeros, the pairwise tree, one TwoSum fold. Handles the rows in groups of 8 and returns
 * how many it did (a multiple of 8; 0 without AVX2): the caller folds the rest. */
int64_t tt_cpu_sum_short_f32_avx2(const char *x, int64_t stride, int64_t n, int64_t nrows, float *acc, bool nanskip);

/* The same rows summed straight into a float32 output (each row one output, out[j] its final
 * value: the value the accumulator path above projects to, bitwise), no accumulators.
 * stream: non-temporal stores where out is 32-byte aligned (large outputs: no read for
 * ownership, no cache pollution). Returns the rows done, as tt_cpu_sum_short_f32_avx2. */
int64_t tt_cpu_sum_short_f32_out_avx2(const char *x, int64_t stride, int64_t n, int64_t nrows, float *out,
                                   bool nanskip, bool stream);

/* An outer block of float32 / float16 / bfloat16 elements (cpu/sum_outer_avx2.c): size0
 * rows of ncols contiguous elements, row_stride bytes apart, the first row at reduced index
 * index0; column j folds into the float {s, c} pair at acc[2 * j] (dense accumulators).
 * The arithmetic of sum_tmpl.h's outer (groups of 16 anchored rows summed in row order,
 * one TwoSum fold per group and column). Returns false, doing nothing, without AVX2 and
 * F16C or for float32 / bfloat16 rows more than 1024 bytes apart (the template is faster
 * there; float16 rows of any length are taken). */
bool tt_cpu_sum_outer_avx2(cpu_sum_elem e, bool nanskip, const char *in, int64_t row_stride, int64_t size0,
                        int64_t ncols, float *acc, int64_t index0);

/* The partial sums p[0 .. nb) of nb full blocks of bfloat16 at x (block i: the 2048 elements
 * from x + 2048 i), with a software prefetch ahead (cpu/sum_bf16_avx.c). Each p[i] is
 * sum_tmpl.h's block() of that block, bitwise (32 lanes, NaN as 0 when nanskip, the
 * pairwise tree). avx512: use AVX-512 where the CPU has it (false: AVX2 only; tests run
 * both). Returns false, doing nothing, without AVX2. */
bool tt_cpu_sum_bf16_blocks(const uint16_t *x, int64_t nb, bool nanskip, float *p, bool avx512);

/* The same for float16 (cpu/sum_f16_avx.c): p[i] is block() of the 2048 float16 from
 * x + 2048 i, bitwise, converted with F16C. Returns false, doing nothing, without AVX2 and
 * F16C. */
bool tt_cpu_sum_f16_blocks(const uint16_t *x, int64_t nb, bool nanskip, float *p);

/* The sum of n contiguous int8 (is_signed) or uint8 / bool bytes, modulo 2^64
 * (cpu/sum_int8_avx2.c). Call only when tt_cpu_sum_simd_avx2(). */
uint64_t tt_cpu_sum_bytes_avx2(const void *p, int64_t n, bool is_signed);

#endif

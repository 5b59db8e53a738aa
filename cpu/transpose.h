/* Internal to cpu/: rows of floats transposed into columns (cpu/transpose_f32_avx2.c). */
#ifndef TENSOR_CPU_TRANSPOSE_H
#define TENSOR_CPU_TRANSPOSE_H

#include <stdbool.h>
#include <stdint.h>

/* nrows rows of m contiguous floats, row r at src + r * stride bytes, into dst[i * ld + r]
 * (ld >= nrows floats). Returns false, doing nothing, unless nrows is a multiple of 8 and the
 * CPU runs AVX2 (the callers keep their row-by-row path then). */
bool tt_cpu_transpose_f32(float *dst, int64_t ld, const char *src, int64_t stride, int64_t m, int64_t nrows);

#endif

/* Internal to cpu/: rows transposed into columns (floats with AVX2: cpu/transpose_f32_avx2.c;
 * any element size: cpu/transpose.c). */
#ifndef TENSOR_CPU_TRANSPOSE_H
#define TENSOR_CPU_TRANSPOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* nrows rows of m contiguous floats, row r at src + r * stride bytes, into dst[i * ld + r]
 * (ld >= nrows floats). Returns false, doing nothing, unless nrows is a multiple of 8 and the
 * CPU runs AVX2 (the callers keep their row-by-row path then). */
bool tt_cpu_transpose_f32(float *dst, int64_t ld, const char *src, int64_t stride, int64_t m, int64_t nrows);

/* The same for elements of `size` bytes (1, 2, 4 or 8; false for others), any nrows, without
 * SIMD (cpu/transpose.c): dst holds elements of that size, ld of them a row. */
bool tt_cpu_transpose_elems(void *dst, int64_t ld, const char *src, int64_t stride, int64_t m, int64_t nrows,
                            size_t size);

#endif

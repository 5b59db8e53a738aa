/* Helpers shared by the elementwise tests (tests/ops/test_ew_*.c). */
#ifndef EW_TEST_UTIL_H
#define EW_TEST_UTIL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

/* A CPU tensor with `n` values (given as doubles, stored with the cast rules) and shape. */
static inline tensor_t *ew_tensor(tensor_dtype dtype, int ndim, const int64_t *sizes, const double *vals, int64_t n) {
    size_t es = tensor_dtype_size(dtype);
    unsigned char *buf = calloc((size_t)(n > 0 ? n : 1), es);
    for (int64_t i = 0; i < n; i++) tensor_dtype_store_double(dtype, buf + (size_t)i * es, vals[i]);
    tensor_t *t = tensor_from_buffer(buf, ndim, sizes, dtype, tensor_cpu());
    free(buf);
    return t;
}

/* 1-D from a list. */
static inline tensor_t *ew_vec(tensor_dtype dtype, const double *vals, int64_t n) {
    return ew_tensor(dtype, 1, &n, vals, n);
}

/* 1-D int64-exact values. */
static inline tensor_t *ew_ivec(tensor_dtype dtype, const int64_t *vals, int64_t n) {
    size_t es = tensor_dtype_size(dtype);
    unsigned char *buf = calloc((size_t)(n > 0 ? n : 1), es);
    for (int64_t i = 0; i < n; i++) tensor_dtype_store_int64(dtype, buf + (size_t)i * es, vals[i]);
    tensor_t *t = tensor_from_buffer(buf, 1, &n, dtype, tensor_cpu());
    free(buf);
    return t;
}

static inline tensor_t *ew_scalar0d(tensor_dtype dtype, double v) { return ew_tensor(dtype, 0, NULL, &v, 1); }

/* All elements of t in logical order as doubles (caller frees). */
static inline double *ew_values(const tensor_t *t) {
    int64_t n = tensor_numel(t);
    size_t es = tensor_dtype_size(tensor_get_dtype(t));
    unsigned char *buf = calloc((size_t)(n > 0 ? n : 1), es);
    double *out = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    if (n > 0) assert_int_equal(tensor_to_buffer(t, buf, (size_t)n * es), TENSOR_OK);
    for (int64_t i = 0; i < n; i++) out[i] = tensor_dtype_load_double(tensor_get_dtype(t), buf + (size_t)i * es);
    free(buf);
    return out;
}

/* Same as int64 (exact for integer dtypes). */
static inline int64_t *ew_ivalues(const tensor_t *t) {
    int64_t n = tensor_numel(t);
    size_t es = tensor_dtype_size(tensor_get_dtype(t));
    unsigned char *buf = calloc((size_t)(n > 0 ? n : 1), es);
    int64_t *out = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
    if (n > 0) assert_int_equal(tensor_to_buffer(t, buf, (size_t)n * es), TENSOR_OK);
    for (int64_t i = 0; i < n; i++) out[i] = tensor_dtype_load_int64(tensor_get_dtype(t), buf + (size_t)i * es);
    free(buf);
    return out;
}

/* Asserts t is 1-D (or any shape) with values `want` (NaN matches NaN, signs of zero not
 * checked unless check_sign). */
static inline void ew_expect(const tensor_t *t, tensor_dtype dtype, const double *want, int64_t n) {
    assert_non_null(t);
    assert_int_equal(tensor_get_dtype(t), dtype);
    assert_int_equal(tensor_numel(t), n);
    double *got = ew_values(t);
    for (int64_t i = 0; i < n; i++) {
        bool ok = (isnan(want[i]) && isnan(got[i])) || got[i] == want[i];
        if (!ok) {
            double g = got[i];
            free(got);
            fail_msg("element %lld: got %.17g, want %.17g", (long long)i, g, want[i]);
        }
    }
    free(got);
}

static inline void ew_expect_i(const tensor_t *t, tensor_dtype dtype, const int64_t *want, int64_t n) {
    assert_non_null(t);
    assert_int_equal(tensor_get_dtype(t), dtype);
    assert_int_equal(tensor_numel(t), n);
    int64_t *got = ew_ivalues(t);
    for (int64_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            int64_t g = got[i];
            free(got);
            fail_msg("element %lld: got %lld, want %lld", (long long)i, (long long)g, (long long)want[i]);
        }
    }
    free(got);
}

#define EW_N(a) ((int64_t)(sizeof(a) / sizeof((a)[0])))

#endif

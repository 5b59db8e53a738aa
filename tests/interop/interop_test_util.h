/* Shared by the interop tests: tensors of every dtype with random bits, the views each round
 * trip goes through, and a comparison of two tensors' logical contents byte for byte. */
#ifndef TENSOR_TEST_INTEROP_TEST_UTIL_H
#define TENSOR_TEST_INTEROP_TEST_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

static const tensor_dtype it_all_dtypes[] = {TENSOR_BOOL,    TENSOR_UINT8,   TENSOR_INT8,          TENSOR_INT16,
                                             TENSOR_INT32,   TENSOR_INT64,   TENSOR_FLOAT16,       TENSOR_BFLOAT16,
                                             TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2};
#define IT_NUM_DTYPES ((int)(sizeof it_all_dtypes / sizeof it_all_dtypes[0]))

static inline uint64_t it_rng(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A contiguous CPU tensor of random bytes (bool: 0 or 1); NaN payloads included on purpose,
 * since every path here must move bits, not values. */
static inline tensor_t *it_random(int ndim, const int64_t *sizes, tensor_dtype dt, uint64_t seed) {
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= sizes[i];
    size_t bytes = (size_t)n * tensor_dtype_size(dt);
    unsigned char *buf = malloc(bytes ? bytes : 1);
    assert_non_null(buf);
    for (size_t i = 0; i < bytes; i++) buf[i] = (unsigned char)it_rng(&seed);
    if (dt == TENSOR_BOOL)
        for (size_t i = 0; i < bytes; i++) buf[i] &= 1;
    tensor_t *t = tensor_from_buffer(buf, ndim, sizes, dt, tensor_cpu());
    free(buf);
    assert_non_null(t);
    return t;
}

/* Views of a [4, 5, 6] base: what each exchange must carry over. */
typedef enum {
    IT_CONTIGUOUS,
    IT_TRANSPOSED,  /* dims reversed: column-major */
    IT_PERMUTED,    /* (1, 0, 2): neither row- nor column-major */
    IT_NARROWED,    /* an offset and a gap */
    IT_STEPPED,     /* every other element of the last dim */
    IT_SELECTED,    /* 2-D with an offset */
    IT_EXPANDED,    /* a stride-0 dim */
    IT_SCALAR,      /* 0-d, at an offset */
    IT_EMPTY,       /* a zero-size dim */
    IT_NUM_LAYOUTS
} it_layout;

static const char *const it_layout_names[IT_NUM_LAYOUTS] = {"contiguous", "transposed", "permuted",
                                                            "narrowed",   "stepped",    "selected",
                                                            "expanded",   "0-d",        "empty"};

static inline tensor_t *it_view(tensor_t *base, it_layout l) {
    tensor_t *v = NULL;
    switch (l) {
    case IT_CONTIGUOUS: v = tensor_retain(base); break;
    case IT_TRANSPOSED: v = tensor_permute(base, (const int[]){2, 1, 0}); break;
    case IT_PERMUTED: v = tensor_permute(base, (const int[]){1, 0, 2}); break;
    case IT_NARROWED: v = tensor_narrow(base, 1, 1, 3); break;
    case IT_STEPPED: v = tensor_slice(base, 2, 1, 6, 2); break;
    case IT_SELECTED: v = tensor_select(base, 0, 2); break;
    case IT_EXPANDED: {
        tensor_t *row = tensor_narrow(base, 0, 1, 1);
        assert_non_null(row);
        v = tensor_expand(row, 3, (const int64_t[]){3, 5, 6});
        tensor_release(row);
        break;
    }
    case IT_SCALAR: {
        tensor_t *a = tensor_select(base, 0, 3), *b = a ? tensor_select(a, 0, 4) : NULL;
        v = b ? tensor_select(b, 0, 5) : NULL;
        tensor_release(a);
        tensor_release(b);
        break;
    }
    case IT_EMPTY: v = tensor_narrow(base, 1, 2, 0); break;
    default: break;
    }
    if (v == NULL) fail_msg("view %d: %s", (int)l, tensor_last_error());
    return v;
}

/* Fails unless a and b have the same dtype, shape and logical bytes. */
static inline void it_assert_same(const tensor_t *a, const tensor_t *b, const char *what) {
    if (tensor_get_dtype(a) != tensor_get_dtype(b))
        fail_msg("%s: dtype %s vs %s", what, tensor_dtype_name(tensor_get_dtype(a)), tensor_dtype_name(tensor_get_dtype(b)));
    if (tensor_ndim(a) != tensor_ndim(b)) fail_msg("%s: ndim %d vs %d", what, tensor_ndim(a), tensor_ndim(b));
    for (int d = 0; d < tensor_ndim(a); d++)
        if (tensor_size(a, d) != tensor_size(b, d))
            fail_msg("%s: size %lld vs %lld on dim %d", what, (long long)tensor_size(a, d), (long long)tensor_size(b, d), d);
    size_t n = (size_t)tensor_numel(a) * tensor_dtype_size(tensor_get_dtype(a));
    unsigned char *pa = malloc(n ? n : 1), *pb = malloc(n ? n : 1);
    assert_non_null(pa);
    assert_non_null(pb);
    assert_int_equal(tensor_to_buffer(a, pa, n), TENSOR_OK);
    assert_int_equal(tensor_to_buffer(b, pb, n), TENSOR_OK);
    if (n > 0 && memcmp(pa, pb, n) != 0) fail_msg("%s: contents differ", what);
    free(pa);
    free(pb);
}

#endif

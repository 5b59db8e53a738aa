/* Shared by the CPU sum path tests (one copy per test file, everything static): float32
 * random tensors whose sums change when the order of additions changes, and a bitwise
 * comparison of two results. A file may choose its own seed with CPU_SUM_TEST_SEED. */
#ifndef TENSOR_TESTS_CPU_SUM_TEST_UTIL_H
#define TENSOR_TESTS_CPU_SUM_TEST_UTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

#ifndef CPU_SUM_TEST_SEED
#define CPU_SUM_TEST_SEED 0x9e3779b97f4a7c15ull
#endif
static uint64_t rng_state = CPU_SUM_TEST_SEED;
static uint64_t rng_next(void) { /* xorshift64 */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Both signs over 2^-20 .. 2^20, so that another order of additions changes the rounding. */
static float rnd_value(void) {
    const uint64_t r = rng_next();
    const float m = (float)((r >> 40) & 0xffffff) / 16777216.0f + 0.5f;
    const int e = (int)((r >> 8) % 41) - 20;
    return (r & 1) ? -ldexpf(m, e) : ldexpf(m, e);
}

static tensor_t *rnd_tensor(int ndim, const int64_t *sizes, int nan_every) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    float *v = malloc(sizeof(float) * (size_t)(n ? n : 1));
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++) v[i] = nan_every > 0 && rng_next() % (uint64_t)nan_every == 0 ? NAN : rnd_value();
    tensor_t *t = tensor_from_buffer(v, ndim, sizes, TENSOR_FLOAT32, tensor_cpu());
    free(v);
    assert_non_null(t);
    return t;
}

static void *bytes_of(const tensor_t *t, size_t *nbytes) {
    *nbytes = (size_t)tensor_numel(t) * tensor_dtype_size(tensor_get_dtype(t));
    void *v = malloc(*nbytes ? *nbytes : 1);
    assert_non_null(v);
    assert_int_equal(tensor_to_buffer(t, v, *nbytes), TENSOR_OK);
    return v;
}

static void expect_bitwise(const tensor_t *a, const tensor_t *b, const char *what, long long k) {
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(tensor_numel(a), tensor_numel(b));
    size_t na, nb;
    unsigned char *va = bytes_of(a, &na), *vb = bytes_of(b, &nb);
    assert_int_equal(na, nb);
    size_t first = na;
    for (size_t i = 0; i < na; i++)
        if (va[i] != vb[i]) {
            first = i;
            break;
        }
    free(va);
    free(vb);
    if (first < na) fail_msg("%s (%lld): the paths differ first at byte %zu", what, k, first);
}

typedef tensor_t *(*sum_fn)(const tensor_t *t, const int *dims, int ndims, bool keepdim, tensor_dtype dtype);

#endif

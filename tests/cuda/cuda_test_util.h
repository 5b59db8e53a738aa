/* Shared by every CUDA test (the files of tests/cuda): each runs the same call on CPU tensors
 * and on the same values on the GPU and compares, so each needs a random generator, fresh
 * random CPU tensors, an upload, a download and a shape check. What values a test draws is
 * its own (each file passes its ct_store_fn); how they are drawn and moved is here, once.
 * Every helper is static inline: a file pays nothing for those it does not use. */
#ifndef TENSOR_TEST_CUDA_TEST_UTIL_H
#define TENSOR_TEST_CUDA_TEST_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

#if TENSOR_HAVE_CUDA
#include "cuda/reduce_host.h"
#endif

/* splitmix64: a seed gives the same stream on every machine, so a failure reproduces. */
static inline uint64_t ct_rng(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* TENSOR_TEST_QUICK=1 (scripts/device.sh sets it for the compute-sanitizer runs, which are
 * 10-100x slower): fewer dtypes and smaller shapes. */
static inline bool ct_quick(void) {
    const char *q = getenv("TENSOR_TEST_QUICK");
    return q != NULL && q[0] == '1';
}

/* Stores one element of `dt` at p drawn from the random word r; `mode` is the caller's own
 * knob (a value mode, a flag), ignored by generators that have none. */
typedef void (*ct_store_fn)(tensor_dtype dt, void *p, uint64_t r, int mode);

/* Floats uniform in [-1, 1) (rounded to the dtype), integers over their whole range (the low
 * bytes of r: wrapping int64 sums still compare exactly), bool 0/1. */
static inline void ct_store_uniform(tensor_dtype dt, void *p, uint64_t r, int mode) {
    (void)mode;
    if (tensor_dtype_is_floating(dt))
        tensor_dtype_store_double(dt, p, (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    else if (dt == TENSOR_BOOL)
        *(unsigned char *)p = (unsigned char)(r & 1);
    else
        memcpy(p, &r, tensor_dtype_size(dt)); /* little-endian: the low bytes, any value of the type */
}

/* A contiguous CPU tensor (ndim 0: one element) whose element i is store(dt, ., r_i, mode),
 * r_i the i-th word of the stream of `seed`. */
static inline tensor_t *ct_random_cpu(int ndim, const int64_t *sizes, tensor_dtype dt, uint64_t seed, ct_store_fn store,
                                      int mode) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    size_t es = tensor_dtype_size(dt);
    unsigned char *buf = malloc((size_t)(n > 0 ? n : 1) * es);
    assert_non_null(buf);
    for (int64_t i = 0; i < n; i++) store(dt, buf + (size_t)i * es, ct_rng(&seed), mode);
    tensor_t *t = tensor_from_buffer(buf, ndim, sizes, dt, tensor_cpu());
    free(buf);
    assert_non_null(t);
    return t;
}

/* The same values on cuda:0 (a new reference); fails the test if the upload fails. */
static inline tensor_t *ct_to_gpu(const tensor_t *t) {
    tensor_t *g = tensor_to_device(t, tensor_cuda(0));
    if (g == NULL) fail_msg("upload: %s", tensor_last_error());
    return g;
}

/* Bytes of t's elements in logical (row-major) order. */
static inline size_t ct_nbytes(const tensor_t *t) {
    return (size_t)tensor_numel(t) * tensor_dtype_size(tensor_get_dtype(t));
}

/* t's elements in a malloc'ed host buffer (the caller frees it), of any layout and device. */
static inline void *ct_download(const tensor_t *t) {
    size_t n = ct_nbytes(t);
    void *p = malloc(n ? n : 1);
    assert_non_null(p);
    if (tensor_to_buffer(t, p, n) != TENSOR_OK) fail_msg("to_buffer: %s", tensor_last_error());
    return p;
}

/* Fails unless a and b have the same dtype and shape (before any element is compared). */
static inline void ct_assert_same_shape(const tensor_t *a, const tensor_t *b, const char *what) {
    if (tensor_get_dtype(a) != tensor_get_dtype(b))
        fail_msg("%s: dtype %s vs %s", what, tensor_dtype_name(tensor_get_dtype(a)),
                 tensor_dtype_name(tensor_get_dtype(b)));
    if (tensor_ndim(a) != tensor_ndim(b)) fail_msg("%s: ndim %d vs %d", what, tensor_ndim(a), tensor_ndim(b));
    for (int d = 0; d < tensor_ndim(a); d++)
        if (tensor_size(a, d) != tensor_size(b, d))
            fail_msg("%s: size %lld vs %lld on dim %d", what, (long long)tensor_size(a, d), (long long)tensor_size(b, d),
                     d);
}

/* A view of `base` (the same call gives the same layout on either device). */
typedef enum { V_NONE, V_TRANSPOSE, V_NARROW0, V_NARROW_LAST, V_EXPAND0 } view_kind;

static inline tensor_t *ct_make_view(const tensor_t *base, view_kind v, int64_t expand_to) {
    int nd = tensor_ndim(base);
    switch (v) {
    case V_TRANSPOSE: return tensor_transpose(base, 0, nd - 1);
    case V_NARROW0: return tensor_narrow(base, 0, 1, tensor_size(base, 0) - 1);
    case V_NARROW_LAST: return tensor_narrow(base, nd - 1, 1, tensor_size(base, nd - 1) - 1);
    case V_EXPAND0: {
        int64_t sizes[TENSOR_MAX_DIMS];
        for (int d = 0; d < nd; d++) sizes[d] = tensor_size(base, d);
        sizes[0] = expand_to; /* base has size 1 on dim 0 */
        return tensor_expand(base, nd, sizes);
    }
    default: {
        tensor_t *t = (tensor_t *)base;
        tensor_retain(t);
        return t;
    }
    }
}

/* `all` holds `rows` rows of `cols` bytes that must each equal `row` (a broadcast row, > 2^31
 * elements in all): the first and last 16 rows and every 4099th between are compared, the
 * last row always. */
static inline void ct_assert_sampled_rows(const void *all, const void *row, int64_t rows, int64_t cols) {
    const unsigned char *a = all;
    for (int64_t r = 0; r < rows; r += (r < 16 || r > rows - 16) ? 1 : 4099)
        if (memcmp(a + r * cols, row, (size_t)cols) != 0) fail_msg("row %lld differs", (long long)r);
    assert_int_equal(memcmp(a + (rows - 1) * cols, row, (size_t)cols), 0);
}

/* Sums the CUDA tensor g over dims `runs` times: every run must give the same bytes (no float
 * atomics, the engine's semaphores reset between launches). */
static inline void ct_assert_sum_reproducible(const tensor_t *g, const int *dims, int ndims, int runs) {
    void *first = NULL;
    size_t n0 = 0;
    for (int run = 0; run < runs; run++) {
        tensor_t *r = tensor_sum_dims(g, dims, ndims, false, TENSOR_DTYPE_DEFAULT);
        if (r == NULL) fail_msg("cuda sum: %s", tensor_last_error());
        size_t n = ct_nbytes(r);
        void *bytes = ct_download(r);
        tensor_release(r);
        if (first == NULL) {
            first = bytes;
            n0 = n;
        } else {
            assert_int_equal(n, n0);
            assert_memory_equal(first, bytes, n);
            free(bytes);
        }
    }
    free(first);
}

/* Gives back the reduction engine's semaphores and the cached blocks, so that
 * compute-sanitizer's leak check sees nothing left whichever group runs last. */
static inline tensor_status ct_release_cached(void) {
#if TENSOR_HAVE_CUDA
    tensor_cuda_reduce_release_scratch();
#endif
    return tensor_cuda_empty_cache();
}

#endif

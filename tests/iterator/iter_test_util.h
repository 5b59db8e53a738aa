/* Helpers shared by the tests/iterator/test_iter_*.c files: tensors with arbitrary
 * geometry, a seeded RNG, and recording what a for_each visits. */
#ifndef TENSOR_ITER_TEST_UTIL_H
#define TENSOR_ITER_TEST_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "test_main.h"

#include "iterator/iterator.h"
#include "runtime/tensor_impl.h"
#include "iterator/iter_internal.h"

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define INTS(...) ((const int[]){__VA_ARGS__})

/* A contiguous CPU tensor (uninitialised). */
static inline tensor_t *itest_empty(int ndim, const int64_t *sizes, tensor_dtype dtype) {
    tensor_t *t = tensor_empty(ndim, sizes, dtype, tensor_cpu());
    assert_non_null(t);
    return t;
}

/* A view of base's storage with any geometry (offset and strides in elements). The caller
 * makes sure it stays inside the storage. */
static inline tensor_t *itest_view(const tensor_t *base, int64_t offset, int ndim, const int64_t *sizes,
                                   const int64_t *strides) {
    tensor_t *t = tensor_make(base->storage, base->offset + offset, ndim, sizes, strides, base->dtype, "itest_view");
    assert_non_null(t);
    return t;
}

/* A tensor whose storage claims to live on `device` (never dereferenced: for device checks). */
static inline tensor_t *itest_fake_device(int ndim, const int64_t *sizes, tensor_dtype dtype, tensor_device device) {
    static char dummy[64];
    tensor_storage *s = tensor_storage_wrap(dummy, sizeof dummy, device, NULL, NULL, "itest_fake_device");
    assert_non_null(s);
    int64_t strides[TENSOR_MAX_DIMS];
    tensor_contiguous_strides(ndim, sizes, strides);
    tensor_t *t = tensor_make(s, 0, ndim, sizes, strides, dtype, "itest_fake_device");
    tensor_storage_release(s);
    assert_non_null(t);
    return t;
}

/* A contiguous CPU tensor of any size whose storage is a small dummy: only for plans that
 * are never run (the seed shapes would need hundreds of MiB). */
static inline tensor_t *itest_huge(int ndim, const int64_t *sizes, tensor_dtype dtype) {
    return itest_fake_device(ndim, sizes, dtype, tensor_cpu());
}

static inline void itest_assert_i64(const int64_t *got, int n_got, const int64_t *want, int n_want, const char *what) {
    bool ok = n_got == n_want;
    for (int i = 0; ok && i < n_want; i++) ok = got[i] == want[i];
    if (!ok) {
        char g[256] = "", w[256] = "";
        size_t lg = 0, lw = 0;
        for (int i = 0; i < n_got; i++) lg += (size_t)snprintf(g + lg, sizeof g - lg, "%lld ", (long long)got[i]);
        for (int i = 0; i < n_want; i++) lw += (size_t)snprintf(w + lw, sizeof w - lw, "%lld ", (long long)want[i]);
        fail_msg("%s: got [%s] want [%s]", what, g, w);
    }
}

/* The iterator's computation shape / operand strides equal the expected lists. */
#define assert_iter_shape(it, ...)                                                                  \
    itest_assert_i64((it)->shape, (it)->ndim, I64(__VA_ARGS__), (int)(sizeof(I64(__VA_ARGS__)) / 8), "shape")
#define assert_iter_strides(it, arg, ...)                                                           \
    itest_assert_i64((it)->operands[arg].strides, (it)->ndim, I64(__VA_ARGS__),                     \
                     (int)(sizeof(I64(__VA_ARGS__)) / 8), "strides of operand " #arg)

static inline void itest_assert_perm(const tensor_iter_t *it, const int *want, int n) {
    int m;
    const int *p = tensor_iter_perm(it, &m);
    assert_int_equal(m, n);
    for (int i = 0; i < n; i++)
        if (p[i] != want[i]) fail_msg("perm[%d] = %d, want %d", i, p[i], want[i]);
}

/* ---- RNG (splitmix64; fixed seeds make failures reproducible) ---- */
static inline uint64_t itest_rng(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline int64_t itest_range(uint64_t *s, int64_t lo, int64_t hi) {
    return lo + (int64_t)(itest_rng(s) % (uint64_t)(hi - lo + 1));
}

/* ---- recording visits: one tuple of byte offsets (from each operand's storage) per element ---- */
typedef struct itest_record {
    int n;          /* operands per tuple */
    int64_t count;  /* tuples recorded */
    int64_t cap;
    int64_t *tuples; /* count * n */
    char *bases[TENSOR_ITER_MAX_OPERANDS + 1];
} itest_record;

static inline void itest_record_init(itest_record *r, const tensor_iter_t *it) {
    memset(r, 0, sizeof *r);
    r->n = it->num_operands;
    for (int a = 0; a < it->num_operands; a++) r->bases[a] = (char *)it->operands[a].tensor->storage->data;
}

static inline void itest_record_push(itest_record *r, const int64_t *tuple) {
    if (r->count == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->tuples = realloc(r->tuples, sizeof(int64_t) * (size_t)(r->cap * r->n));
        assert_non_null(r->tuples);
    }
    memcpy(r->tuples + r->count * r->n, tuple, sizeof(int64_t) * (size_t)r->n);
    r->count++;
}

/* A tensor_iter_loop2d_fn recording every element's offsets. Serial use only. */
static inline void itest_record_loop(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *ctx) {
    itest_record *r = ctx;
    int64_t tuple[TENSOR_ITER_MAX_OPERANDS + 1];
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++) {
            for (int a = 0; a < r->n; a++)
                tuple[a] = (data[a] - r->bases[a]) + i * strides[a] + j * strides[r->n + a];
            itest_record_push(r, tuple);
        }
}

static int itest_tuple_n;
static inline int itest_cmp_tuple(const void *a, const void *b) {
    const int64_t *x = a, *y = b;
    for (int i = 0; i < itest_tuple_n; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

static inline void itest_record_sort(itest_record *r) {
    itest_tuple_n = r->n;
    if (r->count > 1) qsort(r->tuples, (size_t)r->count, sizeof(int64_t) * (size_t)r->n, itest_cmp_tuple);
}

/* Both recordings hold the same multiset of tuples (sorts both). */
static inline void itest_record_assert_equal(itest_record *a, itest_record *b, const char *what) {
    itest_record_sort(a);
    itest_record_sort(b);
    if (a->count != b->count || a->n != b->n) fail_msg("%s: %lld vs %lld tuples", what, (long long)a->count, (long long)b->count);
    if (a->count && memcmp(a->tuples, b->tuples, sizeof(int64_t) * (size_t)(a->count * a->n)) != 0) {
        for (int64_t k = 0; k < a->count * a->n; k++)
            if (a->tuples[k] != b->tuples[k])
                fail_msg("%s: tuples differ at tuple %lld operand %d (%lld vs %lld)", what, (long long)(k / a->n),
                         (int)(k % a->n), (long long)a->tuples[k], (long long)b->tuples[k]);
    }
}

static inline void itest_record_free(itest_record *r) {
    free(r->tuples);
    r->tuples = NULL;
}

#endif

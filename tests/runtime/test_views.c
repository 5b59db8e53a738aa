/* Tests of views and copies (runtime/views.c, runtime/copy.c): geometry as PyTorch gives it
 * (sizes, strides, storage offset), values read back through tensor_to_buffer, and whether a
 * result shares the input's storage. The base tensors hold 0, 1, 2, ... so that every element's
 * value is its index in the storage, and a view's values follow from its geometry. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define I64(...) ((const int64_t[]){__VA_ARGS__})

/* A contiguous int64 tensor of `sizes` holding 0, 1, 2, ... */
static tensor_t *iota(int ndim, const int64_t *sizes) {
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= sizes[i];
    tensor_t *flat = tensor_arange(0, (double)n, 1, TENSOR_INT64, tensor_cpu());
    assert_non_null(flat);
    tensor_t *t = tensor_view(flat, ndim, sizes);
    assert_non_null(t);
    tensor_release(flat);
    return t;
}

static void expect_geometry(const tensor_t *t, int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset) {
    assert_non_null(t);
    assert_int_equal(tensor_ndim(t), ndim);
    for (int i = 0; i < ndim; i++) {
        if (tensor_sizes(t)[i] != sizes[i])
            fail_msg("size[%d] = %lld, want %lld", i, (long long)tensor_sizes(t)[i], (long long)sizes[i]);
        if (strides && tensor_strides(t)[i] != strides[i])
            fail_msg("stride[%d] = %lld, want %lld", i, (long long)tensor_strides(t)[i], (long long)strides[i]);
    }
    if (offset >= 0) assert_int_equal(tensor_storage_offset(t), offset);
}

/* t's values in logical order, as int64 (any dtype; through tensor_to_dtype). */
static int64_t *values(const tensor_t *t) {
    tensor_t *c = tensor_to_dtype(t, TENSOR_INT64);
    assert_non_null(c);
    int64_t n = tensor_numel(c);
    int64_t *out = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    assert_int_equal(tensor_to_buffer(c, out, sizeof(int64_t) * (size_t)n), TENSOR_OK);
    tensor_release(c);
    return out;
}

/* The first n values of t (all of them when n == numel). */
static void expect_values(const tensor_t *t, const int64_t *want, int64_t n) {
    assert_true(tensor_numel(t) >= n);
    int64_t *v = values(t);
    for (int64_t i = 0; i < n; i++)
        if (v[i] != want[i]) fail_msg("element %lld = %lld, want %lld", (long long)i, (long long)v[i], (long long)want[i]);
    free(v);
}

/* For a view of an iota base: element at logical index idx has value offset + sum idx*stride. */
static void expect_values_follow_geometry(const tensor_t *t) {
    int64_t n = tensor_numel(t);
    int nd = tensor_ndim(t);
    int64_t *v = values(t);
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    for (int64_t i = 0; i < n; i++) {
        int64_t want = tensor_storage_offset(t);
        for (int d = 0; d < nd; d++) want += idx[d] * tensor_strides(t)[d];
        if (v[i] != want) fail_msg("element %lld = %lld, want %lld", (long long)i, (long long)v[i], (long long)want);
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < tensor_sizes(t)[d]) break;
            idx[d] = 0;
        }
    }
    free(v);
}

/* ---- permute / transpose ---- */

static void test_permute(void **state) {
    (void)state;
    tensor_t *t = iota(3, I64(2, 3, 4));
    tensor_t *p = tensor_permute(t, (const int[]){2, 0, 1});
    expect_geometry(p, 3, I64(4, 2, 3), I64(1, 12, 4), 0);
    assert_true(tensor_shares_storage(t, p));
    assert_false(tensor_is_contiguous(p));
    expect_values_follow_geometry(p);
    expect_values(p, I64(0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21), 12); /* first 12 */
    /* Negative entries wrap: (-1, 0, 1) == (2, 0, 1). */
    tensor_t *q = tensor_permute(t, (const int[]){-1, 0, -2});
    expect_geometry(q, 3, I64(4, 2, 3), I64(1, 12, 4), 0);
    /* Identity permutation keeps contiguity; permuting back restores it. */
    tensor_t *id = tensor_permute(t, (const int[]){0, 1, 2});
    assert_true(tensor_is_contiguous(id));
    tensor_t *back = tensor_permute(p, (const int[]){1, 2, 0});
    expect_geometry(back, 3, I64(2, 3, 4), I64(12, 4, 1), 0);
    assert_true(tensor_is_contiguous(back));
    /* A 0-d tensor permutes with no dims. */
    tensor_t *s = tensor_zeros(0, NULL, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *sp = tensor_permute(s, NULL);
    assert_non_null(sp);
    assert_int_equal(tensor_ndim(sp), 0);
    tensor_release(sp);
    tensor_release(s);
    tensor_release(back);
    tensor_release(id);
    tensor_release(q);
    tensor_release(p);
    tensor_release(t);
}

static void test_transpose(void **state) {
    (void)state;
    tensor_t *t = iota(3, I64(2, 3, 4));
    tensor_t *a = tensor_transpose(t, 0, 2);
    expect_geometry(a, 3, I64(4, 3, 2), I64(1, 4, 12), 0);
    expect_values_follow_geometry(a);
    tensor_t *b = tensor_transpose(t, -1, -2);
    expect_geometry(b, 3, I64(2, 4, 3), I64(12, 1, 4), 0);
    expect_values_follow_geometry(b);
    tensor_t *same = tensor_transpose(t, 1, 1);
    expect_geometry(same, 3, I64(2, 3, 4), I64(12, 4, 1), 0);
    assert_true(tensor_is_contiguous(same));
    /* 2-D: the classic. */
    tensor_t *m = iota(2, I64(2, 3));
    tensor_t *mt = tensor_transpose(m, 0, 1);
    expect_values(mt, I64(0, 3, 1, 4, 2, 5), 6);
    /* 0-d: dims 0 and -1 are allowed (PyTorch wraps a scalar as 1-d). */
    tensor_t *s = tensor_full(0, NULL, 7, TENSOR_INT32, tensor_cpu());
    tensor_t *st = tensor_transpose(s, 0, -1);
    assert_non_null(st);
    assert_int_equal(tensor_ndim(st), 0);
    expect_values(st, I64(7), 1);
    tensor_release(st);
    tensor_release(s);
    tensor_release(mt);
    tensor_release(m);
    tensor_release(same);
    tensor_release(b);
    tensor_release(a);
    tensor_release(t);
}

/* ---- narrow / slice / select ---- */

static void test_narrow(void **state) {
    (void)state;
    tensor_t *t = iota(3, I64(2, 3, 4));
    tensor_t *a = tensor_narrow(t, 1, 1, 2);
    expect_geometry(a, 3, I64(2, 2, 4), I64(12, 4, 1), 4);
    expect_values(a, I64(4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23), 16);
    assert_true(tensor_shares_storage(a, t));
    assert_false(tensor_is_contiguous(a));
    /* Negative start counts from the end: narrow(-1, -2, 2) == the last two columns. */
    tensor_t *b = tensor_narrow(t, -1, -2, 2);
    expect_geometry(b, 3, I64(2, 3, 2), I64(12, 4, 1), 2);
    expect_values_follow_geometry(b);
    /* Narrowing the outermost dim stays contiguous; length 0 and start == size are allowed. */
    tensor_t *c = tensor_narrow(t, 0, 1, 1);
    expect_geometry(c, 3, I64(1, 3, 4), I64(12, 4, 1), 12);
    assert_true(tensor_is_contiguous(c));
    tensor_t *e = tensor_narrow(t, 2, 4, 0);
    expect_geometry(e, 3, I64(2, 3, 0), NULL, -1);
    assert_int_equal(tensor_numel(e), 0);
    /* narrow of a narrow accumulates the offset. */
    tensor_t *nn = tensor_narrow(a, 2, 1, 2);
    expect_geometry(nn, 3, I64(2, 2, 2), I64(12, 4, 1), 5);
    expect_values(nn, I64(5, 6, 9, 10, 17, 18, 21, 22), 8);
    tensor_release(nn);
    tensor_release(e);
    tensor_release(c);
    tensor_release(b);
    tensor_release(a);
    tensor_release(t);
}

static void test_slice(void **state) {
    (void)state;
    tensor_t *t = iota(2, I64(3, 10));
    /* t[:, 0:10:3] -> columns 0, 3, 6, 9 */
    tensor_t *a = tensor_slice(t, 1, 0, 10, 3);
    expect_geometry(a, 2, I64(3, 4), I64(10, 3), 0);
    expect_values(a, I64(0, 3, 6, 9, 10, 13, 16, 19, 20, 23, 26, 29), 12);
    /* t[:, 1:100:4] clamps the end: columns 1, 5, 9 */
    tensor_t *b = tensor_slice(t, 1, 1, 100, 4);
    expect_geometry(b, 2, I64(3, 3), I64(10, 4), 1);
    expect_values_follow_geometry(b);
    /* t[:, -3:] (end = INT64_MAX) -> columns 7, 8, 9 */
    tensor_t *c = tensor_slice(t, -1, -3, INT64_MAX, 1);
    expect_geometry(c, 2, I64(3, 3), I64(10, 1), 7);
    expect_values_follow_geometry(c);
    /* t[-100:2] clamps the start to 0 */
    tensor_t *d = tensor_slice(t, 0, -100, 2, 1);
    expect_geometry(d, 2, I64(2, 10), I64(10, 1), 0);
    assert_true(tensor_is_contiguous(d));
    /* t[:, 5:2] and t[:, 20:30] are empty (start clamped to size) */
    tensor_t *e = tensor_slice(t, 1, 5, 2, 1);
    expect_geometry(e, 2, I64(3, 0), NULL, -1);
    tensor_t *f = tensor_slice(t, 1, 20, 30, 2);
    expect_geometry(f, 2, I64(3, 0), NULL, -1);
    /* t[:, -4:-1:2] -> columns 6, 8 */
    tensor_t *g = tensor_slice(t, 1, -4, -1, 2);
    expect_geometry(g, 2, I64(3, 2), I64(10, 2), 6);
    expect_values(g, I64(6, 8, 16, 18, 26, 28), 6);
    /* A step larger than the size gives one element; INT64_MAX must not overflow. */
    tensor_t *h = tensor_slice(t, 1, 2, 10, 1000);
    expect_geometry(h, 2, I64(3, 1), NULL, 2);
    expect_values(h, I64(2, 12, 22), 3);
    tensor_t *k = tensor_slice(t, 1, 0, INT64_MAX, INT64_MAX);
    expect_geometry(k, 2, I64(3, 1), NULL, 0);
    expect_values(k, I64(0, 10, 20), 3);
    /* slice of a slice: t[:, ::2][:, 1::2] -> columns 2, 6 */
    tensor_t *s1 = tensor_slice(t, 1, 0, INT64_MAX, 2);
    tensor_t *s2 = tensor_slice(s1, 1, 1, INT64_MAX, 2);
    expect_geometry(s2, 2, I64(3, 2), I64(10, 4), 2);
    expect_values_follow_geometry(s2);
    tensor_t *all[] = {a, b, c, d, e, f, g, h, k, s1, s2, t};
    for (int i = 0; i < NELEM(all); i++) tensor_release(all[i]);
}

static void test_select(void **state) {
    (void)state;
    tensor_t *t = iota(3, I64(2, 3, 4));
    tensor_t *a = tensor_select(t, 0, 1);
    expect_geometry(a, 2, I64(3, 4), I64(4, 1), 12);
    assert_true(tensor_is_contiguous(a));
    expect_values_follow_geometry(a);
    tensor_t *b = tensor_select(t, -1, -1); /* t[..., -1] */
    expect_geometry(b, 2, I64(2, 3), I64(12, 4), 3);
    expect_values(b, I64(3, 7, 11, 15, 19, 23), 6);
    tensor_t *c = tensor_select(t, 1, 2);
    expect_geometry(c, 2, I64(2, 4), I64(12, 1), 8);
    expect_values_follow_geometry(c);
    /* Selecting from 1-d gives a 0-d tensor. */
    tensor_t *row = tensor_select(b, 0, 1);
    tensor_t *x = tensor_select(row, 0, 2);
    assert_int_equal(tensor_ndim(x), 0);
    assert_int_equal(tensor_numel(x), 1);
    assert_int_equal(tensor_storage_offset(x), 23);
    expect_values(x, I64(23), 1);
    tensor_t *all[] = {a, b, c, row, x, t};
    for (int i = 0; i < NELEM(all); i++) tensor_release(all[i]);
}

/* ---- expand ---- */

static void test_expand(void **state) {
    (void)state;
    tensor_t *col = iota(2, I64(3, 1));
    tensor_t *a = tensor_expand(col, 3, I64(2, 3, 4));
    expect_geometry(a, 3, I64(2, 3, 4), I64(0, 1, 0), 0);
    assert_true(tensor_shares_storage(a, col));
    assert_false(tensor_is_contiguous(a));
    expect_values(a, I64(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2), 24);
    /* -1 keeps the size of an existing dim. */
    tensor_t *b = tensor_expand(col, 2, I64(-1, 5));
    expect_geometry(b, 2, I64(3, 5), I64(1, 0), 0);
    /* Same sizes: a view equal to the input. */
    tensor_t *c = tensor_expand(col, 2, I64(3, 1));
    expect_geometry(c, 2, I64(3, 1), I64(1, 1), 0);
    /* 0-d to [2, 2], size 1 to size 0. */
    tensor_t *s = tensor_full(0, NULL, 4, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *d = tensor_expand(s, 2, I64(2, 2));
    expect_geometry(d, 2, I64(2, 2), I64(0, 0), 0);
    expect_values(d, I64(4, 4, 4, 4), 4);
    tensor_t *e = tensor_expand(col, 2, I64(3, 0));
    expect_geometry(e, 2, I64(3, 0), NULL, -1);
    assert_int_equal(tensor_numel(e), 0);
    tensor_t *f = tensor_expand(col, 3, I64(0, 3, 2)); /* a new leading dim of size 0 */
    expect_geometry(f, 3, I64(0, 3, 2), NULL, -1);
    /* Expanding an expanded view: strides stay 0. */
    tensor_t *g = tensor_expand(b, 3, I64(2, 3, 5));
    expect_geometry(g, 3, I64(2, 3, 5), I64(0, 1, 0), 0);
    /* clone materialises it. */
    tensor_t *h = tensor_clone(a);
    expect_geometry(h, 3, I64(2, 3, 4), I64(12, 4, 1), 0);
    assert_false(tensor_shares_storage(h, a));
    expect_values(h, I64(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2), 12);
    tensor_t *all[] = {col, a, b, c, s, d, e, f, g, h};
    for (int i = 0; i < NELEM(all); i++) tensor_release(all[i]);
}

/* ---- view / reshape ---- */

static void test_view(void **state) {
    (void)state;
    tensor_t *t = iota(3, I64(2, 3, 4));
    tensor_t *a = tensor_view(t, 2, I64(6, 4));
    expect_geometry(a, 2, I64(6, 4), I64(4, 1), 0);
    assert_true(tensor_shares_storage(a, t));
    tensor_t *b = tensor_view(t, 1, I64(-1));
    expect_geometry(b, 1, I64(24), I64(1), 0);
    tensor_t *c = tensor_view(t, 3, I64(4, -1, 2));
    expect_geometry(c, 3, I64(4, 3, 2), I64(6, 2, 1), 0);
    tensor_t *d = tensor_view(t, 5, I64(1, 2, 1, 12, 1));
    expect_geometry(d, 5, I64(1, 2, 1, 12, 1), NULL, 0);
    assert_true(tensor_is_contiguous(d));
    expect_values_follow_geometry(d);

    /* After a transpose, dims that stay within one contiguous chunk can still be split:
     * [4, 6].T is [6, 4] strides (1, 6); view [6, 2, 2] gives strides (1, 12, 6). */
    tensor_t *m = iota(2, I64(4, 6));
    tensor_t *mt = tensor_transpose(m, 0, 1);
    tensor_t *split = tensor_view(mt, 3, I64(6, 2, 2));
    expect_geometry(split, 3, I64(6, 2, 2), I64(1, 12, 6), 0);
    expect_values_follow_geometry(split);
    /* ...but merging across them is the view-incompatible error. */
    tensor_clear_error();
    assert_null(tensor_view(mt, 1, I64(24)));
    assert_error(TENSOR_ERR_SHAPE, "tensor_view: view size is not compatible with input tensor's size and stride");
    assert_null(tensor_view(mt, 2, I64(4, 6)));
    assert_error(TENSOR_ERR_SHAPE, "Use tensor_reshape instead");

    /* A narrowed view whose outer dims are still mergeable. */
    tensor_t *n = tensor_narrow(t, 2, 0, 2); /* [2, 3, 2] strides (12, 4, 1) */
    tensor_t *nv = tensor_view(n, 2, I64(6, 2));
    expect_geometry(nv, 2, I64(6, 2), I64(4, 1), 0);
    expect_values_follow_geometry(nv);
    tensor_clear_error();
    assert_null(tensor_view(n, 1, I64(12)));
    assert_error(TENSOR_ERR_SHAPE, "view size is not compatible");

    /* Expanded dims: splitting keeps stride 0, merging with a real dim fails. */
    tensor_t *row = iota(2, I64(1, 4));
    tensor_t *ex = tensor_expand(row, 2, I64(3, 4));
    tensor_t *exv = tensor_view(ex, 3, I64(3, 2, 2));
    expect_geometry(exv, 3, I64(3, 2, 2), I64(0, 2, 1), 0);
    tensor_clear_error();
    assert_null(tensor_view(ex, 1, I64(12)));
    assert_error(TENSOR_ERR_SHAPE, "view size is not compatible");

    /* 0-d <-> [1], [1, 1]; empty tensors view freely. */
    tensor_t *s = tensor_full(0, NULL, 9, TENSOR_INT64, tensor_cpu());
    tensor_t *s1 = tensor_view(s, 2, I64(1, 1));
    expect_geometry(s1, 2, I64(1, 1), NULL, 0);
    tensor_t *s0 = tensor_view(s1, 0, NULL);
    assert_int_equal(tensor_ndim(s0), 0);
    expect_values(s0, I64(9), 1);
    tensor_t *s2 = tensor_view(s, 1, I64(-1));
    expect_geometry(s2, 1, I64(1), NULL, 0);
    tensor_t *z = tensor_zeros(2, I64(0, 3), TENSOR_FLOAT32, tensor_cpu());
    tensor_t *zt = tensor_transpose(z, 0, 1);
    tensor_t *zv = tensor_view(zt, 3, I64(3, 0, 5)); /* numel 0: any layout */
    expect_geometry(zv, 3, I64(3, 0, 5), NULL, -1);
    tensor_t *zw = tensor_view(z, 2, I64(-1, 0)); /* ambiguous? no: known 0 and numel 0 */
    assert_null(zw);
    assert_error(TENSOR_ERR_SHAPE, "ambiguous");

    tensor_t *all[] = {t, a, b, c, d, m, mt, split, n, nv, row, ex, exv, s, s1, s0, s2, z, zt, zv};
    for (int i = 0; i < NELEM(all); i++) tensor_release(all[i]);
}

static void test_reshape(void **state) {
    (void)state;
    tensor_t *t = iota(2, I64(4, 6));
    /* Contiguous: a view. */
    tensor_t *a = tensor_reshape(t, 3, I64(2, -1, 3));
    expect_geometry(a, 3, I64(2, 4, 3), I64(12, 3, 1), 0);
    assert_true(tensor_shares_storage(a, t));
    /* Transposed, merging: a contiguous copy with the logical values. */
    tensor_t *tt = tensor_transpose(t, 0, 1);
    tensor_t *b = tensor_reshape(tt, 1, I64(-1));
    expect_geometry(b, 1, I64(24), I64(1), 0);
    assert_false(tensor_shares_storage(b, t));
    assert_true(tensor_is_contiguous(b));
    expect_values(b, I64(0, 6, 12, 18, 1, 7, 13, 19, 2, 8, 14, 20, 3, 9, 15, 21, 4, 10, 16, 22, 5, 11, 17, 23), 24);
    /* Transposed, splitting within a chunk: still a view. */
    tensor_t *c = tensor_reshape(tt, 3, I64(3, 2, 4));
    expect_geometry(c, 3, I64(3, 2, 4), I64(2, 1, 6), 0);
    assert_true(tensor_shares_storage(c, t));
    expect_values_follow_geometry(c);
    /* Expanded tensors copy when merged. */
    tensor_t *row = iota(2, I64(1, 3));
    tensor_t *ex = tensor_expand(row, 2, I64(2, 3));
    tensor_t *d = tensor_reshape(ex, 1, I64(6));
    assert_false(tensor_shares_storage(d, row));
    expect_values(d, I64(0, 1, 2, 0, 1, 2), 6);
    /* dtype is kept through the copy. */
    tensor_t *h = tensor_to_dtype(tt, TENSOR_FLOAT16);
    tensor_t *ht = tensor_transpose(h, 0, 1);
    tensor_t *hr = tensor_reshape(ht, 2, I64(3, 8));
    assert_int_equal(tensor_get_dtype(hr), TENSOR_FLOAT16);
    expect_values(hr, I64(0, 1, 2, 3, 4, 5, 6, 7), 8);
    tensor_t *all[] = {t, a, tt, b, c, row, ex, d, h, ht, hr};
    for (int i = 0; i < NELEM(all); i++) tensor_release(all[i]);
}

/* ---- squeeze / unsqueeze / flatten ---- */

static void test_squeeze_unsqueeze(void **state) {
    (void)state;
    tensor_t *t = iota(4, I64(1, 3, 1, 2));
    tensor_t *a = tensor_squeeze(t);
    expect_geometry(a, 2, I64(3, 2), I64(2, 1), 0);
    assert_true(tensor_shares_storage(a, t));
    tensor_t *b = tensor_squeeze_dim(t, 0);
    expect_geometry(b, 3, I64(3, 1, 2), I64(2, 2, 1), 0);
    tensor_t *c = tensor_squeeze_dim(t, -2);
    expect_geometry(c, 3, I64(1, 3, 2), I64(6, 2, 1), 0);
    tensor_t *same = tensor_squeeze_dim(t, 1); /* size 3: unchanged view */
    expect_geometry(same, 4, I64(1, 3, 1, 2), I64(6, 2, 2, 1), 0);
    assert_true(tensor_shares_storage(same, t));
    tensor_t *ones = tensor_zeros(2, I64(1, 1), TENSOR_INT8, tensor_cpu());
    tensor_t *s0 = tensor_squeeze(ones);
    assert_int_equal(tensor_ndim(s0), 0);
    tensor_t *s00 = tensor_squeeze_dim(s0, 0); /* 0-d: dim 0 allowed, no-op */
    assert_int_equal(tensor_ndim(s00), 0);
    tensor_t *s01 = tensor_squeeze(s0);
    assert_int_equal(tensor_ndim(s01), 0);

    tensor_t *m = iota(2, I64(3, 4));
    tensor_t *u0 = tensor_unsqueeze(m, 0);
    expect_geometry(u0, 3, I64(1, 3, 4), I64(12, 4, 1), 0);
    tensor_t *u1 = tensor_unsqueeze(m, 1);
    expect_geometry(u1, 3, I64(3, 1, 4), I64(4, 4, 1), 0);
    tensor_t *u2 = tensor_unsqueeze(m, -1);
    expect_geometry(u2, 3, I64(3, 4, 1), I64(4, 1, 1), 0);
    tensor_t *u3 = tensor_unsqueeze(m, -3);
    expect_geometry(u3, 3, I64(1, 3, 4), I64(12, 4, 1), 0);
    assert_true(tensor_is_contiguous(u1));
    tensor_t *u4 = tensor_unsqueeze(s0, 0);
    expect_geometry(u4, 1, I64(1), I64(1), 0);
    tensor_t *u5 = tensor_unsqueeze(s0, -1);
    expect_geometry(u5, 1, I64(1), I64(1), 0);
    /* unsqueeze of a transposed view keeps the PyTorch stride rule (size*stride of the next dim). */
    tensor_t *mt = tensor_transpose(m, 0, 1);
    tensor_t *u6 = tensor_unsqueeze(mt, 1);
    expect_geometry(u6, 3, I64(4, 1, 3), I64(1, 12, 4), 0);
    expect_values_follow_geometry(u6);
    /* up to TENSOR_MAX_DIMS */
    tensor_t *deep = tensor_retain(m);
    for (int i = 2; i < TENSOR_MAX_DIMS; i++) {
        tensor_t *next = tensor_unsqueeze(deep, 0);
        assert_non_null(next);
        tensor_release(deep);
        deep = next;
    }
    assert_int_equal(tensor_ndim(deep), TENSOR_MAX_DIMS);
    tensor_t *flat = tensor_squeeze(deep);
    expect_geometry(flat, 2, I64(3, 4), I64(4, 1), 0);
    tensor_t *all[] = {t, a, b, c, same, ones, s0, s00, s01, m, u0, u1, u2, u3, u4, u5, mt, u6, deep, flat};
    for (int i = 0; i < NELEM(all); i++) tensor_release(all[i]);
}

static void test_flatten(void **state) {
    (void)state;
    tensor_t *t = iota(3, I64(2, 3, 4));
    tensor_t *a = tensor_flatten(t, 0, -1);
    expect_geometry(a, 1, I64(24), I64(1), 0);
    assert_true(tensor_shares_storage(a, t));
    tensor_t *b = tensor_flatten(t, 1, 2);
    expect_geometry(b, 2, I64(2, 12), I64(12, 1), 0);
    tensor_t *c = tensor_flatten(t, 0, 1);
    expect_geometry(c, 2, I64(6, 4), I64(4, 1), 0);
    tensor_t *d = tensor_flatten(t, 1, 1); /* no-op */
    expect_geometry(d, 3, I64(2, 3, 4), I64(12, 4, 1), 0);
    /* A permuted tensor flattens by copy. */
    tensor_t *p = tensor_permute(t, (const int[]){2, 1, 0});
    tensor_t *e = tensor_flatten(p, 0, -1);
    assert_false(tensor_shares_storage(e, t));
    expect_values(e, I64(0, 12, 4, 16, 8, 20, 1, 13), 8);
    /* ...but flattening a single dim is a view. */
    tensor_t *f = tensor_flatten(p, 2, 2);
    assert_true(tensor_shares_storage(f, t));
    /* 0-d flattens to [1]. */
    tensor_t *s = tensor_full(0, NULL, 5, TENSOR_INT16, tensor_cpu());
    tensor_t *g = tensor_flatten(s, 0, -1);
    expect_geometry(g, 1, I64(1), NULL, 0);
    expect_values(g, I64(5), 1);
    tensor_t *all[] = {t, a, b, c, d, p, e, f, s, g};
    for (int i = 0; i < NELEM(all); i++) tensor_release(all[i]);
}

/* ---- is_contiguous ---- */

static void test_is_contiguous(void **state) {
    (void)state;
    float buf[64] = {0};
    /* Size-1 dims may have any stride (PyTorch ignores them). */
    tensor_t *a = tensor_from_blob(buf, 3, I64(2, 1, 3), I64(3, 77, 1), TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_true(tensor_is_contiguous(a));
    /* Empty tensors are contiguous whatever the strides. */
    tensor_t *b = tensor_from_blob(buf, 2, I64(0, 3), I64(1, 5), TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_true(tensor_is_contiguous(b));
    /* Gaps are not. */
    tensor_t *c = tensor_from_blob(buf, 2, I64(2, 3), I64(4, 1), TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_false(tensor_is_contiguous(c));
    tensor_t *d = tensor_from_blob(buf, 1, I64(3), I64(2), TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_false(tensor_is_contiguous(d));
    /* Stride 0 over size > 1 is not. */
    tensor_t *e = tensor_from_blob(buf, 1, I64(3), I64(0), TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_false(tensor_is_contiguous(e));
    tensor_t *f = tensor_from_blob(buf, 1, I64(1), I64(0), TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_true(tensor_is_contiguous(f));
    assert_false(tensor_is_contiguous(NULL));
    tensor_t *all[] = {a, b, c, d, e, f};
    for (int i = 0; i < NELEM(all); i++) tensor_release(all[i]);
}

/* ---- contiguous / clone / to_dtype / to_device ---- */

static void test_contiguous_clone(void **state) {
    (void)state;
    tensor_t *t = iota(2, I64(3, 4));
    tensor_t *c = tensor_contiguous(t);
    assert_ptr_equal(c, t); /* already contiguous: the same handle, retained */
    tensor_release(c);
    tensor_t *tt = tensor_transpose(t, 0, 1);
    tensor_t *ct = tensor_contiguous(tt);
    assert_ptr_not_equal(ct, tt);
    expect_geometry(ct, 2, I64(4, 3), I64(3, 1), 0);
    assert_false(tensor_shares_storage(ct, t));
    expect_values(ct, I64(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11), 12);

    tensor_t *k = tensor_clone(t);
    assert_ptr_not_equal(k, t);
    assert_false(tensor_shares_storage(k, t));
    expect_geometry(k, 2, I64(3, 4), I64(4, 1), 0);
    ((int64_t *)tensor_data(k))[0] = 100; /* independent */
    expect_values(t, I64(0, 1, 2), 3);
    expect_values(k, I64(100, 1, 2), 3);
    /* Clone of a strided narrow view: contiguous, offset 0. */
    tensor_t *n = tensor_narrow(tt, 1, 1, 2);
    tensor_t *kn = tensor_clone(n);
    expect_geometry(kn, 2, I64(4, 2), I64(2, 1), 0);
    expect_values(kn, I64(4, 8, 5, 9, 6, 10, 7, 11), 8);
    /* Clone of empty and 0-d. */
    tensor_t *e = tensor_empty(3, I64(2, 0, 3), TENSOR_FLOAT16, tensor_cpu());
    tensor_t *ke = tensor_clone(e);
    expect_geometry(ke, 3, I64(2, 0, 3), I64(3, 3, 1), 0);
    assert_int_equal(tensor_get_dtype(ke), TENSOR_FLOAT16);
    tensor_t *s = tensor_full(0, NULL, -3, TENSOR_INT8, tensor_cpu());
    tensor_t *ks = tensor_clone(s);
    assert_int_equal(tensor_ndim(ks), 0);
    expect_values(ks, I64(-3), 1);
    /* to_device(cpu) retains. */
    tensor_t *same = tensor_to_device(tt, tensor_cpu());
    assert_ptr_equal(same, tt);
    tensor_release(same);
    tensor_t *all[] = {t, tt, ct, k, n, kn, e, ke, s, ks};
    for (int i = 0; i < NELEM(all); i++) tensor_release(all[i]);
}

static void test_to_dtype(void **state) {
    (void)state;
    /* float -> int truncates toward zero (torch: tensor([-2.7, -0.5, 0.5, 2.7, -0.0]).int()). */
    double fv[] = {-2.7, -0.5, 0.5, 2.7, -0.0, 127.9, -128.9};
    tensor_t *f = tensor_from_buffer(fv, 1, I64(7), TENSOR_FLOAT64, tensor_cpu());
    tensor_dtype ints[] = {TENSOR_INT8, TENSOR_INT16, TENSOR_INT32, TENSOR_INT64};
    for (int k = 0; k < NELEM(ints); k++) {
        tensor_t *i = tensor_to_dtype(f, ints[k]);
        assert_int_equal(tensor_get_dtype(i), ints[k]);
        expect_values(i, I64(-2, 0, 0, 2, 0, 127, -128), 7);
        tensor_release(i);
    }
    /* float32 and float16 sources too. */
    tensor_t *f32 = tensor_to_dtype(f, TENSOR_FLOAT32);
    tensor_t *i32 = tensor_to_dtype(f32, TENSOR_INT32);
    expect_values(i32, I64(-2, 0, 0, 2, 0, 127, -128), 7);
    tensor_t *f16 = tensor_to_dtype(f, TENSOR_FLOAT16);
    tensor_t *i16 = tensor_to_dtype(f16, TENSOR_INT16);
    expect_values(i16, I64(-2, 0, 0, 2, 0, 127, -128), 7); /* f16(127.9) = 127.875, f16(-128.9) = -128.875 */
    /* int -> bool is != 0 (not a truncation to the low byte: 256 is True). */
    int64_t iv[] = {0, 1, -3, 256, INT64_MIN};
    tensor_t *it = tensor_from_buffer(iv, 1, I64(5), TENSOR_INT64, tensor_cpu());
    tensor_t *b = tensor_to_dtype(it, TENSOR_BOOL);
    uint8_t bv[5];
    assert_int_equal(tensor_to_buffer(b, bv, sizeof bv), TENSOR_OK);
    uint8_t bw[5] = {0, 1, 1, 1, 1};
    assert_memory_equal(bv, bw, 5);
    /* float -> bool: 0.0 and -0.0 are False, NaN and 0.1 True. */
    float fb[] = {0.0f, -0.0f, 0.1f, NAN, -INFINITY};
    tensor_t *ft = tensor_from_buffer(fb, 1, I64(5), TENSOR_FLOAT32, tensor_cpu());
    tensor_t *fbool = tensor_to_dtype(ft, TENSOR_BOOL);
    assert_int_equal(tensor_to_buffer(fbool, bv, sizeof bv), TENSOR_OK);
    uint8_t fbw[5] = {0, 0, 1, 1, 1};
    assert_memory_equal(bv, fbw, 5);
    /* bool -> float: 0., 1. */
    tensor_t *bf = tensor_to_dtype(b, TENSOR_FLOAT32);
    float bfv[5];
    assert_int_equal(tensor_to_buffer(bf, bfv, sizeof bfv), TENSOR_OK);
    float bfw[5] = {0, 1, 1, 1, 1};
    assert_memory_equal(bfv, bfw, sizeof bfv);
    /* bool -> int64: 0, 1 */
    tensor_t *bi = tensor_to_dtype(b, TENSOR_INT64);
    expect_values(bi, I64(0, 1, 1, 1, 1), 5);
    /* int -> int wraps (two's complement) and keeps int64 values above 2^53 exact. */
    int64_t big[] = {(1LL << 53) + 1, 300, -1, (1LL << 32) + 5};
    tensor_t *bt = tensor_from_buffer(big, 1, I64(4), TENSOR_INT64, tensor_cpu());
    tensor_t *u8 = tensor_to_dtype(bt, TENSOR_UINT8);
    expect_values(u8, I64(1, 44, 255, 5), 4);
    tensor_t *i32b = tensor_to_dtype(bt, TENSOR_INT32);
    expect_values(i32b, I64(1, 300, -1, 5), 4);
    tensor_t *same = tensor_to_dtype(bt, TENSOR_INT64);
    assert_ptr_equal(same, bt);
    tensor_release(same);
    /* int64 -> float64 rounds to nearest even: 2^53 + 1 -> 2^53. */
    tensor_t *bd = tensor_to_dtype(bt, TENSOR_FLOAT64);
    double bdv[4];
    assert_int_equal(tensor_to_buffer(bd, bdv, sizeof bdv), TENSOR_OK);
    assert_true(bdv[0] == 9007199254740992.0);
    /* A non-contiguous source converts in logical order. */
    tensor_t *m = iota(2, I64(2, 3));
    tensor_t *mt = tensor_transpose(m, 0, 1);
    tensor_t *mf = tensor_to_dtype(mt, TENSOR_FLOAT32);
    expect_geometry(mf, 2, I64(3, 2), I64(2, 1), 0);
    float mfv[6];
    assert_int_equal(tensor_to_buffer(mf, mfv, sizeof mfv), TENSOR_OK);
    float mfw[6] = {0, 3, 1, 4, 2, 5};
    assert_memory_equal(mfv, mfw, sizeof mfv);
    /* float32 -> float16 bits: 1.5 is 0x3E00. */
    tensor_t *h = tensor_full(1, I64(1), 1.5, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *hh = tensor_to_dtype(h, TENSOR_FLOAT16);
    uint16_t hb;
    assert_int_equal(tensor_to_buffer(hh, &hb, sizeof hb), TENSOR_OK);
    assert_int_equal(hb, 0x3E00);
    tensor_t *all[] = {f, f32, i32, f16, i16, it, b, ft, fbool, bf, bi, bt, u8, i32b, bd, m, mt, mf, h, hh};
    for (int i = 0; i < NELEM(all); i++) tensor_release(all[i]);
}

static const struct CMUnitTest view_tests[] = {
    cmocka_unit_test(test_permute),         cmocka_unit_test(test_transpose),
    cmocka_unit_test(test_narrow),          cmocka_unit_test(test_slice),
    cmocka_unit_test(test_select),          cmocka_unit_test(test_expand),
    cmocka_unit_test(test_view),            cmocka_unit_test(test_reshape),
    cmocka_unit_test(test_squeeze_unsqueeze), cmocka_unit_test(test_flatten),
    cmocka_unit_test(test_is_contiguous),   cmocka_unit_test(test_contiguous_clone),
    cmocka_unit_test(test_to_dtype),
};

TENSOR_TEST_GROUP(views, view_tests, NULL, NULL)

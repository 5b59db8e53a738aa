/* Helpers shared by tests/ops/test_reduce_*.c: inputs in every layout, references that
 * accumulate in long double (or exact int64) over the LOGICAL elements of the input (read back
 * with tensor_to_dtype + tensor_to_buffer), and comparisons.
 *
 * Everything is static inline so that a file may use any subset without -Wunused warnings. */
#ifndef TENSOR_REDUCE_TEST_UTIL_H
#define TENSOR_REDUCE_TEST_UTIL_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

#define RT_NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define RT_I64(...) ((const int64_t[]){__VA_ARGS__})
#define RT_INTS(...) ((const int[]){__VA_ARGS__})

/* The ten dtypes PyTorch reduces (float8 is tested on its own). */
static const tensor_dtype rt_dtypes[] = {TENSOR_BOOL,    TENSOR_UINT8,    TENSOR_INT8,    TENSOR_INT16,
                                         TENSOR_INT32,   TENSOR_INT64,    TENSOR_FLOAT16, TENSOR_BFLOAT16,
                                         TENSOR_FLOAT32, TENSOR_FLOAT64};
static const tensor_dtype rt_float_dtypes[] = {TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT32, TENSOR_FLOAT64};

static inline bool rt_is_float(tensor_dtype d) { return tensor_dtype_is_floating(d); }
static inline bool rt_is_intlike(tensor_dtype d) { return !tensor_dtype_is_floating(d); } /* ints and bool */

/* ---- RNG (splitmix64) ---- */
static inline uint64_t rt_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline int64_t rt_randint(uint64_t *s, int64_t lo, int64_t hi) { /* [lo, hi] */
    return lo + (int64_t)(rt_next(s) % (uint64_t)(hi - lo + 1));
}
static inline double rt_uniform(uint64_t *s) { return (double)(rt_next(s) >> 11) * (1.0 / 9007199254740992.0); }

/* ---- value kinds ---- */
typedef enum rt_kind {
    RT_SMALL = 0,   /* small integers (exact sums everywhere); bool 0/1 */
    RT_WIDE = 1,    /* floats: uniform [-2, 2) (rounded to the dtype); ints: wide range of the dtype */
    RT_SPECIAL = 2, /* floats: small ints mixed with NaN, +-inf, -0.0; ints: dtype min/max, 0, +-1 */
    RT_PROD = 3,    /* products that neither overflow float32 nor lose bits: {-2,-1,-0.5,0.5,1,2,0} */
    RT_PROD_WIDE = 4, /* floats: +-uniform [0.8, 1.25) (long products stay in range); ints: as RT_PROD */
    RT_NUM_KINDS
} rt_kind;
static const char *const rt_kind_names[] = {"small", "wide", "special", "prod", "prod_wide"};

static inline int64_t rt_int_min(tensor_dtype d) {
    switch (d) {
    case TENSOR_BOOL: return 0;
    case TENSOR_UINT8: return 0;
    case TENSOR_INT8: return INT8_MIN;
    case TENSOR_INT16: return INT16_MIN;
    case TENSOR_INT32: return INT32_MIN;
    default: return INT64_MIN;
    }
}
static inline int64_t rt_int_max(tensor_dtype d) {
    switch (d) {
    case TENSOR_BOOL: return 1;
    case TENSOR_UINT8: return UINT8_MAX;
    case TENSOR_INT8: return INT8_MAX;
    case TENSOR_INT16: return INT16_MAX;
    case TENSOR_INT32: return INT32_MAX;
    default: return INT64_MAX;
    }
}

/* Writes one generated element of `kind` at dst (dtype d). */
static inline void rt_gen_one(tensor_dtype d, rt_kind kind, uint64_t *s, void *dst) {
    if (d == TENSOR_BOOL) {
        /* mostly true, so that all() is not always false */
        int64_t v = kind == RT_SMALL ? (rt_randint(s, 0, 3) != 0) : rt_randint(s, 0, 1);
        tensor_dtype_store_int64(d, dst, v);
        return;
    }
    if (kind == RT_PROD_WIDE && rt_is_float(d)) {
        double m = 0.8 + rt_uniform(s) * 0.45;
        tensor_dtype_store_double(d, dst, rt_randint(s, 0, 1) ? m : -m);
        return;
    }
    if (kind == RT_PROD || kind == RT_PROD_WIDE) {
        static const double fv[] = {-2, -1, -0.5, 0.5, 1, 1, 1, 2, -1, 1, 0.5, 2, 0};
        static const int64_t iv[] = {-2, -1, 1, 1, 1, 2, -1, 1, 1, 2, 0, 1, 1};
        int k = (int)rt_randint(s, 0, 12);
        if (k == 12 && rt_randint(s, 0, 3) != 0) k = 4; /* zeros are rare */
        if (rt_is_float(d)) tensor_dtype_store_double(d, dst, fv[k]);
        else tensor_dtype_store_int64(d, dst, d == TENSOR_UINT8 ? (iv[k] < 0 ? -iv[k] : iv[k]) : iv[k]);
        return;
    }
    if (rt_is_float(d)) {
        double v;
        if (kind == RT_SMALL) {
            v = (double)rt_randint(s, -8, 8);
        } else if (kind == RT_WIDE) {
            v = rt_uniform(s) * 4.0 - 2.0;
        } else {
            int k = (int)rt_randint(s, 0, 19);
            if (k == 0) v = NAN;
            else if (k == 1) v = INFINITY;
            else if (k == 2) v = -INFINITY;
            else if (k == 3) v = -0.0;
            else v = (double)rt_randint(s, -8, 8);
        }
        tensor_dtype_store_double(d, dst, v);
        return;
    }
    int64_t v;
    if (kind == RT_SMALL) {
        v = d == TENSOR_UINT8 ? rt_randint(s, 0, 15) : rt_randint(s, -8, 8);
    } else if (kind == RT_WIDE) {
        int64_t lo = rt_int_min(d), hi = rt_int_max(d);
        if (d == TENSOR_INT32 || d == TENSOR_INT64) lo = -1000000, hi = 1000000;
        v = rt_randint(s, lo, hi);
    } else {
        int k = (int)rt_randint(s, 0, 5);
        v = k == 0 ? rt_int_min(d) : k == 1 ? rt_int_max(d) : k == 2 ? 0 : k == 3 ? 1 : k == 4 ? -1 : 7;
        if (d == TENSOR_UINT8 && v < 0) v = 200;
    }
    tensor_dtype_store_int64(d, dst, v);
}

/* A contiguous tensor of `kind` values. */
static inline tensor_t *rt_make_contig(int ndim, const int64_t *sizes, tensor_dtype d, rt_kind kind, uint64_t seed) {
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= sizes[i];
    size_t es = tensor_dtype_size(d);
    char *buf = malloc((size_t)(n ? n : 1) * es);
    assert_non_null(buf);
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) rt_gen_one(d, kind, &s, buf + (size_t)i * es);
    tensor_t *t = tensor_from_buffer(buf, ndim, sizes, d, tensor_cpu());
    free(buf);
    assert_non_null(t);
    return t;
}

/* ---- layouts: each yields a tensor with logical shape `sizes` ---- */
typedef enum rt_layout {
    RT_CONTIG = 0,
    RT_TRANSPOSED, /* reversed dims of a contiguous tensor (x.t() generalised); needs ndim >= 2 */
    RT_SLICED,     /* step-2 slices on the first and last dims, non-zero offset */
    RT_EXPANDED,   /* dim 1 (or dim 0 when 1-D) has stride 0 */
    RT_EXPANDED_INNER, /* the last dim has stride 0 */
    RT_NUM_LAYOUTS
} rt_layout;
static const char *const rt_layout_names[] = {"contig", "transposed", "sliced", "expanded", "expanded_inner"};

static inline bool rt_layout_applies(rt_layout l, int ndim) {
    if (l == RT_CONTIG) return true;
    if (ndim == 0) return false;
    if (l == RT_TRANSPOSED) return ndim >= 2;
    return true;
}

static inline tensor_t *rt_make(rt_layout layout, int ndim, const int64_t *sizes, tensor_dtype d, rt_kind kind,
                                uint64_t seed) {
    int64_t base[TENSOR_MAX_DIMS];
    for (int i = 0; i < ndim; i++) base[i] = sizes[i];
    tensor_t *b, *t;
    switch (layout) {
    case RT_TRANSPOSED: {
        int perm[TENSOR_MAX_DIMS];
        for (int i = 0; i < ndim; i++) base[i] = sizes[ndim - 1 - i], perm[i] = ndim - 1 - i;
        b = rt_make_contig(ndim, base, d, kind, seed);
        t = tensor_permute(b, perm);
        break;
    }
    case RT_SLICED: {
        base[0] = 2 * sizes[0] + 1;
        if (ndim > 1) base[ndim - 1] = 2 * sizes[ndim - 1] + 1;
        b = rt_make_contig(ndim, base, d, kind, seed);
        tensor_t *a = tensor_slice(b, 0, 1, base[0], 2);
        assert_non_null(a);
        if (ndim > 1) {
            t = tensor_slice(a, ndim - 1, 1, base[ndim - 1], 2);
            tensor_release(a);
        } else {
            t = a;
        }
        break;
    }
    case RT_EXPANDED:
    case RT_EXPANDED_INNER: {
        int e = layout == RT_EXPANDED_INNER ? ndim - 1 : (ndim > 1 ? 1 : 0);
        base[e] = 1;
        b = rt_make_contig(ndim, base, d, kind, seed);
        t = tensor_expand(b, ndim, sizes);
        break;
    }
    default:
        return rt_make_contig(ndim, sizes, d, kind, seed);
    }
    tensor_release(b);
    assert_non_null(t);
    assert_int_equal(tensor_ndim(t), ndim);
    for (int i = 0; i < ndim; i++) assert_int_equal(tensor_sizes(t)[i], sizes[i]);
    return t;
}

/* ---- reading tensors back ---- */

/* Raw bytes of t's logical elements. Caller frees. */
static inline void *rt_read_raw(const tensor_t *t) {
    size_t n = (size_t)tensor_numel(t) * tensor_dtype_size(tensor_get_dtype(t));
    void *v = malloc(n ? n : 1);
    assert_non_null(v);
    assert_int_equal(tensor_to_buffer(t, v, n), TENSOR_OK);
    return v;
}

/* Logical elements of t converted to dt (through tensor_to_dtype). Caller frees. */
static inline void *rt_read_as(const tensor_t *t, tensor_dtype dt) {
    tensor_t *c = tensor_to_dtype(t, dt);
    assert_non_null(c);
    void *v = rt_read_raw(c);
    tensor_release(c);
    return v;
}

/* Logical elements of t as doubles. Caller frees. */
static inline double *rt_read_f64(const tensor_t *t) { return rt_read_as(t, TENSOR_FLOAT64); }

/* Logical elements of t as int64. Caller frees. */
static inline int64_t *rt_read_i64(const tensor_t *t) { return rt_read_as(t, TENSOR_INT64); }

/* One value of a 1-element tensor. */
static inline double rt_item(const tensor_t *t) {
    assert_non_null(t);
    assert_int_equal(tensor_numel(t), 1);
    double *v = rt_read_f64(t);
    double r = v[0];
    free(v);
    return r;
}
static inline int64_t rt_item_i64(const tensor_t *t) {
    assert_non_null(t);
    assert_int_equal(tensor_numel(t), 1);
    int64_t *v = rt_read_i64(t);
    int64_t r = v[0];
    free(v);
    return r;
}

/* value rounded to dtype (tensor_dtype_store_double's rules: round to nearest even). */
static inline double rt_round_to(tensor_dtype d, double v) {
    unsigned char buf[16];
    tensor_dtype_store_double(d, buf, v);
    return tensor_dtype_load_double(d, buf);
}

/* 1-D / n-D tensors from literal values (stored with tensor_dtype_store_double). */
static inline tensor_t *rt_tensor(int ndim, const int64_t *sizes, tensor_dtype d, const double *vals) {
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= sizes[i];
    size_t es = tensor_dtype_size(d);
    char *buf = malloc((size_t)(n ? n : 1) * es);
    assert_non_null(buf);
    for (int64_t i = 0; i < n; i++) tensor_dtype_store_double(d, buf + (size_t)i * es, vals[i]);
    tensor_t *t = tensor_from_buffer(buf, ndim, sizes, d, tensor_cpu());
    free(buf);
    assert_non_null(t);
    return t;
}
static inline tensor_t *rt_vec(tensor_dtype d, int64_t n, const double *vals) { return rt_tensor(1, &n, d, vals); }
static inline tensor_t *rt_vec_i64(tensor_dtype d, int64_t n, const int64_t *vals) {
    size_t es = tensor_dtype_size(d);
    char *buf = malloc((size_t)(n ? n : 1) * es);
    assert_non_null(buf);
    for (int64_t i = 0; i < n; i++) tensor_dtype_store_int64(d, buf + (size_t)i * es, vals[i]);
    tensor_t *t = tensor_from_buffer(buf, 1, &n, d, tensor_cpu());
    free(buf);
    assert_non_null(t);
    return t;
}
#define RT_VEC(d, ...) rt_vec((d), RT_NELEM(((const double[]){__VA_ARGS__})), (const double[]){__VA_ARGS__})
#define RT_VEC_I64(d, ...) \
    rt_vec_i64((d), RT_NELEM(((const int64_t[]){__VA_ARGS__})), (const int64_t[]){__VA_ARGS__})

/* ---- shapes ---- */

/* The mask of reduced dims PyTorch's rules give (dims already valid). dims_null: dims == NULL.
 * all_if_empty: an empty list means all dims (false: none, as any/all). */
static inline void rt_mask(int ndim, const int *dims, int ndims, bool dims_null, bool all_if_empty, bool *mask) {
    for (int i = 0; i < TENSOR_MAX_DIMS; i++) mask[i] = false;
    if (dims_null || (ndims == 0 && all_if_empty)) {
        for (int i = 0; i < ndim; i++) mask[i] = true;
        return;
    }
    for (int k = 0; k < ndims; k++) {
        if (ndim == 0) continue;
        int d = dims[k] < 0 ? dims[k] + ndim : dims[k];
        mask[d] = true;
    }
}

/* Output shape for (sizes, mask, keepdim); returns its rank. */
static inline int rt_out_shape(int ndim, const int64_t *sizes, const bool *mask, bool keepdim, int64_t *out) {
    int r = 0;
    for (int i = 0; i < ndim; i++) {
        if (!mask[i]) out[r++] = sizes[i];
        else if (keepdim) out[r++] = 1;
    }
    return r;
}

/* True (and no assertion) when t has exactly this shape. */
static inline bool rt_shape_is(const tensor_t *t, int ndim, const int64_t *sizes) {
    if (t == NULL || tensor_ndim(t) != ndim) return false;
    for (int i = 0; i < ndim; i++)
        if (tensor_sizes(t)[i] != sizes[i]) return false;
    return true;
}
static inline void rt_assert_shape(const tensor_t *t, int ndim, const int64_t *sizes) {
    assert_non_null(t);
    if (!rt_shape_is(t, ndim, sizes)) {
        char g[128] = "", w[128] = "";
        size_t lg = 0, lw = 0;
        for (int i = 0; i < tensor_ndim(t); i++)
            lg += (size_t)snprintf(g + lg, sizeof g - lg, "%lld,", (long long)tensor_sizes(t)[i]);
        for (int i = 0; i < ndim; i++) lw += (size_t)snprintf(w + lw, sizeof w - lw, "%lld,", (long long)sizes[i]);
        fail_msg("shape [%s] (ndim %d), expected [%s] (ndim %d)", g, tensor_ndim(t), w, ndim);
    }
}
/* RT_ASSERT_SHAPE(t, 2, 3): at least one size; a 0-d result is rt_assert_shape(t, 0, NULL). */
#define RT_ASSERT_SHAPE(t, ...) \
    rt_assert_shape((t), RT_NELEM(((const int64_t[]){__VA_ARGS__})), (const int64_t[]){__VA_ARGS__})

/* Gathers, for each output element o (row-major over kept dims), the logical input indices
 * it reduces, in row-major order over the reduced dims: idx[o * N + r]. Returns idx (caller
 * frees) and writes out_numel and N. */
static inline int64_t *rt_gather(int ndim, const int64_t *sizes, const bool *mask, int64_t *out_numel, int64_t *N) {
    int64_t on = 1, rn = 1, numel = 1;
    for (int i = 0; i < ndim; i++) {
        numel *= sizes[i];
        if (mask[i]) rn *= sizes[i];
        else on *= sizes[i];
    }
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)(numel ? numel : 1));
    assert_non_null(idx);
    for (int64_t i = 0; i < numel; i++) {
        int64_t rem = i, o = 0, r = 0, om = 1, rm = 1;
        for (int d = ndim - 1; d >= 0; d--) {
            int64_t c = rem % sizes[d];
            rem /= sizes[d];
            if (mask[d]) r += c * rm, rm *= sizes[d];
            else o += c * om, om *= sizes[d];
        }
        idx[o * rn + r] = i;
    }
    *out_numel = on;
    *N = rn;
    return idx;
}

/* ---- comparisons ---- */

/* got equals want (NaN equals NaN; +-0 equal). */
static inline bool rt_same(double got, double want) {
    if (isnan(want)) return isnan(got);
    return got == want;
}

/* |got - want| <= tol, with NaN and infinities matched exactly. */
static inline bool rt_close(double got, double want, double tol) {
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    if (isnan(got) || isinf(got)) return false;
    return fabs(got - want) <= tol;
}

/* Relative tolerance for results computed in dtype d (the brief's: 1e-2 for 16-bit floats,
 * ~1e-5 for float32). */
static inline double rt_rtol(tensor_dtype d) {
    switch (d) {
    case TENSOR_FLOAT16:
    case TENSOR_BFLOAT16: return 1e-2;
    case TENSOR_FLOAT32: return 1e-5;
    case TENSOR_FLOAT64: return 1e-12;
    default: return 0;
    }
}

/* Bitwise equality of two tensors' logical contents (same shape and dtype). */
static inline bool rt_bitwise_equal(const tensor_t *a, const tensor_t *b) {
    if (tensor_get_dtype(a) != tensor_get_dtype(b) || tensor_ndim(a) != tensor_ndim(b)) return false;
    if (!rt_shape_is(b, tensor_ndim(a), tensor_sizes(a))) return false;
    size_t n = (size_t)tensor_numel(a) * tensor_dtype_size(tensor_get_dtype(a));
    void *x = rt_read_raw(a), *y = rt_read_raw(b);
    bool eq = memcmp(x, y, n) == 0;
    free(x);
    free(y);
    return eq;
}

/* The last error's message must name the function called in `call_text` (its first
 * identifier, e.g. "tensor_amax"; tensor_sum_dims reports as "tensor_sum"). */
static inline void rt_check_names_func(const char *call_text) {
    char name[64];
    size_t n = strcspn(call_text, "( ");
    if (n >= sizeof name) n = sizeof name - 1;
    memcpy(name, call_text, n);
    name[n] = 0;
    if (n > 5 && strcmp(name + n - 5, "_dims") == 0 && strcmp(name, "tensor_max_dim") != 0) name[n - 5] = 0;
    if (strstr(tensor_last_error(), name) == NULL)
        fail_msg("message \"%s\" does not name %s", tensor_last_error(), name);
}

/* Checks a failed call: NULL result, the status, a message substring, and that the message
 * names the function. */
#define RT_EXPECT_ERROR(call, status, needle)                                                    \
    do {                                                                                         \
        tensor_clear_error();                                                                    \
        tensor_t *rt_r_ = (call);                                                                \
        if (rt_r_ != NULL) {                                                                     \
            tensor_release(rt_r_);                                                               \
            fail_msg("%s succeeded, expected %s", #call, tensor_status_name(status));           \
        }                                                                                        \
        assert_error((status), (needle));                                                        \
        rt_check_names_func(#call);                                                              \
    } while (0)

/* The same for calls that return a status. */
#define RT_EXPECT_STATUS(call, status, needle)                                                   \
    do {                                                                                         \
        tensor_clear_error();                                                                    \
        tensor_status rt_s_ = (call);                                                            \
        assert_int_equal(rt_s_, (status));                                                       \
        assert_error((status), (needle));                                                        \
        rt_check_names_func(#call);                                                              \
    } while (0)

#endif

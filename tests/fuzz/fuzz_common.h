/* Shared by the libFuzzer targets: a reader that turns the input into bounded choices, and the
 * reference rules the targets compare the library with. The rules are written here from
 * PyTorch's documented behaviour (torch.promote_types' lattice, torch.result_type's treatment
 * of 0-d tensors and Python scalars, broadcasting), on purpose without calling the library's
 * own tables, so that a slip in those shows up as a difference. */
#ifndef TENSOR_FUZZ_COMMON_H
#define TENSOR_FUZZ_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tinytensor.h"

/* ---- input reader: past the end every read is 0, so short inputs stay meaningful ---- */

typedef struct fz_reader {
    const uint8_t *p;
    size_t n;
} fz_reader;

static inline unsigned fz_byte(fz_reader *r) {
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

/* A value in [0, n). */
static inline unsigned fz_below(fz_reader *r, unsigned n) { return n <= 1 ? 0 : fz_byte(r) % n; }

static inline uint64_t fz_u64(fz_reader *r) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | fz_byte(r);
    return v;
}

/* A target may set this to print what it was doing before a finding aborts. */
static void (*fz_dump)(void);

/* Aborts with a message: libFuzzer records the input that got here. */
__attribute__((format(printf, 1, 2), noreturn)) static inline void fz_fail(const char *fmt, ...) {
    if (fz_dump != NULL) fz_dump();
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz finding: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n  last error: %s (%s)\n", tensor_last_error(), tensor_status_name(tensor_last_status()));
    abort();
}

/* A failed call must leave a status and a message that names a function of the library. */
static inline void fz_check_error_reported(const char *what) {
    const tensor_status st = tensor_last_status();
    const char *msg = tensor_last_error();
    if (st == TENSOR_OK || st >= TENSOR_STATUS_COUNT) fz_fail("%s failed with status %d", what, (int)st);
    if (msg == NULL || memchr(msg, '\0', 512) == NULL) fz_fail("%s: the message is not NUL-terminated", what);
    if (strncmp(msg, "tensor_", 7) != 0 && strstr(msg, ": ") == NULL)
        fz_fail("%s: the message \"%s\" names no function", what, msg);
}

/* ---- dtypes ---- */

#define FZ_NUM_DTYPES 12
static const tensor_dtype fz_dtypes[FZ_NUM_DTYPES] = {
    TENSOR_BOOL,    TENSOR_UINT8,   TENSOR_INT8,    TENSOR_INT16,         TENSOR_INT32,       TENSOR_INT64,
    TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2};

#define FZ_UNDEFINED ((tensor_dtype)-2)

static inline bool fz_is_float(tensor_dtype d) {
    return d == TENSOR_FLOAT16 || d == TENSOR_BFLOAT16 || d == TENSOR_FLOAT32 || d == TENSOR_FLOAT64 ||
           d == TENSOR_FLOAT8_E4M3FN || d == TENSOR_FLOAT8_E5M2;
}
static inline bool fz_is_float8(tensor_dtype d) { return d == TENSOR_FLOAT8_E4M3FN || d == TENSOR_FLOAT8_E5M2; }
static inline int fz_category(tensor_dtype d) { return d == TENSOR_BOOL ? 0 : fz_is_float(d) ? 2 : 1; }
static inline size_t fz_size(tensor_dtype d) {
    switch (d) {
    case TENSOR_INT16: case TENSOR_FLOAT16: case TENSOR_BFLOAT16: return 2;
    case TENSOR_INT32: case TENSOR_FLOAT32: return 4;
    case TENSOR_INT64: case TENSOR_FLOAT64: return 8;
    default: return 1;
    }
}

/* torch.promote_types for the ten non-float8 dtypes, as PyTorch's table prints it (rows and
 * columns: bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64). */
static inline tensor_dtype fz_lattice(tensor_dtype a, tensor_dtype b) {
    enum { b1 = TENSOR_BOOL, u8 = TENSOR_UINT8, i8 = TENSOR_INT8, i16 = TENSOR_INT16, i32 = TENSOR_INT32,
           i64 = TENSOR_INT64, f16 = TENSOR_FLOAT16, bf = TENSOR_BFLOAT16, f32 = TENSOR_FLOAT32, f64 = TENSOR_FLOAT64 };
    static const unsigned char table[10][10] = {
        /* b1 */ {b1, u8, i8, i16, i32, i64, f16, bf, f32, f64},
        /* u8 */ {u8, u8, i16, i16, i32, i64, f16, bf, f32, f64},
        /* i8 */ {i8, i16, i8, i16, i32, i64, f16, bf, f32, f64},
        /* i16 */ {i16, i16, i16, i16, i32, i64, f16, bf, f32, f64},
        /* i32 */ {i32, i32, i32, i32, i32, i64, f16, bf, f32, f64},
        /* i64 */ {i64, i64, i64, i64, i64, i64, f16, bf, f32, f64},
        /* f16 */ {f16, f16, f16, f16, f16, f16, f16, f32, f32, f64},
        /* bf */ {bf, bf, bf, bf, bf, bf, f32, bf, f32, f64},
        /* f32 */ {f32, f32, f32, f32, f32, f32, f32, f32, f32, f64},
        /* f64 */ {f64, f64, f64, f64, f64, f64, f64, f64, f64, f64},
    };
    return (tensor_dtype)table[a][b];
}

/* promote_types; float8 only with itself (PyTorch refuses any other pair). FZ_UNDEFINED on
 * either side gives the other; *err is set on a refused pair. */
static inline tensor_dtype fz_promote(tensor_dtype a, tensor_dtype b, bool *err) {
    if (a == FZ_UNDEFINED) return b;
    if (b == FZ_UNDEFINED) return a;
    if (fz_is_float8(a) || fz_is_float8(b)) {
        if (a != b) *err = true;
        return a;
    }
    return fz_lattice(a, b);
}

/* c10's combine_categories: the higher-priority group's dtype unless the lower one brings a
 * higher category (then the two promote). */
static inline tensor_dtype fz_combine(tensor_dtype higher, tensor_dtype lower, bool *err) {
    if (higher != FZ_UNDEFINED && fz_is_float(higher)) return higher;
    if (higher == TENSOR_BOOL || (lower != FZ_UNDEFINED && fz_is_float(lower))) return fz_promote(higher, lower, err);
    return higher != FZ_UNDEFINED ? higher : lower;
}

/* One operand of torch.result_type. */
typedef enum fz_kind { FZ_DIMENSIONED = 0, FZ_ZERO_DIM = 1, FZ_SCALAR = 2 } fz_kind;
typedef struct fz_operand_type {
    fz_kind kind;
    tensor_dtype dtype; /* for scalars: bool, int64 (a Python int) or float64 (a Python float) */
} fz_operand_type;

/* torch.result_type: dimensioned tensors promote among themselves, so do 0-d tensors, and so
 * do Python scalars (a float stands for the default dtype float32); then the three results
 * combine by category. Returns FZ_UNDEFINED with *err set when PyTorch raises. */
static inline tensor_dtype fz_result_type(const fz_operand_type *ops, int n, bool *err) {
    tensor_dtype dim = FZ_UNDEFINED, zero = FZ_UNDEFINED, wrapped = FZ_UNDEFINED;
    bool e = false;
    for (int i = 0; i < n; i++) {
        tensor_dtype d = ops[i].dtype;
        if (ops[i].kind == FZ_SCALAR) {
            if (d == TENSOR_FLOAT64) d = TENSOR_FLOAT32;
            wrapped = fz_promote(wrapped, d, &e);
        } else if (ops[i].kind == FZ_ZERO_DIM) {
            zero = fz_promote(zero, d, &e);
        } else {
            dim = fz_promote(dim, d, &e);
        }
    }
    tensor_dtype r = fz_combine(dim, fz_combine(zero, wrapped, &e), &e);
    if (e) {
        *err = true;
        return FZ_UNDEFINED;
    }
    return r;
}

/* ---- broadcasting ---- */

/* Right-aligned broadcast of (na, a) and (nb, b) into out; false when a dim mismatches. */
static inline bool fz_broadcast(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out) {
    const int n = na > nb ? na : nb;
    int64_t r[TENSOR_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        const int ia = i - (n - na), ib = i - (n - nb);
        const int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1) return false;
        r[i] = sa == 1 ? sb : sa;
    }
    *nout = n;
    memcpy(out, r, sizeof(int64_t) * (size_t)n);
    return true;
}

static inline int64_t fz_numel(int n, const int64_t *sizes) {
    int64_t p = 1;
    for (int i = 0; i < n; i++) p *= sizes[i];
    return p;
}

/* The next row-major multi-index; false after the last. */
static inline bool fz_next_index(int n, const int64_t *sizes, int64_t *idx) {
    for (int d = n - 1; d >= 0; d--) {
        if (++idx[d] < sizes[d]) return true;
        idx[d] = 0;
    }
    return false;
}

/* Element offset of a broadcast operand (n dims, right-aligned in an nshape-dim index). */
static inline int64_t fz_bcast_offset(int nshape, const int64_t *idx, int n, const int64_t *sizes,
                                      const int64_t *strides) {
    int64_t off = 0;
    for (int d = 0; d < n; d++) {
        const int64_t i = idx[d + nshape - n];
        if (sizes[d] != 1) off += i * strides[d];
    }
    return off;
}

/* ---- value sets ---- */

/* An integer stored in dtype d (integer or bool) and read back: wrapped to d's width, or
 * d's truth. Kept in integers: a value past 2^53 would be rounded on its way through a double.
 * int64 is returned as the nearest double, as a conversion of the result to float64 gives it. */
static inline double fz_wrap_int(tensor_dtype d, int64_t v) {
    switch (d) {
    case TENSOR_BOOL: return v != 0;
    case TENSOR_UINT8: return (double)(uint8_t)v;
    case TENSOR_INT8: return (double)(int8_t)v;
    case TENSOR_INT16: return (double)(int16_t)v;
    case TENSOR_INT32: return (double)(int32_t)v;
    default: return (double)v;
    }
}

/* v (an integer value or any float) stored in dtype d and read back: d's value set (integers
 * wrap to their width, floats round as the library's conversion does). */
static inline double fz_through(tensor_dtype d, double v) {
    if (!fz_is_float(d)) return fz_wrap_int(d, (int64_t)v);
    unsigned char b[8];
    tensor_dtype_store_double(d, b, v);
    return tensor_dtype_load_double(d, b);
}

/* ---- operands: strided views of buffers of their own ---- */

/* A view and the buffer under it. */
typedef struct fz_view {
    int nd;
    int64_t sizes[4], strides[4];
    unsigned char *buf;
    const unsigned char *base; /* the view's first element */
    tensor_t *t;
} fz_view;

/* A dim's size: mostly small, sometimes rows past the CPU's vector loops' blocks. */
static inline int64_t fz_dim_size(fz_reader *r) {
    static const int64_t table[16] = {0, 1, 2, 3, 4, 5, 1, 2, 7, 8, 9, 16, 17, 33, 100, 257};
    return table[fz_below(r, 16)];
}

/* A CPU view of rank nd, right-aligned in the shape `full` of rank nfull (at most 4): each dim
 * the full size, 1, or (rarely) another size, so that operands broadcast or not; strides 0 to
 * 12 elements, or contiguous; an element offset of 0 to 6 (rows that start misaligned); at most
 * 4 * max_numel elements. Values are integers in [-vmax, vmax] (uint8 [0, vmax], bool 0 or 1)
 * from the input. False when the buffer cannot be allocated. */
static inline bool fz_view_make(fz_reader *r, fz_view *x, int nfull, const int64_t *full, tensor_dtype dt, unsigned vmax,
                                int64_t max_numel) {
    x->nd = fz_below(r, 4) != 0 ? nfull : nfull - (int)fz_below(r, (unsigned)nfull + 1); /* mostly the full rank */
    const bool contiguous = fz_below(r, 3) == 0;
    for (int d = 0; d < x->nd; d++) {
        const unsigned pick = fz_below(r, 16);
        x->sizes[d] = pick < 11 ? full[d + nfull - x->nd] : pick < 15 ? 1 : fz_dim_size(r);
    }
    while (fz_numel(x->nd, x->sizes) > 4 * max_numel) /* its own buffer stays small */
        for (int d = 0; d < x->nd; d++) x->sizes[d] = x->sizes[d] > 1 ? x->sizes[d] / 2 : x->sizes[d];
    int64_t st = 1;
    for (int d = x->nd - 1; d >= 0; d--) {
        x->strides[d] = contiguous ? st : (int64_t)fz_below(r, 13);
        st *= x->sizes[d] > 0 ? x->sizes[d] : 1;
    }
    const int64_t offset = fz_below(r, 7);
    int64_t extent = 0;
    for (int d = 0; d < x->nd; d++) {
        if (x->sizes[d] == 0) extent = -1;
        if (extent >= 0 && x->sizes[d] > 0) extent += (x->sizes[d] - 1) * x->strides[d];
    }
    const size_t es = tensor_dtype_size(dt), nbuf = (size_t)(offset + (extent > 0 ? extent : 0) + 1);
    x->buf = calloc(nbuf, es);
    if (x->buf == NULL) return false;
    for (size_t i = 0; i < nbuf; i++) {
        const unsigned v = fz_byte(r);
        const double d = dt == TENSOR_BOOL    ? (double)(v & 1)
                         : dt == TENSOR_UINT8 ? (double)(v % (vmax + 1))
                                              : (double)((int)(v % (2 * vmax + 1)) - (int)vmax);
        tensor_dtype_store_double(dt, x->buf + i * es, d);
    }
    x->base = x->buf + (size_t)offset * es;
    x->t = tensor_from_blob((void *)x->base, x->nd, x->sizes, x->strides, dt, tensor_cpu(), NULL, NULL);
    if (x->t == NULL) fz_fail("tensor_from_blob refused a valid view");
    return true;
}

static inline void fz_view_free(fz_view *x) {
    tensor_release(x->t);
    free(x->buf);
}

#endif

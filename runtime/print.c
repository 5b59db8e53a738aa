/* tensor_format / tensor_print: PyTorch's repr(t), character for character, with its default
 * print options (precision 4, threshold 1000, edgeitems 3, linewidth 80, sci_mode None).
 *
 * This is a port of torch/_tensor_str.py (_Formatter, _vector_str, _tensor_str_with_formatter,
 * get_summarized_data, _str_intern and _add_suffixes) for plain strided real tensors:
 *  - The formatter looks only at the elements that are shown (get_summarized_data): when
 *    numel > threshold, every dim longer than 2 * edgeitems shows its first and last edgeitems.
 *  - Floating tensors: the nonzero finite shown values decide the mode. int_mode (all are
 *    integers) prints "1." with a trailing dot; sci_mode (max/min > 1000, max > 1e8 or
 *    min < 1e-4, on absolute values) prints "{:.4e}"; otherwise "{:.4f}". nan and +-inf print
 *    as "nan", "inf", "-inf" (a negative NaN too prints "nan", as Python does). Every element is
 *    right-aligned to the widest nonzero finite one (non-finite and zero values may be wider
 *    and are then not padded, exactly as in PyTorch).
 *  - Float16, bfloat16 and float8 values are formatted from their exact value as a double,
 *    as PyTorch does through .item() / .tolist().
 *  - Integer tensors print as integers, bool as True / False.
 *  - Suffixes, in PyTorch's order: device='cuda:N' for CUDA tensors; for an empty tensor
 *    size=(...) unless it is 1-D and dtype=... unless float32; otherwise dtype=... unless the
 *    dtype is float32, int64 or bool. A suffix that would pass linewidth goes on a new line.
 * CUDA tensors are copied to the host (tensor_to_buffer) first. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/alloc.h"
#include "runtime/error.h"
#include "runtime/tensor_impl.h"

/* PyTorch's default print options. */
#define PRINT_PRECISION 4
#define PRINT_THRESHOLD 1000
#define PRINT_EDGEITEMS 3
#define PRINT_LINEWIDTH 80

/* ---- a growable string ---- */

typedef struct sbuf {
    char *data;
    size_t len;
    size_t cap;
    bool oom;
} sbuf;

static void sb_reserve(sbuf *s, size_t extra) {
    if (s->oom) return;
    size_t need = s->len + extra + 1;
    if (need <= s->cap) return;
    size_t cap = s->cap ? s->cap : 256;
    while (cap < need) cap *= 2;
    char *p = tt_realloc(s->data, cap);
    if (!p) {
        s->oom = true;
        return;
    }
    s->data = p;
    s->cap = cap;
}

static void sb_append(sbuf *s, const char *str, size_t n) {
    sb_reserve(s, n);
    if (s->oom) return;
    memcpy(s->data + s->len, str, n);
    s->len += n;
    s->data[s->len] = '\0';
}

static void sb_puts(sbuf *s, const char *str) { sb_append(s, str, strlen(str)); }

static void sb_spaces(sbuf *s, size_t n) {
    sb_reserve(s, n);
    if (s->oom) return;
    memset(s->data + s->len, ' ', n);
    s->len += n;
    s->data[s->len] = '\0';
}

static void sb_newlines(sbuf *s, size_t n) {
    for (size_t i = 0; i < n; i++) sb_append(s, "\n", 1);
}

/* ---- element access ---- */

/* Where the elements are read from: host memory with element strides. */
typedef struct source {
    const char *base; /* element [0, ..., 0] */
    tensor_dtype dtype;
    size_t elsize;
    int ndim;
    const int64_t *sizes;
    int64_t strides[TENSOR_MAX_DIMS];
} source;

typedef enum value_kind { KIND_FLOAT, KIND_INT, KIND_BOOL } value_kind;

static const char *elem_ptr(const source *src, const int64_t *index) {
    int64_t off = 0;
    for (int d = 0; d < src->ndim; d++) off += index[d] * src->strides[d];
    return src->base + off * (int64_t)src->elsize;
}

/* ---- the formatter (torch._tensor_str._Formatter) ---- */

typedef struct formatter {
    value_kind kind;
    bool int_mode;
    bool sci_mode;
    int max_width;
    /* statistics gathered over the shown nonzero finite values (floating only) */
    bool any;
    double abs_min;
    double abs_max;
} formatter;

/* Python's "{:.4f}" / "{:.4e}" / "{:.0f}" of a finite double; nan and inf by hand so that the
 * sign of a NaN never shows (Python prints "nan" for both). Returns the length written. */
static int format_float(const formatter *f, double v, char *out, size_t size) {
    if (isnan(v)) return snprintf(out, size, "nan");
    if (isinf(v)) return snprintf(out, size, v < 0 ? "-inf" : "inf");
    if (f->sci_mode) return snprintf(out, size, "%.*e", PRINT_PRECISION, v);
    if (f->int_mode) return snprintf(out, size, "%.0f.", v);
    return snprintf(out, size, "%.*f", PRINT_PRECISION, v);
}

/* An element's text, not yet padded. out has room for any double in %f (< 400 chars). */
#define ELEM_BUF 512

static int format_elem(const formatter *f, const source *src, const char *p, char *out) {
    switch (f->kind) {
    case KIND_BOOL:
        return snprintf(out, ELEM_BUF, "%s", tensor_dtype_load_double(src->dtype, p) != 0.0 ? "True" : "False");
    case KIND_INT:
        return snprintf(out, ELEM_BUF, "%" PRId64, tensor_dtype_load_int64(src->dtype, p));
    case KIND_FLOAT:
    default:
        return format_float(f, tensor_dtype_load_double(src->dtype, p), out, ELEM_BUF);
    }
}

/* Visits every shown element (all of them, or the summarized ones) in row-major order. */
typedef void (*visit_fn)(formatter *f, const source *src, const char *p);

static void visit_shown(formatter *f, const source *src, bool summarize, int dim, int64_t *index, visit_fn fn) {
    if (dim == src->ndim) {
        fn(f, src, elem_ptr(src, index));
        return;
    }
    int64_t n = src->sizes[dim];
    bool cut = summarize && n > 2 * PRINT_EDGEITEMS;
    for (int64_t i = 0; i < n; i++) {
        if (cut && i == PRINT_EDGEITEMS) i = n - PRINT_EDGEITEMS;
        index[dim] = i;
        visit_shown(f, src, summarize, dim + 1, index, fn);
    }
}

static void gather_stats(formatter *f, const source *src, const char *p) {
    double v = tensor_dtype_load_double(src->dtype, p);
    if (!isfinite(v) || v == 0.0) return;
    double a = fabs(v);
    if (!f->any) {
        f->any = true;
        f->abs_min = f->abs_max = a;
    } else {
        if (a < f->abs_min) f->abs_min = a;
        if (a > f->abs_max) f->abs_max = a;
    }
    if (v != ceil(v)) f->int_mode = false;
}

static void gather_width(formatter *f, const source *src, const char *p) {
    char text[ELEM_BUF];
    int len;
    if (f->kind == KIND_FLOAT) {
        double v = tensor_dtype_load_double(src->dtype, p);
        if (!isfinite(v) || v == 0.0) return; /* only nonzero finite values set the width */
        len = format_float(f, v, text, sizeof text);
    } else {
        len = format_elem(f, src, p, text);
    }
    if (len > f->max_width) f->max_width = len;
}

static void formatter_init(formatter *f, const source *src, bool summarize) {
    int64_t index[TENSOR_MAX_DIMS] = {0};
    memset(f, 0, sizeof *f);
    f->kind = tensor_dtype_is_floating(src->dtype) ? KIND_FLOAT
              : src->dtype == TENSOR_BOOL           ? KIND_BOOL
                                                    : KIND_INT;
    f->int_mode = true;
    f->sci_mode = false;
    f->max_width = 1;
    if (f->kind == KIND_FLOAT) {
        visit_shown(f, src, summarize, 0, index, gather_stats);
        if (!f->any) {
            f->int_mode = true; /* no valid number: PyTorch keeps its defaults */
            return;
        }
        f->sci_mode = f->abs_max / f->abs_min > 1000.0 || f->abs_max > 1.0e8 || f->abs_min < 1.0e-4;
    }
    visit_shown(f, src, summarize, 0, index, gather_width);
}

static void emit_elem(sbuf *s, const formatter *f, const source *src, const int64_t *index) {
    char text[ELEM_BUF];
    int len = format_elem(f, src, elem_ptr(src, index), text);
    if (len < 0) len = 0;
    if (len >= ELEM_BUF) len = ELEM_BUF - 1;
    if (len < f->max_width) sb_spaces(s, (size_t)(f->max_width - len));
    sb_append(s, text, (size_t)len);
}

/* _vector_str: the last dim, wrapped at linewidth. */
static void emit_vector(sbuf *s, const formatter *f, const source *src, bool summarize, int64_t *index, int indent) {
    int dim = src->ndim - 1;
    int64_t n = src->sizes[dim];
    int element_length = f->max_width + 2;
    int per_line = (PRINT_LINEWIDTH - indent) / element_length;
    if (PRINT_LINEWIDTH - indent < 0 || per_line < 1) per_line = 1;
    bool cut = summarize && n > 2 * PRINT_EDGEITEMS;
    int64_t count = cut ? 2 * PRINT_EDGEITEMS + 1 : n; /* " ..." is an item of its own */

    sb_puts(s, "[");
    int64_t item = 0;
    for (int64_t i = 0; i < n; i++) {
        if (cut && i == PRINT_EDGEITEMS) {
            sb_puts(s, " ...");
            item++;
            sb_puts(s, item % per_line == 0 ? ",\n" : ", ");
            if (item % per_line == 0) sb_spaces(s, (size_t)indent + 1);
            i = n - PRINT_EDGEITEMS;
        }
        index[dim] = i;
        emit_elem(s, f, src, index);
        item++;
        if (item < count) {
            if (item % per_line == 0) {
                sb_puts(s, ",\n");
                sb_spaces(s, (size_t)indent + 1);
            } else {
                sb_puts(s, ", ");
            }
        }
    }
    sb_puts(s, "]");
}

/* _tensor_str_with_formatter for ndim >= 1, from dim `dim` on. */
static void emit_nested(sbuf *s, const formatter *f, const source *src, bool summarize, int dim, int64_t *index,
                        int indent) {
    if (dim == src->ndim - 1) {
        emit_vector(s, f, src, summarize, index, indent);
        return;
    }
    int64_t n = src->sizes[dim];
    int rest = src->ndim - dim; /* the sub-tensor's dim() */
    bool cut = summarize && n > 2 * PRINT_EDGEITEMS;
    sb_puts(s, "[");
    for (int64_t i = 0; i < n; i++) {
        if (i > 0) {
            sb_puts(s, ",");
            sb_newlines(s, (size_t)(rest - 1));
            sb_spaces(s, (size_t)indent + 1);
        }
        if (cut && i == PRINT_EDGEITEMS) {
            sb_puts(s, "...,");
            sb_newlines(s, (size_t)(rest - 1));
            sb_spaces(s, (size_t)indent + 1);
            i = n - PRINT_EDGEITEMS;
        }
        index[dim] = i;
        emit_nested(s, f, src, summarize, dim + 1, index, indent + 1);
    }
    sb_puts(s, "]");
}

/* _add_suffixes, with its own measure of the last line (len - rfind("\n") + 1). */
static void add_suffix(sbuf *s, int64_t *last_line_len, const char *suffix, int indent) {
    int64_t suffix_len = (int64_t)strlen(suffix);
    if (*last_line_len + suffix_len + 2 > PRINT_LINEWIDTH) {
        sb_puts(s, ",\n");
        sb_spaces(s, (size_t)indent);
        sb_puts(s, suffix);
        *last_line_len = indent + suffix_len;
    } else {
        sb_puts(s, ", ");
        sb_puts(s, suffix);
        *last_line_len += suffix_len + 2;
    }
}

/* The whole repr into s. Returns TENSOR_OK or an error recorded under func. */
static tensor_status format_into(const tensor_t *t, sbuf *s, const char *func) {
    static const char prefix[] = "tensor(";
    const int indent = (int)(sizeof prefix - 1);
    tensor_dtype dtype = t->dtype;
    if (!tensor_dtype_is_valid(dtype))
        return tensor_error(TENSOR_ERR_DTYPE, "%s: the tensor has an invalid dtype (%d)", func, (int)dtype);
    tensor_device device = t->storage->device;
    int64_t numel = 1;
    for (int d = 0; d < t->ndim; d++) numel *= t->sizes[d];

    /* device, size, dtype: at most three suffixes; size=(...) needs up to 21 chars a dim */
    char suffixes[3][32 * TENSOR_MAX_DIMS];
    int nsuffix = 0;
    if (device.type != TENSOR_DEVICE_CPU) {
        char dev[48];
        tensor_device_format(device, dev, sizeof dev);
        snprintf(suffixes[nsuffix++], sizeof suffixes[0], "device='%s'", dev);
    }

    sb_puts(s, prefix);
    if (numel == 0) {
        sb_puts(s, "[]");
        if (t->ndim != 1) {
            /* str(tuple(shape)): "(0, 3)" (1-D, whose tuple would read "(0,)", shows no size) */
            char *shape = suffixes[nsuffix++];
            size_t cap = sizeof suffixes[0], pos = 0;
            pos += (size_t)snprintf(shape + pos, cap - pos, "size=(");
            for (int d = 0; d < t->ndim && pos < cap; d++)
                pos += (size_t)snprintf(shape + pos, cap - pos, d ? ", %" PRId64 : "%" PRId64, t->sizes[d]);
            if (pos < cap) snprintf(shape + pos, cap - pos, ")");
        }
        if (dtype != TENSOR_FLOAT32)
            snprintf(suffixes[nsuffix++], sizeof suffixes[0], "dtype=torch.%s", tensor_dtype_name(dtype));
    } else {
        if (dtype != TENSOR_FLOAT32 && dtype != TENSOR_INT64 && dtype != TENSOR_BOOL)
            snprintf(suffixes[nsuffix++], sizeof suffixes[0], "dtype=torch.%s", tensor_dtype_name(dtype));

        source src;
        memset(&src, 0, sizeof src);
        src.dtype = dtype;
        src.elsize = tensor_dtype_size(dtype);
        src.ndim = t->ndim;
        src.sizes = t->sizes;
        void *host = NULL;
        if (device.type == TENSOR_DEVICE_CPU) {
            src.base = (const char *)t->storage->data + t->offset * (int64_t)src.elsize;
            for (int d = 0; d < t->ndim; d++) src.strides[d] = t->strides[d];
        } else {
            size_t bytes = (size_t)numel * src.elsize;
            host = tt_malloc(bytes);
            if (!host) return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory (%zu bytes)", func, bytes);
            tensor_status st = tensor_to_buffer(t, host, bytes);
            if (st != TENSOR_OK) {
                free(host);
                return st; /* tensor_to_buffer recorded why */
            }
            src.base = host;
            tensor_contiguous_strides(t->ndim, t->sizes, src.strides);
        }

        bool summarize = numel > PRINT_THRESHOLD;
        formatter f;
        formatter_init(&f, &src, summarize);
        int64_t index[TENSOR_MAX_DIMS] = {0};
        if (t->ndim == 0)
            emit_elem(s, &f, &src, index);
        else
            emit_nested(s, &f, &src, summarize, 0, index, indent);
        free(host);
    }

    if (s->oom) return TENSOR_ERR_OUT_OF_MEMORY;
    const char *nl = strrchr(s->data, '\n');
    int64_t last = (int64_t)s->len - (nl ? (int64_t)(nl - s->data) : -1) + 1;
    for (int i = 0; i < nsuffix; i++) add_suffix(s, &last, suffixes[i], indent);
    sb_puts(s, ")");
    return TENSOR_OK;
}

/* The repr in a malloc'd string (*out, *len), or an error recorded under func. */
static tensor_status format_alloc(const tensor_t *t, char **out, size_t *len, const char *func) {
    sbuf s = {0};
    tensor_status st = format_into(t, &s, func);
    if (st == TENSOR_OK && s.oom) st = TENSOR_ERR_OUT_OF_MEMORY;
    if (st != TENSOR_OK) {
        free(s.data);
        if (st == TENSOR_ERR_OUT_OF_MEMORY && s.oom)
            return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory building the text", func);
        return st;
    }
    *out = s.data;
    *len = s.len;
    return TENSOR_OK;
}

int64_t tensor_format(const tensor_t *t, char *buf, size_t size) {
    static const char *func = "tensor_format";
    if (t == NULL) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 't' is NULL", func);
        return -1;
    }
    if (buf == NULL && size > 0) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'buf' is NULL but size is %zu", func, size);
        return -1;
    }
    char *text = NULL;
    size_t len = 0;
    if (format_alloc(t, &text, &len, func) != TENSOR_OK) return -1;
    if (size > 0) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(buf, text, n);
        buf[n] = '\0';
    }
    free(text);
    return (int64_t)len;
}

tensor_status tensor_print(const tensor_t *t, FILE *stream) {
    static const char *func = "tensor_print";
    TENSOR_CHECK_NOT_NULL(t, func, "t");
    TENSOR_CHECK_NOT_NULL(stream, func, "stream");
    char *text = NULL;
    size_t len = 0;
    tensor_status st = format_alloc(t, &text, &len, func);
    if (st != TENSOR_OK) return st;
    size_t written = fwrite(text, 1, len, stream);
    free(text);
    if (written != len || fputc('\n', stream) == EOF)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: writing to the stream failed", func);
    return TENSOR_OK;
}

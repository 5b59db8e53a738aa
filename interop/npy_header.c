/* The .npy header: preamble, the dict literal numpy writes, and the descr strings of the dtypes
 * we share with numpy. The parser accepts what Python's literal_eval would accept for the three
 * values numpy writes (either quote, any spacing, keys in any order, a trailing comma, Python
 * 2's "3L"), and nothing else; it reads every byte through a bounds-checked cursor. */
#include <stdio.h>
#include <string.h>

#include "interop/npy_internal.h"
#include "runtime/error.h"
#include "runtime/tensor_impl.h"

static const uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

static bool host_little_endian(void) {
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

tensor_status tt_npy_header_size(const uint8_t *buf, size_t len, size_t *total, const char *func) {
    if (len < sizeof magic || memcmp(buf, magic, sizeof magic) != 0)
        return tensor_error(TENSOR_ERR_FORMAT, "%s: not a .npy file (it does not start with \"\\x93NUMPY\")", func);
    if (len < 8) return tensor_error(TENSOR_ERR_FORMAT, "%s: truncated .npy preamble (%zu bytes)", func, len);
    const int major = buf[6], minor = buf[7];
    if ((major != 1 && major != 2 && major != 3) || minor != 0)
        return tensor_error(TENSOR_ERR_FORMAT, "%s: unsupported .npy format version %d.%d (1.0, 2.0 and 3.0 are read)",
                            func, major, minor);
    const size_t preamble = major == 1 ? TT_NPY_PREAMBLE_V1 : TT_NPY_PREAMBLE_V2;
    if (len < preamble)
        return tensor_error(TENSOR_ERR_FORMAT, "%s: truncated .npy preamble (%zu of %zu bytes)", func, len, preamble);
    uint32_t hlen = (uint32_t)buf[8] | (uint32_t)buf[9] << 8;
    if (major != 1) hlen |= (uint32_t)buf[10] << 16 | (uint32_t)buf[11] << 24;
    if (hlen > TT_NPY_MAX_HEADER)
        return tensor_error(TENSOR_ERR_FORMAT, "%s: .npy header length %u exceeds the limit of %d bytes", func, hlen,
                            TT_NPY_MAX_HEADER);
    *total = preamble + hlen;
    return TENSOR_OK;
}

/* ---- the dict literal ---- */

typedef struct {
    const uint8_t *p, *begin, *end;
    const char *func;
} cursor;

/* Offsets in messages count from the file's first byte. */
static tensor_status syntax(const cursor *c, const char *what) {
    return tensor_error(TENSOR_ERR_FORMAT, "%s: malformed .npy header at byte %zu: %s", c->func,
                        (size_t)(c->p - c->begin), what);
}

static void skip_space(cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static bool peek(const cursor *c, char ch) { return c->p < c->end && *c->p == (uint8_t)ch; }

static bool accept(cursor *c, char ch) {
    skip_space(c);
    if (!peek(c, ch)) return false;
    c->p++;
    return true;
}

static bool accept_word(cursor *c, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0) return false;
    c->p += n;
    return true;
}

/* A quoted string without escapes (numpy never writes one in the three values), as [*s, *s+*n). */
static tensor_status string_literal(cursor *c, const uint8_t **s, size_t *n) {
    skip_space(c);
    if (!peek(c, '\'') && !peek(c, '"')) return syntax(c, "expected a quoted string");
    const uint8_t quote = *c->p++;
    const uint8_t *start = c->p;
    while (c->p < c->end && *c->p != quote) {
        if (*c->p == '\\') return syntax(c, "escape sequences are not supported in strings");
        if (*c->p < 0x20) return syntax(c, "control character in a string");
        c->p++;
    }
    if (c->p >= c->end) return syntax(c, "unterminated string");
    *s = start;
    *n = (size_t)(c->p - start);
    c->p++;
    return TENSOR_OK;
}

static tensor_status bool_literal(cursor *c, bool *v) {
    skip_space(c);
    if (accept_word(c, "True")) *v = true;
    else if (accept_word(c, "False")) *v = false;
    else return syntax(c, "'fortran_order' must be True or False");
    return TENSOR_OK;
}

/* A non-negative decimal integer (Python 2 wrote longs with an L). */
static tensor_status size_literal(cursor *c, int64_t *v) {
    skip_space(c);
    if (peek(c, '-')) return syntax(c, "negative size in 'shape'");
    if (c->p >= c->end || *c->p < '0' || *c->p > '9') return syntax(c, "expected a size in 'shape'");
    int64_t x = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, (int64_t)(*c->p - '0'), &x))
            return tensor_error(TENSOR_ERR_OVERFLOW, "%s: a size in the .npy header's 'shape' at byte %zu overflows int64",
                                c->func, (size_t)(c->p - c->begin));
        c->p++;
    }
    if (peek(c, 'L') || peek(c, 'l')) c->p++;
    *v = x;
    return TENSOR_OK;
}

/* '(' [size (',' size)* [',']] ')'; a lone size without a comma is taken as one dim. */
static tensor_status shape_literal(cursor *c, tt_npy_header *h) {
    if (!accept(c, '(')) return syntax(c, "'shape' must be a tuple");
    h->ndim = 0;
    if (accept(c, ')')) return TENSOR_OK;
    for (;;) {
        int64_t v = 0;
        if (h->ndim == TENSOR_MAX_DIMS) {
            /* a 17th size: refuse before storing it */
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                "%s: the .npy file has more than %d dims (TENSOR_MAX_DIMS)", c->func, TENSOR_MAX_DIMS);
        }
        if (size_literal(c, &v) != TENSOR_OK) return tensor_last_status();
        h->shape[h->ndim++] = v;
        if (accept(c, ')')) return TENSOR_OK;
        if (!accept(c, ',')) return syntax(c, "expected ',' or ')' in 'shape'");
        if (accept(c, ')')) return TENSOR_OK;
    }
}

/* descr: [byte order] kind size, e.g. "<f4", "|b1", ">i8". */
static tensor_status descr_dtype(const cursor *c, const uint8_t *s, size_t n, tt_npy_header *h) {
    char text[32];
    size_t shown = n < sizeof text - 1 ? n : sizeof text - 1;
    memcpy(text, s, shown);
    text[shown] = '\0';
    size_t i = 0;
    char order = '=';
    if (n > 0 && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) order = (char)s[i++];
    if (i >= n) return tensor_error(TENSOR_ERR_FORMAT, "%s: malformed .npy descr '%s'", c->func, text);
    const char kind = (char)s[i++];
    int64_t size = 0;
    if (i >= n) return tensor_error(TENSOR_ERR_DTYPE, "%s: .npy descr '%s' is not a fixed-size number type", c->func, text);
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || size > 1000)
            return tensor_error(TENSOR_ERR_DTYPE, "%s: .npy descr '%s' is not a type tinytensor has", c->func, text);
        size = size * 10 + (s[i] - '0');
    }
    tensor_dtype dt = TENSOR_NUM_DTYPES;
    if (kind == 'b' && size == 1) dt = TENSOR_BOOL;
    else if (kind == 'u' && size == 1) dt = TENSOR_UINT8;
    else if (kind == 'i' && size == 1) dt = TENSOR_INT8;
    else if (kind == 'i' && size == 2) dt = TENSOR_INT16;
    else if (kind == 'i' && size == 4) dt = TENSOR_INT32;
    else if (kind == 'i' && size == 8) dt = TENSOR_INT64;
    else if (kind == 'f' && size == 2) dt = TENSOR_FLOAT16;
    else if (kind == 'f' && size == 4) dt = TENSOR_FLOAT32;
    else if (kind == 'f' && size == 8) dt = TENSOR_FLOAT64;
    if (dt == TENSOR_NUM_DTYPES)
        return tensor_error(TENSOR_ERR_DTYPE,
                            "%s: .npy descr '%s' has no tinytensor dtype (bool, uint8, int8-int64 and float16-float64 "
                            "are read)", c->func, text);
    h->dtype = dt;
    const bool little = host_little_endian();
    h->swap = size > 1 && ((order == '<' && !little) || (order == '>' && little));
    return TENSOR_OK;
}

enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4 };

static tensor_status dict_literal(cursor *c, tt_npy_header *h) {
    if (!accept(c, '{')) return syntax(c, "the header must be a dict ('{')");
    int seen = 0;
    for (;;) {
        if (accept(c, '}')) break;
        const uint8_t *key = NULL;
        size_t klen = 0;
        if (string_literal(c, &key, &klen) != TENSOR_OK) return tensor_last_status();
        int k = klen == 5 && memcmp(key, "descr", 5) == 0           ? KEY_DESCR
                : klen == 13 && memcmp(key, "fortran_order", 13) == 0 ? KEY_FORTRAN
                : klen == 5 && memcmp(key, "shape", 5) == 0           ? KEY_SHAPE
                                                                      : 0;
        if (k == 0) return syntax(c, "unknown key (only 'descr', 'fortran_order' and 'shape')");
        if (seen & k) return syntax(c, "duplicate key");
        seen |= k;
        if (!accept(c, ':')) return syntax(c, "expected ':'");
        if (k == KEY_DESCR) {
            skip_space(c);
            if (peek(c, '['))
                return tensor_error(TENSOR_ERR_DTYPE, "%s: the .npy file holds a structured dtype (a list descr), which "
                                    "tinytensor does not have", c->func);
            const uint8_t *s = NULL;
            size_t n = 0;
            if (string_literal(c, &s, &n) != TENSOR_OK) return tensor_last_status();
            if (descr_dtype(c, s, n, h) != TENSOR_OK) return tensor_last_status();
        } else if (k == KEY_FORTRAN) {
            if (bool_literal(c, &h->fortran_order) != TENSOR_OK) return tensor_last_status();
        } else if (shape_literal(c, h) != TENSOR_OK) {
            return tensor_last_status();
        }
        if (accept(c, '}')) break;
        if (!accept(c, ',')) return syntax(c, "expected ',' or '}'");
    }
    if (seen != (KEY_DESCR | KEY_FORTRAN | KEY_SHAPE))
        return syntax(c, !(seen & KEY_DESCR) ? "missing key 'descr'"
                         : !(seen & KEY_FORTRAN) ? "missing key 'fortran_order'"
                                                 : "missing key 'shape'");
    skip_space(c); /* numpy pads with spaces and ends with '\n' */
    if (c->p != c->end) return syntax(c, "unexpected bytes after the dict");
    return TENSOR_OK;
}

tensor_status tt_npy_parse_header(const uint8_t *buf, size_t len, tt_npy_header *out, const char *func) {
    size_t total = 0;
    if (tt_npy_header_size(buf, len, &total, func) != TENSOR_OK) return tensor_last_status();
    if (len < total)
        return tensor_error(TENSOR_ERR_FORMAT, "%s: truncated .npy header (%zu of %zu bytes)", func, len, total);
    tt_npy_header h;
    memset(&h, 0, sizeof h);
    h.major = buf[6];
    h.minor = buf[7];
    const size_t preamble = h.major == 1 ? TT_NPY_PREAMBLE_V1 : TT_NPY_PREAMBLE_V2;
    cursor c = {buf + preamble, buf, buf + total, func};
    if (dict_literal(&c, &h) != TENSOR_OK) return tensor_last_status();
    if (tensor_check_shape(h.ndim, h.shape, &h.numel, func) != TENSOR_OK) return tensor_last_status();
    int64_t bytes;
    if (__builtin_mul_overflow(h.numel, (int64_t)tensor_dtype_size(h.dtype), &bytes))
        return tensor_error(TENSOR_ERR_OVERFLOW, "%s: %lld elements of %s in the .npy file overflow the byte count", func,
                            (long long)h.numel, tensor_dtype_name(h.dtype));
    h.data_bytes = (uint64_t)bytes;
    h.data_offset = total;
    *out = h;
    return TENSOR_OK;
}

/* ---- writing ---- */

tensor_status tt_npy_format_header(tensor_dtype dtype, bool fortran_order, int ndim, const int64_t *shape, char *buf,
                                   size_t cap, size_t *len, const char *func) {
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: ndim %d is outside [0, %d]", func, ndim, TENSOR_MAX_DIMS);
    char kind;
    switch (dtype) {
    case TENSOR_BOOL: kind = 'b'; break;
    case TENSOR_UINT8: kind = 'u'; break;
    case TENSOR_INT8:
    case TENSOR_INT16:
    case TENSOR_INT32:
    case TENSOR_INT64: kind = 'i'; break;
    case TENSOR_FLOAT16:
    case TENSOR_FLOAT32:
    case TENSOR_FLOAT64: kind = 'f'; break;
    case TENSOR_BFLOAT16:
    case TENSOR_FLOAT8_E4M3FN:
    case TENSOR_FLOAT8_E5M2:
        return tensor_error(TENSOR_ERR_DTYPE,
                            "%s: %s has no numpy dtype; convert to float32 first (tensor_to_dtype, exact for this "
                            "dtype) and back after loading", func, tensor_dtype_name(dtype));
    default: return tensor_error(TENSOR_ERR_DTYPE, "%s: unknown dtype %d", func, (int)dtype);
    }
    const size_t esize = tensor_dtype_size(dtype);
    const char order = esize == 1 ? '|' : host_little_endian() ? '<' : '>';
    /* The dict as numpy writes it, shape included, into a scratch buffer big enough for 16
     * dims of 20 characters; the preamble goes in front once the padded length is known. */
    char dict[640];
    int n = snprintf(dict, sizeof dict, "{'descr': '%c%c%zu', 'fortran_order': %s, 'shape': (", order, kind, esize,
                     fortran_order ? "True" : "False");
    for (int i = 0; i < ndim; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld%s", (long long)shape[i],
                      ndim == 1 ? "," : i + 1 < ndim ? ", " : "");
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    const size_t text = (size_t)n + 1; /* with the final '\n' */
    const size_t preamble = text + TT_NPY_PREAMBLE_V1 <= 65535 ? TT_NPY_PREAMBLE_V1 : TT_NPY_PREAMBLE_V2;
    const size_t total = (preamble + text + 63) / 64 * 64;
    if (cap < total)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: header buffer of %zu bytes, %zu needed", func, cap, total);
    const size_t hlen = total - preamble;
    memcpy(buf, magic, sizeof magic);
    buf[6] = preamble == TT_NPY_PREAMBLE_V1 ? 1 : 2;
    buf[7] = 0;
    buf[8] = (char)(hlen & 0xff);
    buf[9] = (char)(hlen >> 8 & 0xff);
    if (preamble == TT_NPY_PREAMBLE_V2) {
        buf[10] = (char)(hlen >> 16 & 0xff);
        buf[11] = (char)(hlen >> 24 & 0xff);
    }
    memcpy(buf + preamble, dict, (size_t)n);
    memset(buf + preamble + n, ' ', total - preamble - (size_t)n - 1);
    buf[total - 1] = '\n';
    *len = total;
    return TENSOR_OK;
}

/* libFuzzer target: the text the library writes. Tensors of any dtype holding arbitrary bit
 * patterns (NaN payloads, infinities, -0, subnormals, the integer extremes), of any rank and
 * layout (strided, broadcast, huge broadcast sizes that must be summarised), through:
 *   - tensor_format with every buffer size (snprintf contract: the full length returned, the
 *     text NUL-terminated and a prefix of the full text, nothing written past the size) and
 *     tensor_print into a memory stream (the same text and a newline);
 *   - the printed structure: "tensor(" ... ")", the dtype and size suffixes PyTorch shows, and
 *     one printed value per shown element (all of them up to the summarisation threshold, six
 *     per long dim beyond it), each the element's value within the printed precision;
 *   - explain texts (tensor_reduce_explain for every op name and unknown ones,
 *     tensor_iter_explain, tensor_reduction_explain) under the same snprintf contract;
 *   - error messages from calls with hostile arguments (huge and negative numbers, long
 *     names): a status, and a NUL-terminated message that names the function;
 *   - the name functions over any enum value. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "fuzz_common.h"
#include "ops/reduction_kit.h"

#define MSG_MAX 512

/* ---- a user reduction, for tensor_reduction_explain ---- */
static double z64(void) { return 0.0; }
static double id64(const double *x) { return x[0]; }
static double add64(double a, double b) { return a + b; }
static double fin64(double a, int64_t n) { return (void)n, a; }
TENSOR_REDUCTION_FNS(fz_sum_fns, 1, double, double, z64, id64, add64, add64, fin64)

static tensor_reduction *user_sum(void) {
    static tensor_reduction *r;
    if (r == NULL) {
        tensor_reduction_def def = {"fuzz_format_sum", 1, sizeof(double), TENSOR_REDUCTION_DTYPE_FLOAT, true, {{0}}, NULL};
        def.fns[TENSOR_REDUCTION_F64] = fz_sum_fns;
        r = tensor_reduction_register(&def);
        if (r == NULL) fz_fail("registering the user reduction failed");
    }
    return r;
}

/* ---- the snprintf contract ---- */

typedef int64_t (*writer_fn)(void *ctx, char *buf, size_t size);

/* Runs w with no buffer, an exact buffer and a drawn smaller one; returns the full text
 * (malloc'd) or NULL when w fails (which it must do the same way each time). */
static char *check_snprintf(writer_fn w, void *ctx, size_t cut, const char *what) {
    tensor_clear_error();
    const int64_t len = w(ctx, NULL, 0);
    if (len < 0) {
        fz_check_error_reported(what);
        char one[4] = "xyz";
        if (w(ctx, one, sizeof one) != -1) fz_fail("%s: failed without a buffer, not with one", what);
        if (one[0] != '\0' && strcmp(one, "xyz") != 0) fz_fail("%s: a failed call left a partial text", what);
        return NULL;
    }
    char *full = malloc((size_t)len + 1);
    if (full == NULL) abort();
    if (w(ctx, full, (size_t)len + 1) != len) fz_fail("%s: the length changed between calls", what);
    if (full[len] != '\0' || strlen(full) != (size_t)len) fz_fail("%s: the text is not %lld bytes + NUL", what, (long long)len);
    /* a smaller buffer: a NUL-terminated prefix, and nothing written beyond it */
    const size_t size = cut % ((size_t)len + 2);
    char *part = malloc((size_t)len + 16);
    if (part == NULL) abort();
    memset(part, 0xA5, (size_t)len + 16);
    if (w(ctx, size > 0 ? part : NULL, size) != len) fz_fail("%s: a short buffer changed the returned length", what);
    if (size > 0) {
        const size_t n = (size_t)len < size - 1 ? (size_t)len : size - 1;
        if (part[n] != '\0' || memcmp(part, full, n) != 0) fz_fail("%s: a short buffer does not hold a prefix", what);
    }
    for (size_t i = size; i < (size_t)len + 16; i++)
        if ((unsigned char)part[i] != 0xA5) fz_fail("%s: byte %zu written past a buffer of %zu", what, i, size);
    free(part);
    return full;
}

static int64_t w_format(void *ctx, char *buf, size_t size) { return tensor_format((const tensor_t *)ctx, buf, size); }

typedef struct explain_args {
    const char *op;
    const tensor_t *t;
    const int *dims;
    int ndims;
    bool keepdim;
    tensor_dtype dtype;
    const tensor_iter_t *iter;
} explain_args;

static int64_t w_reduce_explain(void *ctx, char *buf, size_t size) {
    const explain_args *a = ctx;
    return tensor_reduce_explain(a->op, a->t, a->dims, a->ndims, a->keepdim, a->dtype, buf, size);
}
static int64_t w_iter_explain(void *ctx, char *buf, size_t size) {
    return tensor_iter_explain(((const explain_args *)ctx)->iter, buf, size);
}
static int64_t w_reduction_explain(void *ctx, char *buf, size_t size) {
    const explain_args *a = ctx;
    const tensor_t *in[1] = {a->t};
    return tensor_reduction_explain(user_sum(), in, 1, a->dims, a->ndims, a->keepdim, a->dtype, buf, size);
}

/* ---- the printed values ---- */

/* The shown elements' addresses, in print order (PyTorch's summarisation: beyond the
 * threshold every dim longer than 6 shows its first and last 3). */
static void shown_elements(const tensor_t *t, bool summarize, int dim, int64_t *idx, const char **out, int64_t *n,
                           int64_t cap) {
    const int nd = tensor_ndim(t);
    if (dim == nd) {
        if (*n < cap) {
            int64_t off = 0;
            for (int d = 0; d < nd; d++) off += idx[d] * tensor_stride(t, d);
            out[*n] = (const char *)tensor_data(t) + off * (int64_t)tensor_dtype_size(tensor_get_dtype(t));
        }
        (*n)++;
        return;
    }
    const int64_t size = tensor_size(t, dim);
    const bool cut = summarize && size > 6;
    for (int64_t i = 0; i < size; i++) {
        if (cut && i == 3) i = size - 3;
        idx[dim] = i;
        shown_elements(t, summarize, dim + 1, idx, out, n, cap);
    }
}

/* Checks one printed token against the element at p. */
static void check_token(const char *tok, size_t len, tensor_dtype dt, const char *p) {
    char s[600];
    if (len >= sizeof s) fz_fail("a printed value of %zu characters", len);
    memcpy(s, tok, len);
    s[len] = '\0';
    if (dt == TENSOR_BOOL) {
        const bool v = tensor_dtype_load_double(dt, p) != 0;
        if (strcmp(s, v ? "True" : "False") != 0) fz_fail("bool printed as \"%s\"", s);
        return;
    }
    if (!fz_is_float(dt)) {
        char want[32];
        snprintf(want, sizeof want, "%lld", (long long)tensor_dtype_load_int64(dt, p));
        if (strcmp(s, want) != 0) fz_fail("%s %s printed as \"%s\"", tensor_dtype_name(dt), want, s);
        return;
    }
    const double v = tensor_dtype_load_double(dt, p);
    if (isnan(v)) {
        if (strcmp(s, "nan") != 0) fz_fail("NaN printed as \"%s\"", s);
        return;
    }
    if (isinf(v)) {
        if (strcmp(s, v > 0 ? "inf" : "-inf") != 0) fz_fail("%g printed as \"%s\"", v, s);
        return;
    }
    char *end;
    /* long double: the largest doubles print rounded up past DBL_MAX ("1.7977e+308") */
    const long double got = strtold(s, &end);
    if (end == s || (*end != '\0' && strcmp(end, ".") != 0)) fz_fail("float printed as \"%s\"", s);
    /* 4 decimals, or 4 significant decimals in scientific notation */
    const long double lv = v;
    if (fabsl(got - lv) > 5.0001e-5L * (fabsl(lv) > 1.0L ? fabsl(lv) : 1.0L)) fz_fail("%.17g printed as \"%s\"", v, s);
}

static void check_structure(const tensor_t *t, const char *text) {
    const size_t len = strlen(text);
    if (strncmp(text, "tensor(", 7) != 0 || len < 9 || text[len - 1] != ')') fz_fail("printed \"%.60s...\"", text);
    const tensor_dtype dt = tensor_get_dtype(t);
    const int nd = tensor_ndim(t);
    const int64_t numel = tensor_numel(t);
    char suffix[64];
    snprintf(suffix, sizeof suffix, "dtype=torch.%s)", tensor_dtype_name(dt));
    const bool shows_dtype = numel == 0 ? dt != TENSOR_FLOAT32
                                        : dt != TENSOR_FLOAT32 && dt != TENSOR_INT64 && dt != TENSOR_BOOL;
    const size_t sl = strlen(suffix);
    if (shows_dtype != (len >= sl && strcmp(text + len - sl, suffix) == 0)) fz_fail("dtype suffix of \"%s\"", text);
    if (!shows_dtype && strstr(text, "dtype=") != NULL) fz_fail("a dtype suffix in \"%s\"", text);
    if (numel == 0) {
        if (strncmp(text + 7, "[]", 2) != 0) fz_fail("an empty tensor printed as \"%s\"", text);
        if ((nd != 1) != (strstr(text, "size=(") != NULL)) fz_fail("size suffix of \"%s\"", text);
        return;
    }
    /* the data part: one token, or a bracketed nest */
    const char *b = text + 7, *e;
    if (nd == 0) {
        e = b + strcspn(b, ",)");
    } else {
        if (*b != '[') fz_fail("no '[' in \"%s\"", text);
        int depth = 0;
        for (e = b; *e != '\0'; e++) {
            if (*e == '[') depth++;
            if (*e == ']' && --depth == 0) break;
        }
        if (*e != ']') fz_fail("unbalanced brackets in \"%s\"", text);
        e++;
    }
    /* the shown elements: at most 6 per dim once summarised, so a small array does */
    const bool summarize = numel > 1000;
    int64_t want = 1;
    for (int d = 0; d < nd; d++) want *= summarize && tensor_size(t, d) > 6 ? 6 : tensor_size(t, d);
    if (want > 100000) return;
    const char **elems = malloc(sizeof(char *) * (size_t)want);
    if (elems == NULL) abort();
    int64_t n = 0, idx[TENSOR_MAX_DIMS] = {0};
    shown_elements(t, summarize, 0, idx, elems, &n, want);
    if (n != want) fz_fail("shown elements %lld, expected %lld", (long long)n, (long long)want);
    int64_t k = 0, dots = 0;
    for (const char *p = b; p < e;) {
        const size_t skip = strspn(p, "[], \n");
        p += skip;
        if (p >= e) break;
        size_t tl = strcspn(p, "[], \n");
        if (p + tl > e) tl = (size_t)(e - p);
        if (tl == 3 && strncmp(p, "...", 3) == 0) {
            dots++;
        } else {
            if (k >= n) fz_fail("more printed values than the %lld shown elements", (long long)n);
            check_token(p, tl, dt, elems[k]);
            k++;
        }
        p += tl;
    }
    if (k != n) fz_fail("%lld printed values for %lld shown elements", (long long)k, (long long)n);
    if (!summarize && dots != 0) fz_fail("\"...\" below the threshold");
    free(elems);
}

/* ---- hostile arguments ---- */

/* prefix: how the message must start (the function, or the name an iterator was given) */
static void check_failure_named(const void *result, const char *what, const char *prefix) {
    if (result != NULL) return;
    const char *msg = tensor_last_error();
    if (memchr(msg, '\0', MSG_MAX) == NULL) fz_fail("%s: the message is not NUL-terminated", what);
    fz_check_error_reported(what);
    if (strncmp(msg, prefix, strlen(prefix)) != 0) fz_fail("%s: the message \"%s\" does not start with %s", what, msg, prefix);
}
static void check_failure(const void *result, const char *what) { check_failure_named(result, what, "tensor_"); }

static int64_t hostile_i64(fz_reader *r) {
    static const int64_t special[8] = {INT64_MIN, INT64_MAX, -1, 0, INT64_C(1) << 62, -(INT64_C(1) << 62), 4294967296, -7};
    const unsigned c = fz_byte(r);
    return c % 4 == 0 ? special[(c >> 2) % 8] : (int64_t)fz_u64(r);
}

static void hostile_calls(fz_reader *r, tensor_t *t) {
    unsigned which = fz_byte(r);
    /* calls that may compute stay on small tensors: a fuzz input must run in a moment */
    if (tensor_numel(t) > 4096 && (which % 8 == 4 || which % 8 == 6)) which = 0;
    int64_t sizes[TENSOR_MAX_DIMS + 2];
    const int n = (int)fz_below(r, TENSOR_MAX_DIMS + 3) - 1;
    for (int d = 0; d < TENSOR_MAX_DIMS + 2; d++) sizes[d] = hostile_i64(r);
    tensor_t *res = NULL;
    switch (which % 8) {
    case 0: check_failure(res = tensor_narrow(t, (int)hostile_i64(r), hostile_i64(r), hostile_i64(r)), "tensor_narrow"); break;
    case 1: check_failure(res = tensor_expand(t, n, sizes), "tensor_expand"); break;
    case 2: check_failure(res = tensor_view(t, n, sizes), "tensor_view"); break;
    case 3: check_failure(res = tensor_slice(t, (int)hostile_i64(r), hostile_i64(r), hostile_i64(r), hostile_i64(r)), "tensor_slice"); break;
    case 4: {
        int dims[TENSOR_MAX_DIMS + 2];
        for (int d = 0; d < TENSOR_MAX_DIMS + 2; d++) dims[d] = (int)hostile_i64(r);
        check_failure(res = tensor_sum_dims(t, dims, n, fz_byte(r) & 1, (tensor_dtype)((int)fz_byte(r) - 3)), "tensor_sum_dims");
        break;
    }
    case 5: {
        char name[700];
        const size_t len = fz_below(r, sizeof name);
        for (size_t i = 0; i < len; i++) name[i] = (char)(1 + fz_below(r, 255));
        name[len] = '\0';
        check_failure(tensor_reduction_find(name), "tensor_reduction_find");
        break;
    }
    case 6: {
        /* shapes that do not broadcast: the message prints both */
        int64_t other[TENSOR_MAX_DIMS];
        const int m = tensor_ndim(t) > 0 ? tensor_ndim(t) : 1;
        for (int d = 0; d < m; d++) other[d] = 2 + (int64_t)fz_below(r, 5);
        tensor_t *o = tensor_zeros(m, other, tensor_get_dtype(t), tensor_cpu());
        if (o == NULL) fz_fail("tensor_zeros failed");
        check_failure(res = tensor_add(t, o, tensor_scalar_int(1)), "tensor_add");
        tensor_release(o);
        break;
    }
    default: {
        int perm[TENSOR_MAX_DIMS];
        for (int d = 0; d < TENSOR_MAX_DIMS; d++) perm[d] = (int)hostile_i64(r) % 20;
        check_failure(res = tensor_permute(t, perm), "tensor_permute");
        break;
    }
    }
    tensor_release(res);
}

static void check_names(fz_reader *r) {
    const int v = (int)fz_u64(r);
    if (tensor_dtype_name((tensor_dtype)v) == NULL || tensor_status_name((tensor_status)v) == NULL ||
        tensor_status_str((tensor_status)v) == NULL || tensor_ew_op_name((tensor_ew_op)v) == NULL)
        fz_fail("a name function returned NULL for %d", v);
    char buf[24];
    const size_t size = fz_below(r, sizeof buf + 1);
    memset(buf, 'x', sizeof buf);
    const tensor_device dev = {(tensor_device_type)v, (int)fz_u64(r)};
    tensor_device_format(dev, size > 0 ? buf : NULL, size);
    if (size > 0 && memchr(buf, '\0', size) == NULL) fz_fail("tensor_device_format: no NUL within %zu bytes", size);
    for (size_t i = size; i < sizeof buf; i++)
        if (buf[i] != 'x') fz_fail("tensor_device_format wrote past %zu bytes", size);
}

/* ---- the tensor ---- */

static const char *const op_names[] = {"sum", "nansum", "prod", "mean", "nanmean", "amax", "amin", "max", "min",
                                       "argmax", "argmin", "var", "std", "var_mean", "std_mean", "norm", "logsumexp",
                                       "count_nonzero", "all", "any", "sum_of_squares", "", "sum ", "SUM", "cumsum"};

/* An element: raw bits, or one of the values printing must get right. */
static void draw_element(fz_reader *r, tensor_dtype dt, unsigned char *dst) {
    const size_t es = fz_size(dt);
    const unsigned c = fz_byte(r);
    if (c % 4 != 0) {
        for (size_t i = 0; i < es; i++) dst[i] = (unsigned char)fz_byte(r);
        return;
    }
    if (fz_is_float(dt)) {
        static const double special[12] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 4.9406564584124654e-324,
                                           2.2250738585072014e-308, 1.7976931348623157e308, 1e-5, 99999.5, 1e8, 0.1};
        tensor_dtype_store_double(dt, dst, special[(c >> 2) % 12] * ((c & 0x80) ? -1 : 1));
    } else {
        static const int64_t special[6] = {INT64_MIN, INT64_MAX, -1, 0, 1, -128};
        tensor_dtype_store_int64(dt, dst, special[(c >> 2) % 6]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = {data, size};
    const tensor_dtype dt = fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)];
    const size_t es = fz_size(dt);
    /* mostly small tensors (up to 5 dims of 0..4); now and then up to 3 dims, two of them
     * long enough (7..46) to be summarised: a fuzz input must run in well under a millisecond */
    const unsigned shape_kind = fz_byte(&r);
    const bool long_ok = shape_kind % 4 == 0;
    const int nd = long_ok ? (int)(shape_kind >> 2) % 4 : (int)(shape_kind >> 2) % 6;
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    bool huge = false;
    int long_dims = 0;
    for (int d = 0; d < nd; d++) {
        const unsigned c = fz_byte(&r);
        const bool is_long = long_ok && c % 16 >= 8 && long_dims < 2;
        long_dims += is_long;
        sizes[d] = c % 16 == 0 ? 0 : is_long ? 7 + (int64_t)((c >> 4) % 40) : 1 + (int64_t)((c >> 4) % 4);
        strides[d] = fz_byte(&r) % 5;
        if (c == 255) {
            /* a broadcast size far beyond memory: printing summarises it */
            sizes[d] = (INT64_C(1) << 40) + 3;
            strides[d] = 0;
            huge = true;
        }
    }
    int64_t extent = 1;
    for (int d = 0; d < nd; d++)
        if (sizes[d] > 0) extent += (sizes[d] - 1) * strides[d];
    unsigned char *buf = malloc((size_t)extent * es);
    if (buf == NULL) abort();
    for (int64_t i = 0; i < extent; i++) draw_element(&r, dt, buf + (size_t)i * es);
    tensor_t *t = tensor_from_blob(buf, nd, sizes, strides, dt, tensor_cpu(), NULL, NULL);
    if (t == NULL) {
        /* only two huge sizes can overflow the element count */
        if (!huge) fz_fail("tensor_from_blob refused a valid view");
        check_failure(t, "tensor_from_blob");
        free(buf);
        return 0;
    }
    /* sometimes a view of it */
    const unsigned vsel = fz_byte(&r);
    tensor_t *v = NULL;
    if (vsel % 4 == 1 && nd >= 2) v = tensor_transpose(t, 0, nd - 1);
    else if (vsel % 4 == 2 && nd >= 1) v = tensor_slice(t, 0, 1, INT64_MAX, 2);
    else if (vsel % 4 == 3) v = tensor_unsqueeze(t, 0);
    if (v != NULL) {
        tensor_release(t);
        t = v;
    }

    /* printing */
    char *full = check_snprintf(w_format, t, fz_u64(&r), "tensor_format");
    if (full == NULL) fz_fail("tensor_format failed on a valid tensor");
    check_structure(t, full);
    /* one of: printing to a stream, or one of the explain texts (each input does one, so
     * that an input runs in well under a millisecond) */
    const unsigned what = fz_byte(&r) % 4;
    if (what == 0) {
        char *stream_text = NULL;
        size_t stream_len = 0;
        FILE *f = open_memstream(&stream_text, &stream_len);
        if (f == NULL) abort();
        if (tensor_print(t, f) != TENSOR_OK) fz_fail("tensor_print failed");
        fclose(f);
        const size_t fl = strlen(full);
        if (stream_len != fl + 1 || memcmp(stream_text, full, fl) != 0 || stream_text[fl] != '\n')
            fz_fail("tensor_print wrote other text than tensor_format");
        free(stream_text);
    }
    free(full);

    /* explain */
    int dims[4];
    const int ndims = (int)fz_below(&r, 4);
    for (int i = 0; i < ndims; i++) dims[i] = (int)fz_below(&r, 13) - 6;
    const unsigned ds = fz_byte(&r);
    /* Explaining a reduction allocates its result as the call would (nothing is written to
     * it): a huge broadcast input must not ask for terabytes, which libFuzzer calls a crash. */
    /* The largest result any op can give: some reduce only dims[0], any/all with no dims none. */
    int64_t out_numel = 1;
    for (int d = 0; d < tensor_ndim(t); d++) {
        const bool reduced = ndims > 0 && (dims[0] == d || dims[0] == d - tensor_ndim(t));
        /* a size-0 dim counts as 1: reducing it leaves the others' product */
        const int64_t n = tensor_size(t, d) > 0 ? tensor_size(t, d) : 1;
        if (!reduced && __builtin_mul_overflow(out_numel, n, &out_numel)) out_numel = INT64_MAX;
    }
    const bool may_allocate = out_numel <= (INT64_C(1) << 24);
    explain_args ea = {op_names[fz_below(&r, sizeof op_names / sizeof op_names[0])], t, dims, ndims, ds & 1,
                       ds % 8 < 5 ? TENSOR_DTYPE_DEFAULT : (tensor_dtype)((int)(ds >> 3) % 16 - 2), NULL};
    const uint64_t cut = fz_u64(&r);
    if (may_allocate && what == 1) free(check_snprintf(w_reduce_explain, &ea, cut, "tensor_reduce_explain"));
    if (may_allocate && what == 2) free(check_snprintf(w_reduction_explain, &ea, cut, "tensor_reduction_explain"));
    tensor_iter_t *it = may_allocate && what == 3 ? tensor_iter_reduce_new("fuzz_format", NULL, t, dims, ndims, ea.keepdim,
                                                              ds % 2 ? TENSOR_FLOAT64 : dt)
                                     : NULL;
    if (it != NULL) {
        ea.iter = it;
        char *text = check_snprintf(w_iter_explain, &ea, fz_u64(&r), "tensor_iter_explain");
        if (text == NULL || strncmp(text, "fuzz_format: reduction iterator", 31) != 0)
            fz_fail("tensor_iter_explain: \"%.60s\"", text ? text : "(failed)");
        free(text);
        /* a piece of a split iterator explains itself too */
        if (tensor_iter_dim_to_split(it) >= 0) {
            tensor_iter_t *first = tensor_iter_split(it, tensor_iter_dim_to_split(it));
            if (first == NULL) fz_fail("tensor_iter_split failed");
            ea.iter = first;
            free(check_snprintf(w_iter_explain, &ea, fz_u64(&r), "tensor_iter_explain"));
            tensor_iter_free(first);
        }
        tensor_iter_free(it);
    } else if (may_allocate && what == 3) {
        check_failure_named(it, "tensor_iter_reduce_new", "fuzz_format: ");
    }

    /* error messages and names */
    hostile_calls(&r, t);
    check_names(&r);

    tensor_release(t);
    free(buf);
    return 0;
}

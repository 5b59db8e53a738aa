/* libFuzzer target: cumsum, cumprod, cummax and cummin over strided views (any sizes, strides
 * including 0, misaligned offsets, 0-d), every dim in and out of range, every input dtype, and
 * for cumsum / cumprod dtype= a numeric dtype or the default. The reference is written here
 * from the header's contract: the result dtype (sum's rule, or dtype= with each element
 * converted to it first), each line scanned in index order in the documented accumulator
 * (float for 16-bit floats, double for float32 / float64, wrapping int64 for integers and bool),
 * each running value stored in the result dtype; cummax / cummin keep the input's dtype, and
 * their index is the later one on ties. Values are integers in [-8, 8] for sums and extrema
 * and in [-2, 2] for products, so every value is exact or overflows the same way in the
 * reference. Anything else (a wrong dtype, shape, value or index, another status than
 * TENSOR_ERR_INDEX for a dim out of range, a crash or a sanitizer report) is a finding. */
#include <math.h>

#include "fuzz_common.h"

#define SC_MAX_NUMEL 4096

/* The accumulator of a result dtype: 0 float, 1 double, 2 int64. */
static int sc_acc(tensor_dtype d) {
    if (d == TENSOR_FLOAT16 || d == TENSOR_BFLOAT16) return 0;
    if (d == TENSOR_FLOAT32 || d == TENSOR_FLOAT64) return 1;
    return 2;
}

static bool sc_same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = {data, size};
    const int op = (int)fz_below(&r, 4); /* cumsum, cumprod, cummax, cummin */
    const int nfull = (int)fz_below(&r, 4) + 1;
    int64_t full[4];
    for (int d = 0; d < nfull; d++) full[d] = fz_dim_size(&r);
    const tensor_dtype dt = fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)];
    /* dtype= for cumsum / cumprod: a numeric dtype (no bool, no float8) or the default */
    static const tensor_dtype numeric[9] = {TENSOR_UINT8,   TENSOR_INT8,     TENSOR_INT16,   TENSOR_INT32,  TENSOR_INT64,
                                            TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT32, TENSOR_FLOAT64};
    const tensor_dtype dtype_arg = op < 2 && fz_below(&r, 3) == 0 ? numeric[fz_below(&r, 9)] : TENSOR_DTYPE_DEFAULT;
    fz_view x = {0};
    if (!fz_view_make(&r, &x, nfull, full, dt, op == 1 ? 2 : 8, SC_MAX_NUMEL)) return 0;
    const int n = x.nd, wrap = n == 0 ? 1 : n;
    const int dim = (int)fz_below(&r, 2u * (unsigned)wrap + 3) - (wrap + 1);
    const bool dim_ok = dim >= -wrap && dim < wrap;

    tensor_t *res = NULL, *idx = NULL;
    if (op == 0) res = tensor_cumsum(x.t, dim, dtype_arg);
    else if (op == 1) res = tensor_cumprod(x.t, dim, dtype_arg);
    else {
        const tensor_status st = op == 2 ? tensor_cummax(x.t, dim, &res, &idx) : tensor_cummin(x.t, dim, &res, &idx);
        if ((st == TENSOR_OK) != (res != NULL && idx != NULL)) fz_fail("cummax/cummin: status %d but results %p %p", (int)st, (void *)res, (void *)idx);
    }
    if (!dim_ok) {
        if (res != NULL) fz_fail("op %d accepted dim %d of a %d-d input", op, dim, n);
        fz_check_error_reported("scan");
        if (tensor_last_status() != TENSOR_ERR_INDEX) fz_fail("op %d, dim %d: status %s", op, dim, tensor_status_name(tensor_last_status()));
        fz_view_free(&x);
        return 0;
    }
    if (res == NULL) fz_fail("op %d (%s, dim %d, dtype %d) refused a valid call", op, tensor_dtype_name(dt), dim, (int)dtype_arg);

    /* result dtype and shape */
    tensor_dtype odt = dt;
    if (op < 2)
        odt = dtype_arg != TENSOR_DTYPE_DEFAULT ? dtype_arg
              : fz_is_float8(dt)               ? TENSOR_FLOAT32
              : fz_is_float(dt)                ? dt
                                               : TENSOR_INT64;
    if (tensor_get_dtype(res) != odt) fz_fail("op %d: result dtype %s, want %s", op, tensor_dtype_name(tensor_get_dtype(res)), tensor_dtype_name(odt));
    if (idx != NULL && tensor_get_dtype(idx) != TENSOR_INT64) fz_fail("indices dtype %s", tensor_dtype_name(tensor_get_dtype(idx)));
    if (tensor_ndim(res) != n) fz_fail("result rank %d, want %d", tensor_ndim(res), n);
    for (int d = 0; d < n; d++)
        if (tensor_sizes(res)[d] != x.sizes[d]) fz_fail("result dim %d differs", d);

    /* the reference, line by line: lines along dim (a 0-d input is one line of one) */
    const int64_t numel = fz_numel(n, x.sizes);
    const int sd = n == 0 ? -1 : (dim + n) % n;
    const int64_t len = sd < 0 ? 1 : x.sizes[sd];
    double *want = calloc((size_t)(numel > 0 ? numel : 1), sizeof(double));
    int64_t *want_i = calloc((size_t)(numel > 0 ? numel : 1), sizeof(int64_t));
    double *got = malloc((size_t)(numel > 0 ? numel : 1) * sizeof(double));
    double *got_i = malloc((size_t)(numel > 0 ? numel : 1) * sizeof(double));
    if (want == NULL || want_i == NULL || got == NULL || got_i == NULL) abort();
    const size_t es = tensor_dtype_size(dt);
    int64_t at[4] = {0, 0, 0, 0};
    if (numel > 0) {
        do {
            if (sd >= 0 && at[sd] != 0) continue; /* each line from its first element */
            double facc = op == 1, best = 0;
            int64_t iacc = op == 1, besti = 0;
            for (int64_t k = 0; k < len; k++) {
                int64_t pos[4];
                memcpy(pos, at, sizeof pos);
                if (sd >= 0) pos[sd] = k;
                int64_t off = 0, lin = 0;
                for (int d = 0; d < n; d++) {
                    off += pos[d] * x.strides[d];
                    lin = lin * x.sizes[d] + pos[d];
                }
                const double v = tensor_dtype_load_double(dt, x.base + (size_t)off * es);
                if (op >= 2) {
                    if (k == 0 || (op == 2 ? v >= best : v <= best)) {
                        best = v;
                        besti = k;
                    }
                    want[lin] = best;
                    want_i[lin] = besti;
                    continue;
                }
                const double e = fz_through(odt, v);
                const int acc = sc_acc(odt);
                if (acc == 2) {
                    iacc = op == 0 ? (int64_t)((uint64_t)iacc + (uint64_t)(int64_t)e)
                                   : (int64_t)((uint64_t)iacc * (uint64_t)(int64_t)e);
                    want[lin] = fz_wrap_int(odt, iacc);
                } else if (acc == 1) {
                    facc = op == 0 ? facc + e : facc * e;
                    want[lin] = fz_through(odt, facc);
                } else {
                    facc = (double)(op == 0 ? (float)facc + (float)e : (float)facc * (float)e);
                    want[lin] = fz_through(odt, facc);
                }
            }
        } while (fz_next_index(n, x.sizes, at));
    }
    tensor_t *resd = tensor_to_dtype(res, TENSOR_FLOAT64);
    if (resd == NULL || tensor_to_buffer(resd, got, (size_t)numel * sizeof(double)) != TENSOR_OK) fz_fail("reading the result");
    if (idx != NULL) {
        tensor_t *idxd = tensor_to_dtype(idx, TENSOR_FLOAT64);
        if (idxd == NULL || tensor_to_buffer(idxd, got_i, (size_t)numel * sizeof(double)) != TENSOR_OK) fz_fail("reading the indices");
        tensor_release(idxd);
    }
    for (int64_t e = 0; e < numel; e++) {
        if (!sc_same(got[e], want[e]))
            fz_fail("op %d, %s -> %s, dim %d, element %lld: got %.17g, want %.17g", op, tensor_dtype_name(dt),
                    tensor_dtype_name(odt), dim, (long long)e, got[e], want[e]);
        if (idx != NULL && got_i[e] != (double)want_i[e])
            fz_fail("op %d, %s, dim %d, element %lld: index %.0f, want %lld", op, tensor_dtype_name(dt), dim, (long long)e,
                    got_i[e], (long long)want_i[e]);
    }
    free(want);
    free(want_i);
    free(got);
    free(got_i);
    tensor_release(resd);
    tensor_release(res);
    tensor_release(idx);
    fz_view_free(&x);
    return 0;
}

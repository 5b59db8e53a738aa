/* libFuzzer target: tensor_vecdot over two strided views of their own buffers: any sizes up to a
 * bounded element count (rows long enough for the vector loops), strides including 0, element
 * offsets that misalign a row, ranks that differ (right-aligned broadcasting), shapes that do
 * not broadcast, every dtype (the same for both or not), and dims in and out of range. The
 * reference is written here: the broadcast shape by PyTorch's rule, each output the sum over
 * dim of a * b. Values are small integers (|v| <= 8), so each product is exact in every dtype
 * (no int8 wrap, no 16-bit rounding) and every partial sum exact in the accumulator; only the
 * total is rounded, to the result dtype, as the reference does too. Expected errors: dtypes that
 * differ, bool and float8 (TENSOR_ERR_DTYPE), shapes that do not broadcast (TENSOR_ERR_SHAPE), a
 * dim out of range (TENSOR_ERR_INDEX); when several apply, any of them. Anything else (another
 * failure, a wrong shape, dtype or value, a crash or a sanitizer report) is a finding. */
#include "fuzz_common.h"

#define VD_MAX_NUMEL 4096 /* of the broadcast shape: the reference walks every element */

static bool vd_refused_dtype(tensor_dtype d) {
    return d == TENSOR_BOOL || d == TENSOR_FLOAT8_E4M3FN || d == TENSOR_FLOAT8_E5M2;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = {data, size};
    /* the shape the operands are cut from (rank 1 to 4), kept under VD_MAX_NUMEL elements */
    const int nfull = 1 + (int)fz_below(&r, 4);
    int64_t full[4];
    for (int d = 0; d < nfull; d++) full[d] = fz_dim_size(&r);
    while (fz_numel(nfull, full) > VD_MAX_NUMEL)
        for (int d = 0; d < nfull; d++) full[d] = full[d] > 1 ? full[d] / 2 : full[d];
    const tensor_dtype da = fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)];
    const tensor_dtype db = fz_below(&r, 8) == 0 ? fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)] : da;
    const int dim = (int)fz_below(&r, 2u * (unsigned)nfull + 3) - (nfull + 1);
    fz_view a = {0}, b = {0};
    if (!fz_view_make(&r, &a, nfull, full, da, 8, VD_MAX_NUMEL)) return 0;
    if (!fz_view_make(&r, &b, nfull, full, db, 8, VD_MAX_NUMEL)) {
        fz_view_free(&a);
        return 0;
    }
    int n = 0;
    int64_t shape[4];
    const bool bcast = fz_broadcast(a.nd, a.sizes, b.nd, b.sizes, &n, shape);
    const bool shape_ok = bcast && fz_numel(n, shape) <= 4 * VD_MAX_NUMEL;
    const bool dtype_err = da != db || vd_refused_dtype(da);
    const bool index_err = bcast && (n == 0 ? (dim < -1 || dim > 0) : (dim < -n || dim >= n));

    tensor_t *res = shape_ok || !bcast ? tensor_vecdot(a.t, b.t, dim) : NULL;
    if (res == NULL && !shape_ok && bcast) { /* too large to check: not called */
        fz_view_free(&a);
        fz_view_free(&b);
        return 0;
    }
    if (dtype_err || !bcast || index_err) {
        if (res != NULL) fz_fail("tensor_vecdot accepted %s x %s, dim %d (broadcast %d)", tensor_dtype_name(da),
                                 tensor_dtype_name(db), dim, (int)bcast);
        fz_check_error_reported("tensor_vecdot");
        const tensor_status st = tensor_last_status();
        if (!((dtype_err && st == TENSOR_ERR_DTYPE) || (!bcast && st == TENSOR_ERR_SHAPE) ||
              (index_err && st == TENSOR_ERR_INDEX)))
            fz_fail("tensor_vecdot: status %s for dtype error %d, broadcast %d, index error %d",
                    tensor_status_name(st), (int)dtype_err, (int)bcast, (int)index_err);
        fz_view_free(&a);
        fz_view_free(&b);
        return 0;
    }
    if (res == NULL) fz_fail("tensor_vecdot refused a valid call (%s, dim %d)", tensor_dtype_name(da), dim);

    /* the result's shape and dtype */
    const int rd = n == 0 ? -1 : (dim + n) % n; /* the reduced dim (-1: a 0-d call) */
    int64_t want_shape[4];
    int nw = 0;
    for (int d = 0; d < n; d++)
        if (d != rd) want_shape[nw++] = shape[d];
    const bool integral = !fz_is_float(da);
    const tensor_dtype odt = integral ? TENSOR_INT64 : da;
    if (tensor_get_dtype(res) != odt) fz_fail("result dtype %s, want %s", tensor_dtype_name(tensor_get_dtype(res)), tensor_dtype_name(odt));
    if (tensor_ndim(res) != nw) fz_fail("result rank %d, want %d", tensor_ndim(res), nw);
    for (int d = 0; d < nw; d++)
        if (tensor_sizes(res)[d] != want_shape[d]) fz_fail("result dim %d is %lld, want %lld", d, (long long)tensor_sizes(res)[d], (long long)want_shape[d]);

    /* the reference: every element of the broadcast shape, its product added to its output */
    const int64_t outn = fz_numel(nw, want_shape);
    double *ref = calloc((size_t)(outn > 0 ? outn : 1), sizeof(double));
    double *got = malloc((size_t)(outn > 0 ? outn : 1) * sizeof(double));
    if (ref == NULL || got == NULL) abort();
    const size_t es = tensor_dtype_size(da);
    int64_t idx[4] = {0, 0, 0, 0};
    if (fz_numel(n, shape) > 0) {
        do {
            int64_t o = 0;
            for (int d = 0; d < n; d++)
                if (d != rd) o = o * shape[d] + idx[d];
            const double x = tensor_dtype_load_double(da, a.base + (size_t)fz_bcast_offset(n, idx, a.nd, a.sizes, a.strides) * es);
            const double y = tensor_dtype_load_double(db, b.base + (size_t)fz_bcast_offset(n, idx, b.nd, b.sizes, b.strides) * es);
            ref[o] += x * y;
        } while (fz_next_index(n, shape, idx));
    }
    tensor_t *resd = tensor_to_dtype(res, TENSOR_FLOAT64);
    if (resd == NULL || tensor_to_buffer(resd, got, (size_t)outn * sizeof(double)) != TENSOR_OK) fz_fail("reading the result");
    for (int64_t o = 0; o < outn; o++) {
        const double want = fz_through(odt, ref[o]);
        if (got[o] != want)
            fz_fail("%s, dim %d, output %lld: got %.17g, want %.17g", tensor_dtype_name(da), dim, (long long)o, got[o], want);
    }
    free(ref);
    free(got);
    tensor_release(resd);
    tensor_release(res);
    fz_view_free(&a);
    fz_view_free(&b);
    return 0;
}

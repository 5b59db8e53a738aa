/* libFuzzer target: reductions over arbitrary strided views (any sizes, strides including 0,
 * offsets, dims, keepdim, dtypes) against a plain reference that walks every logical element.
 * Values are small integers, so float sums are exact before the output's own rounding, which
 * the reference applies too. Any difference, crash or sanitizer report is a finding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tinytensor.h"

typedef struct {
    const uint8_t *p;
    size_t n;
} rd;
static unsigned take(rd *r) {
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

static const tensor_dtype dtypes[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_INT32, TENSOR_INT8, TENSOR_FLOAT16,
                                      TENSOR_BOOL,    TENSOR_UINT8,   TENSOR_INT64, TENSOR_BFLOAT16};

static double rounded(tensor_dtype d, double v) {
    char b[8];
    tensor_dtype_store_double(d, b, v);
    return tensor_dtype_load_double(d, b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rd r = {data, size};
    const int nd = 1 + (int)(take(&r) % 4);
    int64_t sizes[4], strides[4];
    for (int d = 0; d < nd; d++) {
        sizes[d] = take(&r) % 6;
        strides[d] = take(&r) % 13;
    }
    const int64_t offset = take(&r) % 7;
    const tensor_dtype dt = dtypes[take(&r) % (sizeof dtypes / sizeof dtypes[0])];
    const unsigned op = take(&r) % 3, mask = take(&r), keep = take(&r) & 1;
    int64_t numel = 1, extent = 0;
    for (int d = 0; d < nd; d++) {
        numel *= sizes[d];
        if (sizes[d] > 0) extent += (sizes[d] - 1) * strides[d];
    }
    const size_t es = tensor_dtype_size(dt), nbuf = (size_t)(offset + extent + 1);
    unsigned char *buf = calloc(nbuf, es);
    if (buf == NULL) return 0;
    for (size_t i = 0; i < nbuf; i++) {
        double v = dt == TENSOR_BOOL ? (double)(take(&r) & 1) : dt == TENSOR_UINT8 ? (double)(take(&r) % 9)
                                                                                 : (double)((int)(take(&r) % 17) - 8);
        tensor_dtype_store_double(dt, buf + i * es, v);
    }
    tensor_t *t = tensor_from_blob(buf + offset * es, nd, sizes, strides, dt, tensor_cpu(), NULL, NULL);
    if (t == NULL) abort(); /* every view above is valid */
    int dims[4], ndims = 0;
    for (int d = 0; d < nd; d++)
        if (mask & (1u << d)) dims[ndims++] = d;
    const int adim = (int)(mask % (unsigned)nd);
    tensor_t *res = NULL;
    if (op == 0) res = tensor_sum_dims(t, dims, ndims, keep, TENSOR_DTYPE_DEFAULT);
    else if (op == 1) res = tensor_amax(t, dims, ndims, keep);
    else if (dt != TENSOR_BOOL) res = tensor_argmax(t, &adim, keep);
    else {
        tensor_release(t);
        free(buf);
        return 0;
    }
    /* Which dims are reduced (sum/amax with ndims 0: all). */
    int red[4] = {0, 0, 0, 0};
    if (op == 2) red[adim] = 1;
    else
        for (int d = 0; d < nd; d++) red[d] = ndims == 0 || (mask & (1u << d));
    int empty_reduced = 0;
    for (int d = 0; d < nd; d++) empty_reduced |= red[d] && sizes[d] == 0;
    int64_t outn = 1;
    for (int d = 0; d < nd; d++)
        if (!red[d]) outn *= sizes[d];
    if (res == NULL) {
        /* Only an empty reduction without identity (amax, argmax) may fail: IndexError for an
         * empty named dim, RuntimeError (invalid argument) for all dims of an empty tensor. */
        const tensor_status st = tensor_last_status();
        if (!(op != 0 && empty_reduced && (st == TENSOR_ERR_INDEX || st == TENSOR_ERR_INVALID_ARGUMENT))) {
            fprintf(stderr, "unexpected error: %s\n", tensor_last_error());
            abort();
        }
        tensor_release(t);
        free(buf);
        return 0;
    }
    if (tensor_numel(res) != outn) abort();
    /* The reference: for each output element, fold its inputs in index order. */
    double *ref = calloc((size_t)(outn > 0 ? outn : 1), sizeof(double));
    int64_t *arg = calloc((size_t)(outn > 0 ? outn : 1), sizeof(int64_t));
    char *seen = calloc((size_t)(outn > 0 ? outn : 1), 1);
    if (ref == NULL || arg == NULL || seen == NULL) abort();
    int64_t idx[4] = {0, 0, 0, 0};
    for (int64_t e = 0; e < numel; e++) {
        int64_t off = 0, o = 0;
        for (int d = 0; d < nd; d++) {
            off += idx[d] * strides[d];
            if (!red[d]) o = o * sizes[d] + idx[d];
        }
        const double v = tensor_dtype_load_double(dt, buf + (size_t)(offset + off) * es);
        if (op == 0) ref[o] += v;
        else if (!seen[o] || v > ref[o]) {
            ref[o] = v;
            arg[o] = idx[op == 2 ? adim : 0];
        }
        seen[o] = 1;
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < sizes[d]) break;
            idx[d] = 0;
        }
    }
    const tensor_dtype odt = tensor_get_dtype(res);
    double *got = malloc((size_t)(outn > 0 ? outn : 1) * sizeof(double));
    tensor_t *resd = tensor_to_dtype(res, TENSOR_FLOAT64);
    if (got == NULL || resd == NULL || tensor_to_buffer(resd, got, (size_t)outn * sizeof(double)) != TENSOR_OK) abort();
    for (int64_t o = 0; o < outn; o++) {
        const double want = op == 2 ? (double)arg[o] : rounded(odt, ref[o]);
        if (got[o] != want) {
            fprintf(stderr, "op %u dtype %s element %lld: got %.17g want %.17g\n", op, tensor_dtype_name(dt),
                    (long long)o, got[o], want);
            abort();
        }
    }
    free(got);
    free(ref);
    free(arg);
    free(seen);
    tensor_release(resd);
    tensor_release(res);
    tensor_release(t);
    free(buf);
    return 0;
}

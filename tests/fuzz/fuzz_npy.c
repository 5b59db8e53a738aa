/* libFuzzer target: the .npy reader on arbitrary bytes. The input is a whole file.
 *  1. The in-memory header parser (interop/npy_header.c): whatever it accepts is consistent
 *     (shape, element and byte counts, data offset inside the input), and the header our writer
 *     makes for the same fields parses back to them.
 *  2. The whole load over a stream of the bytes: never a crash, an over-read or an allocation
 *     beyond what the file holds; a tensor it returns, saved and loaded again, is the same. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interop/npy_internal.h"
#include "tinytensor.h"

static void check_header(const uint8_t *data, size_t size) {
    tt_npy_header h;
    if (tt_npy_parse_header(data, size, &h, "fuzz") != TENSOR_OK) {
        if (tensor_last_status() == TENSOR_OK || tensor_last_error()[0] == '\0') abort();
        return;
    }
    if (h.ndim < 0 || h.ndim > TENSOR_MAX_DIMS || h.data_offset > size) abort();
    int64_t numel = 1;
    for (int i = 0; i < h.ndim; i++) {
        if (h.shape[i] < 0) abort();
        numel *= h.shape[i]; /* cannot overflow: the parser checked it */
    }
    if (numel != h.numel || h.data_bytes != (uint64_t)numel * tensor_dtype_size(h.dtype)) abort();
    char buf[1024];
    size_t len;
    if (tt_npy_format_header(h.dtype, h.fortran_order, h.ndim, h.shape, buf, sizeof buf, &len, "fuzz") != TENSOR_OK)
        abort();
    tt_npy_header g;
    if (tt_npy_parse_header((const uint8_t *)buf, len, &g, "fuzz") != TENSOR_OK) abort();
    if (g.dtype != h.dtype || g.fortran_order != h.fortran_order || g.ndim != h.ndim || g.numel != h.numel ||
        g.swap || g.data_offset != len || memcmp(g.shape, h.shape, sizeof(int64_t) * (size_t)h.ndim) != 0)
        abort();
}

static tensor_t *read_bytes(const void *data, size_t size) {
    FILE *f = fmemopen((void *)data, size, "rb");
    if (f == NULL) abort();
    tensor_t *t = tt_npy_read(f, tensor_cpu(), "fuzz");
    fclose(f);
    return t;
}

static void *contents(const tensor_t *t, size_t *n) {
    *n = (size_t)tensor_numel(t) * tensor_dtype_size(tensor_get_dtype(t));
    void *p = malloc(*n ? *n : 1);
    if (p == NULL || tensor_to_buffer(t, p, *n) != TENSOR_OK) abort();
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_header(data, size);
    if (size == 0) return 0; /* fmemopen wants a buffer */
    tensor_t *t = read_bytes(data, size);
    if (t == NULL) {
        if (tensor_last_status() == TENSOR_OK) abort();
        return 0;
    }
    char *mem = NULL;
    size_t mlen = 0;
    FILE *w = open_memstream(&mem, &mlen);
    if (w == NULL) abort();
    if (tt_npy_write(t, w, "fuzz") != TENSOR_OK) abort();
    fclose(w);
    tensor_t *u = read_bytes(mem, mlen);
    if (u == NULL || tensor_get_dtype(u) != tensor_get_dtype(t) || tensor_ndim(u) != tensor_ndim(t)) abort();
    for (int d = 0; d < tensor_ndim(t); d++) {
        if (tensor_size(u, d) != tensor_size(t, d)) abort();
        /* the layout comes back too, where strides mean something */
        if (tensor_numel(t) > 0 && tensor_size(t, d) > 1 && tensor_stride(u, d) != tensor_stride(t, d)) abort();
    }
    size_t na, nb;
    void *a = contents(t, &na), *b = contents(u, &nb);
    if (na != nb || memcmp(a, b, na) != 0) abort();
    free(a);
    free(b);
    free(mem);
    tensor_release(u);
    tensor_release(t);
    return 0;
}

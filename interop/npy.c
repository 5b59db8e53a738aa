/* .npy files: loading into a tensor and saving one, over stdio. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "interop/npy.h"
#include "interop/npy_internal.h"
#include "runtime/alloc.h"
#include "runtime/error.h"
#include "runtime/tensor_impl.h"

/* Bytes from the stream's position to its end, or -1 when it cannot seek (a pipe). */
static int64_t bytes_left(FILE *f) {
    off_t here = ftello(f);
    if (here < 0 || fseeko(f, 0, SEEK_END) != 0) return -1;
    off_t end = ftello(f);
    if (fseeko(f, here, SEEK_SET) != 0 || end < here) return -1;
    return (int64_t)(end - here);
}

static tensor_status read_error(FILE *f, const char *what, uint64_t want, size_t got, const char *func) {
    if (ferror(f))
        return tensor_error(TENSOR_ERR_IO, "%s: cannot read the %s: %s", func, what, strerror(errno));
    return tensor_error(TENSOR_ERR_FORMAT, "%s: truncated .npy file: the %s needs %llu bytes, the file has %zu", func,
                        what, (unsigned long long)want, got);
}

/* Reads the header into *h, leaving f at the first element. */
static tensor_status read_header(FILE *f, tt_npy_header *h, int64_t *left, const char *func) {
    *left = bytes_left(f);
    uint8_t pre[TT_NPY_PREAMBLE_V2];
    size_t got = fread(pre, 1, sizeof pre, f);
    if (got < sizeof pre && ferror(f)) return read_error(f, "header", sizeof pre, got, func);
    if (got == 0) return tensor_error(TENSOR_ERR_FORMAT, "%s: empty file (not a .npy file)", func);
    size_t total = 0;
    if (tt_npy_header_size(pre, got, &total, func) != TENSOR_OK) return tensor_last_status();
    if (got > total) return tensor_error(TENSOR_ERR_FORMAT, "%s: .npy header length %zu is too short", func, total);
    uint8_t *buf = tt_malloc(total);
    if (buf == NULL) return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for the header", func);
    memcpy(buf, pre, got);
    size_t more = fread(buf + got, 1, total - got, f);
    tensor_status st = got + more < total ? read_error(f, "header", total, got + more, func)
                                          : tt_npy_parse_header(buf, total, h, func);
    free(buf);
    if (st == TENSOR_OK && *left >= 0) *left -= (int64_t)total;
    return st;
}

static void swap_bytes(uint8_t *p, int64_t n, size_t esize) {
    for (int64_t i = 0; i < n; i++, p += esize)
        for (size_t a = 0, b = esize - 1; a < b; a++, b--) {
            uint8_t t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

tensor_t *tt_npy_read(FILE *f, tensor_device device, const char *func) {
    tt_npy_header h = {0};
    int64_t left = -1;
    if (read_header(f, &h, &left, func) != TENSOR_OK) return NULL;
    /* Before allocating: a corrupt shape must not cost its size in memory. */
    if (left >= 0 && (uint64_t)left < h.data_bytes)
        return tensor_error_null(TENSOR_ERR_FORMAT,
                                 "%s: truncated .npy file: the header's shape needs %llu bytes of data, the file has "
                                 "%lld", func, (unsigned long long)h.data_bytes, (long long)left);
    /* The elements as they lie in the file: a Fortran-order file is the row-major tensor of
     * the reversed shape, seen through reversed dims below. */
    int64_t raw_shape[TENSOR_MAX_DIMS];
    for (int i = 0; i < h.ndim; i++) raw_shape[i] = h.fortran_order ? h.shape[h.ndim - 1 - i] : h.shape[i];
    tensor_t *t = tensor_new_contiguous(h.ndim, raw_shape, h.dtype, tensor_cpu(), func);
    if (t == NULL) return NULL;
    if (h.data_bytes > 0) {
        size_t got = fread(tensor_data(t), 1, (size_t)h.data_bytes, f);
        if (got < h.data_bytes) {
            read_error(f, "data", h.data_bytes, got, func);
            tensor_release(t);
            return NULL;
        }
    }
    const size_t esize = tensor_dtype_size(h.dtype);
    if (h.swap) swap_bytes(tensor_data(t), h.numel, esize);
    if (h.dtype == TENSOR_BOOL) {
        /* Kernels take a bool byte to be 0 or 1; numpy reads any other byte as true too. */
        uint8_t *b = tensor_data(t);
        for (int64_t i = 0; i < h.numel; i++) b[i] = b[i] != 0;
    }
    if (device.type != TENSOR_DEVICE_CPU) {
        tensor_t *d = tensor_copy_as(t, h.dtype, device, func);
        tensor_release(t);
        if (d == NULL) return NULL;
        t = d;
    }
    if (h.fortran_order && h.ndim > 1) {
        int perm[TENSOR_MAX_DIMS];
        for (int i = 0; i < h.ndim; i++) perm[i] = h.ndim - 1 - i;
        tensor_t *v = tensor_permute(t, perm);
        tensor_release(t);
        t = v;
    }
    return t;
}

tensor_t *tensor_load_npy(const char *path, tensor_device device) {
    const char *func = "tensor_load_npy";
    TENSOR_CHECK_NOT_NULL_P(path, func, "path");
    if (tensor_device_check(device, func) != TENSOR_OK) return NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return tensor_error_null(TENSOR_ERR_IO, "%s: cannot open '%s': %s", func, path, strerror(errno));
    tensor_t *t = tt_npy_read(f, device, func);
    fclose(f); /* read-only: nothing a failed close could lose */
    return t;
}

/* true when t is the transpose of a row-major tensor (column-major), with size-1 dims ignored. */
static bool column_major(const tensor_t *t) {
    int64_t expected = 1;
    for (int i = 0; i < t->ndim; i++) {
        if (t->sizes[i] == 1) continue;
        if (t->strides[i] != expected) return false;
        expected *= t->sizes[i];
    }
    return true;
}

tensor_status tt_npy_write(const tensor_t *t, FILE *f, const char *func) {
    /* Row-major as it is, column-major as it is (numpy's fortran_order, so a column-major
     * tensor comes back with its layout), anything else through a row-major host copy. */
    const bool cpu = t->storage->device.type == TENSOR_DEVICE_CPU;
    const bool fortran = cpu && t->ndim > 1 && !tensor_is_contiguous(t) && column_major(t);
    char header[1024];
    size_t hlen = 0;
    if (tt_npy_format_header(t->dtype, fortran, t->ndim, t->sizes, header, sizeof header, &hlen, func) != TENSOR_OK)
        return tensor_last_status();
    const tensor_t *src = t;
    tensor_t *copy = NULL;
    if (!cpu || (!fortran && !tensor_is_contiguous(t))) {
        copy = tensor_copy_as(t, t->dtype, tensor_cpu(), func);
        if (copy == NULL) return tensor_last_status();
        src = copy;
    }
    const size_t nbytes = (size_t)tensor_numel(src) * tensor_dtype_size(src->dtype);
    tensor_status st = TENSOR_OK;
    if (fwrite(header, 1, hlen, f) != hlen || (nbytes > 0 && fwrite(tensor_data(src), 1, nbytes, f) != nbytes))
        st = tensor_error(TENSOR_ERR_IO, "%s: cannot write: %s", func, strerror(errno));
    tensor_release(copy);
    return st;
}

tensor_status tensor_save_npy(const tensor_t *t, const char *path) {
    const char *func = "tensor_save_npy";
    TENSOR_CHECK_NOT_NULL(t, func, "t");
    TENSOR_CHECK_NOT_NULL(path, func, "path");
    /* Checked before the file is opened, so an unsavable dtype leaves an existing file alone. */
    char probe[1024];
    size_t plen = 0;
    if (tt_npy_format_header(t->dtype, false, t->ndim, t->sizes, probe, sizeof probe, &plen, func) != TENSOR_OK)
        return tensor_last_status();
    FILE *f = fopen(path, "wb");
    if (f == NULL) return tensor_error(TENSOR_ERR_IO, "%s: cannot open '%s' for writing: %s", func, path, strerror(errno));
    tensor_status st = tt_npy_write(t, f, func);
    /* The close flushes the buffered tail: a full disk shows up here. */
    if (fclose(f) != 0 && st == TENSOR_OK)
        st = tensor_error(TENSOR_ERR_IO, "%s: cannot write '%s': %s", func, path, strerror(errno));
    /* No half-written file that looks like an array; but only a regular file goes: the path
     * may name a device or a pipe. */
    struct stat sb;
    if (st != TENSOR_OK && stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) remove(path);
    return st;
}

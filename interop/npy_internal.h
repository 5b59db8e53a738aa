/* Internal: the .npy format in pieces (not installed). The header parser works on bytes in
 * memory so that the loader and the fuzz target (tests/fuzz/fuzz_npy.c) run the same code, and
 * the reader and writer work on any FILE * (a file, fmemopen, open_memstream).
 *
 * A .npy file: the magic "\x93NUMPY", major and minor version bytes, the header length
 * (little-endian: 2 bytes in version 1.0, 4 in 2.0 and 3.0), the header (a Python dict literal
 * with exactly the keys 'descr', 'fortran_order' and 'shape'; latin-1 in 1.0 and 2.0, UTF-8 in
 * 3.0), then the elements. */
#ifndef TENSOR_INTEROP_NPY_INTERNAL_H
#define TENSOR_INTEROP_NPY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes before the header text: magic, version, length (2 or 4 bytes). */
#define TT_NPY_PREAMBLE_V1 10
#define TT_NPY_PREAMBLE_V2 12
/* The longest header text accepted. The longest one a dtype we have can need is a few hundred
 * bytes (16 dims of 19 digits); the cap keeps a corrupt length from asking for gigabytes. */
#define TT_NPY_MAX_HEADER 65536

typedef struct tt_npy_header {
    int major, minor;
    tensor_dtype dtype;
    bool swap;          /* the elements' byte order is not the host's */
    bool fortran_order; /* elements in column-major order */
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
    int64_t numel;
    uint64_t data_offset; /* where the elements start: preamble + header text */
    uint64_t data_bytes;  /* numel * element size */
} tt_npy_header;

/* From the first len bytes of a file (TT_NPY_PREAMBLE_V2 are enough), the size of everything
 * before the elements. Errors: not a .npy file, an unknown version, a header longer than
 * TT_NPY_MAX_HEADER (TENSOR_ERR_FORMAT), each naming func. */
tensor_status tt_npy_header_size(const uint8_t *buf, size_t len, size_t *total, const char *func);

/* Parses the preamble and header in buf[0, len) (len may run on into the elements: only the
 * header is read). Never reads past buf + len. Errors name func: a malformed or truncated
 * header (TENSOR_ERR_FORMAT, with the byte offset of the problem), a descr naming a dtype we do
 * not have (TENSOR_ERR_DTYPE), more than TENSOR_MAX_DIMS dims (TENSOR_ERR_INVALID_ARGUMENT), a
 * shape or byte count that overflows int64 (TENSOR_ERR_OVERFLOW). */
tensor_status tt_npy_parse_header(const uint8_t *buf, size_t len, tt_npy_header *out, const char *func);

/* Writes the preamble and header numpy writes for these elements (version 1.0 while the header
 * fits 65535 bytes, else 2.0; padded with spaces to a multiple of 64 bytes, ending in '\n') into
 * buf of cap bytes; *len gets its length. Elements are in the host's byte order. Errors: a dtype
 * numpy does not have (bfloat16, float8: TENSOR_ERR_DTYPE), cap too small
 * (TENSOR_ERR_INVALID_ARGUMENT). */
tensor_status tt_npy_format_header(tensor_dtype dtype, bool fortran_order, int ndim, const int64_t *shape, char *buf,
                                   size_t cap, size_t *len, const char *func);

/* tensor_load_npy from an open stream positioned at the start of a file (the caller closes it). */
tensor_t *tt_npy_read(FILE *f, tensor_device device, const char *func);
/* tensor_save_npy into an open stream (the caller closes it and checks that close). */
tensor_status tt_npy_write(const tensor_t *t, FILE *f, const char *func);

#ifdef __cplusplus
}
#endif
#endif

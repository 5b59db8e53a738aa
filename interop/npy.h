/* .npy files (numpy's np.save / np.load format) for tensors.
 *
 * Dtypes: bool ('|b1'), uint8 ('|u1'), int8, int16, int32, int64 ('i1'..'i8'), float16,
 * float32, float64 ('f2', 'f4', 'f8'), in either byte order. bfloat16 and the float8 types have
 * no numpy dtype: saving one is refused (TENSOR_ERR_DTYPE); converting to float32 first
 * (tensor_to_dtype) is exact for them, and converting back after loading restores the bits. */
#ifndef TENSOR_INTEROP_NPY_H
#define TENSOR_INTEROP_NPY_H

#include "tinytensor/runtime/device.h"
#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/status.h"
#include "tinytensor/runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes t (borrowed; any layout, any device) to the file `path` (created or truncated) in
 * format version 1.0 with the host's byte order. A row-major tensor is written as it is, a
 * column-major one (the transpose of a row-major tensor, e.g. tensor_transpose of a 2-D one)
 * as it is with fortran_order True, as numpy does; anything else (other views, expanded dims,
 * CUDA tensors) through a row-major host copy. Errors: NULL t or path
 * (TENSOR_ERR_INVALID_ARGUMENT), bfloat16 or float8 (TENSOR_ERR_DTYPE; the file is not touched),
 * the file cannot be opened or written (TENSOR_ERR_IO, with the system's reason; a partly
 * written file is removed), host memory for the copy (TENSOR_ERR_OUT_OF_MEMORY). */
TENSOR_API tensor_status tensor_save_npy(const tensor_t *t, const char *path);

/* Reads the .npy file `path` (format 1.0, 2.0 or 3.0) into a new tensor on `device` (a new
 * reference; CUDA: read on the host, then copied). A C-order file gives a row-major tensor; a
 * Fortran-order file gives a column-major one (the file's bytes, unchanged, under strides that
 * reverse the dims: tensor_contiguous makes it row-major when needed). Big-endian data is
 * swapped to the host's order; bool bytes other than 0 and 1 read as true. Bytes after the
 * data are ignored (numpy writes several arrays to one stream that way).
 * Errors (NULL; the message names the reason): NULL path (TENSOR_ERR_INVALID_ARGUMENT), a bad
 * device (TENSOR_ERR_DEVICE), the file cannot be opened or read (TENSOR_ERR_IO), not a .npy
 * file, an unknown version, a malformed header, a header longer than 64 KiB, or a file shorter
 * than its header says (TENSOR_ERR_FORMAT; for a file that can seek, checked before any memory
 * for the data is taken: a pipe is read until it ends), a descr we do not have (complex,
 * structured, uint16, ...: TENSOR_ERR_DTYPE), more than TENSOR_MAX_DIMS dims
 * (TENSOR_ERR_INVALID_ARGUMENT), a shape whose element or byte count overflows int64
 * (TENSOR_ERR_OVERFLOW), memory (TENSOR_ERR_OUT_OF_MEMORY). */
TENSOR_API tensor_t *tensor_load_npy(const char *path, tensor_device device);

#ifdef __cplusplus
}
#endif
#endif

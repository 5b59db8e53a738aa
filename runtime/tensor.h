/* Tensors: an opaque, refcounted handle over a refcounted storage.
 *
 * Ownership, everywhere in this header:
 *  - A function that returns tensor_t * returns a NEW reference, or NULL on error (then
 *    tensor_last_error() says why). The caller owns it and must tensor_release() it.
 *  - A tensor_t * argument is BORROWED: the callee neither keeps nor releases it unless the
 *    comment says so. Views keep the storage alive by themselves, so the base tensor may be
 *    released while views of it live.
 *  - Sizes and strides are in elements; strides are >= 0 (negative strides are not supported).
 *  - The maximum rank is TENSOR_MAX_DIMS; a larger rank is TENSOR_ERR_INVALID_ARGUMENT.
 *  - Tensors are not synchronised: concurrent mutation of one tensor from two threads is a
 *    data race; retain/release are atomic and may be called from any thread. */
#ifndef TENSOR_TENSOR_H
#define TENSOR_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tinytensor/runtime/device.h"
#include "tinytensor/runtime/dtype.h"
#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TENSOR_MAX_DIMS 16

typedef struct tensor tensor_t;

/* ---- lifetime ---- */
/* Adds a reference; returns t. NULL is allowed and returns NULL. */
TENSOR_API tensor_t *tensor_retain(tensor_t *t);
/* Drops a reference; frees the handle at zero, and the storage when no view uses it.
 * NULL is a no-op. */
TENSOR_API void tensor_release(tensor_t *t);

/* ---- creation (all return a new reference) ---- */
/* Uninitialised contents. ndim may be 0 (a scalar; sizes may then be NULL). */
TENSOR_API tensor_t *tensor_empty(int ndim, const int64_t *sizes, tensor_dtype dtype, tensor_device device);
TENSOR_API tensor_t *tensor_zeros(int ndim, const int64_t *sizes, tensor_dtype dtype, tensor_device device);
TENSOR_API tensor_t *tensor_ones(int ndim, const int64_t *sizes, tensor_dtype dtype, tensor_device device);
/* Every element is `value` cast to dtype (tensor_dtype_store_double's rules). */
TENSOR_API tensor_t *tensor_full(int ndim, const int64_t *sizes, double value, tensor_dtype dtype, tensor_device device);
/* 1-D [start, end) with `step` (non-zero, sign must move start toward end), as torch.arange:
 * length ceil((end - start) / step). */
TENSOR_API tensor_t *tensor_arange(double start, double end, double step, tensor_dtype dtype, tensor_device device);
/* 1-D, `steps` >= 0 points from start to end inclusive, as torch.linspace. */
TENSOR_API tensor_t *tensor_linspace(double start, double end, int64_t steps, tensor_dtype dtype, tensor_device device);
/* Uniform [0, 1) / standard normal values from a counter-based generator: element i depends only
 * on (seed, i), so the same seed gives the same values on CPU and CUDA. Floating dtypes only. */
TENSOR_API tensor_t *tensor_rand(int ndim, const int64_t *sizes, uint64_t seed, tensor_dtype dtype, tensor_device device);
TENSOR_API tensor_t *tensor_randn(int ndim, const int64_t *sizes, uint64_t seed, tensor_dtype dtype, tensor_device device);
/* A contiguous tensor holding a COPY of `data` (host memory, numel * dtype size bytes, row-major). */
TENSOR_API tensor_t *tensor_from_buffer(const void *data, int ndim, const int64_t *sizes, tensor_dtype dtype,
                                        tensor_device device);
/* Wraps caller memory WITHOUT copying. `data` lives on `device`; `strides` may be NULL
 * (contiguous). The tensor borrows `data`: when the last view of it is released, `deleter`
 * (if not NULL) is called as deleter(data, deleter_ctx), exactly once; on failure the deleter
 * is NOT called and the caller keeps ownership. */
TENSOR_API tensor_t *tensor_from_blob(void *data, int ndim, const int64_t *sizes, const int64_t *strides,
                                      tensor_dtype dtype, tensor_device device,
                                      void (*deleter)(void *data, void *ctx), void *deleter_ctx);
/* Copies t's elements in logical row-major order into host memory `dst` of `dst_bytes` bytes
 * (must be >= numel * dtype size). Synchronises with the device for CUDA tensors. */
TENSOR_API tensor_status tensor_to_buffer(const tensor_t *t, void *dst, size_t dst_bytes);

/* ---- properties (borrow t; t must not be NULL for the value-returning ones) ---- */
TENSOR_API int tensor_ndim(const tensor_t *t);
/* size of `dim` (negative dims wrap); -1 and an error if out of range or t is NULL. */
TENSOR_API int64_t tensor_size(const tensor_t *t, int dim);
TENSOR_API int64_t tensor_stride(const tensor_t *t, int dim);
/* Borrowed pointers to ndim values, valid while t lives. */
TENSOR_API const int64_t *tensor_sizes(const tensor_t *t);
TENSOR_API const int64_t *tensor_strides(const tensor_t *t);
TENSOR_API int64_t tensor_numel(const tensor_t *t);
TENSOR_API int64_t tensor_storage_offset(const tensor_t *t); /* in elements */
TENSOR_API tensor_dtype tensor_get_dtype(const tensor_t *t);
TENSOR_API tensor_device tensor_get_device(const tensor_t *t);
/* Address of element [0,...,0] (host or device memory). Borrowed. NULL when numel is 0 may occur. */
TENSOR_API void *tensor_data(const tensor_t *t);
/* true if the strides are row-major for the sizes (size-1 dims are ignored, as in PyTorch). */
TENSOR_API bool tensor_is_contiguous(const tensor_t *t);
/* true if a and b share a storage. */
TENSOR_API bool tensor_shares_storage(const tensor_t *a, const tensor_t *b);

/* ---- views: share t's storage, copy nothing, return a new reference ---- */
/* dims is a permutation of 0..ndim-1 (negative entries wrap); ndim entries. */
TENSOR_API tensor_t *tensor_permute(const tensor_t *t, const int *dims);
TENSOR_API tensor_t *tensor_transpose(const tensor_t *t, int dim0, int dim1);
/* Elements [start, start+length) of dim. */
TENSOR_API tensor_t *tensor_narrow(const tensor_t *t, int dim, int64_t start, int64_t length);
/* Python's t[..., start:end:step, ...] on dim: step >= 1; start/end are clamped like Python
 * slices and may be negative (counted from the end). */
TENSOR_API tensor_t *tensor_slice(const tensor_t *t, int dim, int64_t start, int64_t end, int64_t step);
/* Removes dim, fixing it at index (negative wraps). */
TENSOR_API tensor_t *tensor_select(const tensor_t *t, int dim, int64_t index);
/* Broadcasts to `sizes` (ndim >= t's ndim; -1 keeps a size); expanded dims get stride 0. */
TENSOR_API tensor_t *tensor_expand(const tensor_t *t, int ndim, const int64_t *sizes);
/* Same elements, new shape; one size may be -1 (inferred). Fails (TENSOR_ERR_SHAPE) when the
 * strides make a view impossible; use tensor_reshape then. */
TENSOR_API tensor_t *tensor_view(const tensor_t *t, int ndim, const int64_t *sizes);
/* A view when strides allow, else a contiguous copy. */
TENSOR_API tensor_t *tensor_reshape(const tensor_t *t, int ndim, const int64_t *sizes);
/* Removes every size-1 dim. */
TENSOR_API tensor_t *tensor_squeeze(const tensor_t *t);
/* Removes dim if its size is 1, else returns a view equal to t (as PyTorch). */
TENSOR_API tensor_t *tensor_squeeze_dim(const tensor_t *t, int dim);
/* Inserts a size-1 dim at `dim` in [-(ndim+1), ndim]. */
TENSOR_API tensor_t *tensor_unsqueeze(const tensor_t *t, int dim);
/* Merges dims start..end (inclusive, wrapped) into one; a view when possible, else a copy. */
TENSOR_API tensor_t *tensor_flatten(const tensor_t *t, int start_dim, int end_dim);

/* ---- copies ---- */
/* t itself (retained) if contiguous, else a contiguous copy on the same device. */
TENSOR_API tensor_t *tensor_contiguous(const tensor_t *t);
/* Always a new contiguous copy on the same device. */
TENSOR_API tensor_t *tensor_clone(const tensor_t *t);
/* A copy on `device` (t retained when already there). */
TENSOR_API tensor_t *tensor_to_device(const tensor_t *t, tensor_device device);
/* A copy converted to `dtype` with PyTorch's cast rules (t retained when already that dtype). */
TENSOR_API tensor_t *tensor_to_dtype(const tensor_t *t, tensor_dtype dtype);

/* ---- resizing (PyTorch's t.resize_(sizes)) ---- */
/* Gives t (borrowed, changed in place: every holder of this handle sees it) the shape `sizes`
 * (ndim entries; NULL allowed when ndim is 0) with row-major strides, keeping its dtype, device,
 * storage and storage offset. A shape equal to t's is a no-op (its strides are kept, even if
 * not row-major). When t's storage is too small for offset + numel elements, the storage is
 * grown in place: a larger block receives the old bytes and replaces the old one for EVERY
 * tensor sharing that storage (their shapes, strides and values are kept; as in PyTorch, other
 * views therefore stay valid, but pointers from an earlier tensor_data() do not). The new
 * elements are uninitialised. Errors (t unchanged): a NULL t, a negative size or ndim outside
 * [0, TENSOR_MAX_DIMS] (TENSOR_ERR_INVALID_ARGUMENT), sizes whose element or byte count overflows
 * (TENSOR_ERR_OVERFLOW), a storage that must grow but wraps caller memory (tensor_from_blob:
 * TENSOR_ERR_INVALID_ARGUMENT, "not resizable": we cannot reallocate memory we do not own; so is a
 * storage exported through DLPack while the export lives: the consumer holds its address),
 * and a failed allocation (TENSOR_ERR_OUT_OF_MEMORY). Not synchronised: resizing a tensor
 * while another thread uses a tensor of the same storage is a data race. */
TENSOR_API tensor_status tensor_resize_(tensor_t *t, int ndim, const int64_t *sizes);

/* ---- printing ---- */
/* Formats t the way PyTorch's print(t) does (repr: "tensor([[1., 2.],\n        [3., 4.]])",
 * with dtype/device suffixes as PyTorch shows them). Writes at most `size` bytes including the
 * NUL into buf (buf may be NULL when size is 0) and returns the full length the text needs
 * (excluding the NUL), like snprintf; -1 on error. */
TENSOR_API int64_t tensor_format(const tensor_t *t, char *buf, size_t size);
/* tensor_format then fputs to `stream`, followed by a newline. */
TENSOR_API tensor_status tensor_print(const tensor_t *t, FILE *stream);

#ifdef __cplusplus
}
#endif
#endif

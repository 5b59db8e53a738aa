/* Internal: the tensor struct, shared by runtime/, iterator/, ops/, cpu/ and cuda/ host code.
 * Not installed; users see only the opaque tensor_t. */
#ifndef TENSOR_TENSOR_IMPL_H
#define TENSOR_TENSOR_IMPL_H

#include <stdatomic.h>

#include "runtime/storage.h"
#include "runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tensor {
    atomic_long refcount;
    tensor_storage *storage; /* one reference held */
    int64_t offset;          /* in elements, from storage->data */
    int ndim;
    tensor_dtype dtype;
    int64_t sizes[TENSOR_MAX_DIMS];
    int64_t strides[TENSOR_MAX_DIMS]; /* in elements, >= 0 */
};

/* A new handle over `storage` (which it retains) with the given geometry; no checks beyond
 * allocation. Returns NULL (last error set, naming func) on host OOM. */
tensor_t *tensor_make(tensor_storage *storage, int64_t offset, int ndim, const int64_t *sizes,
                      const int64_t *strides, tensor_dtype dtype, const char *func);

/* Validates a shape (ndim in [0, TENSOR_MAX_DIMS], sizes >= 0, product fits int64) and
 * writes numel. Errors name func. */
tensor_status tensor_check_shape(int ndim, const int64_t *sizes, int64_t *numel, const char *func);

/* Wraps dim into [0, ndim) or records TENSOR_ERR_INDEX with PyTorch's message
 * ("func: Dimension out of range (expected to be in range of [-2, 1], but got 2)").
 * A 0-d tensor is treated as ndim 1 when wrap_scalar is true. */
tensor_status tensor_wrap_dim(int dim, int ndim, bool wrap_scalar, int *out, const char *func);

/* tensor_resize_ with errors naming func. */
tensor_status tensor_resize_impl(tensor_t *t, int ndim, const int64_t *sizes, const char *func);

/* PyTorch's at::native::resize_output for out= arguments: nothing when out already has the
 * shape `sizes`; otherwise out is resized (tensor_resize_impl) to it, with a warning
 * (tensor_warn) when out had elements, silently when it was empty. *resized (may be NULL)
 * says whether it was. */
tensor_status tensor_resize_output(tensor_t *out, int ndim, const int64_t *sizes, const char *func, bool *resized);

/* "[2, 3]" into buf (always NUL-terminated); returns buf. */
char *tensor_format_shape(char *buf, size_t size, int ndim, const int64_t *sizes);

/* Row-major strides for sizes. */
void tensor_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides);

/* tensor_empty, with errors naming func (for library functions that allocate a result). */
tensor_t *tensor_new_contiguous(int ndim, const int64_t *sizes, tensor_dtype dtype, tensor_device device,
                                const char *func);

/* A new contiguous copy of src (any layout, any device) converted to dtype on device; errors
 * name func. The engine behind clone/contiguous/to_device/to_dtype and reshape's copy. */
tensor_t *tensor_copy_as(const tensor_t *src, tensor_dtype dtype, tensor_device device, const char *func);

/* Copies src into dst elementwise (same shape, any strides, any dtypes, both CPU), with
 * tensor_dtype_store_double / int64 rules. The general CPU path used by clone/contiguous/to. */
tensor_status tensor_copy_cpu(tensor_t *dst, const tensor_t *src, const char *func);

#ifdef __cplusplus
}
#endif
#endif

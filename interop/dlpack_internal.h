/* Internal: what DLPack export and import share (not installed). */
#ifndef TENSOR_INTEROP_DLPACK_INTERNAL_H
#define TENSOR_INTEROP_DLPACK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "interop/dlpack.h"
#include "runtime/storage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything one export owns, in one allocation: the managed struct handed out (first member,
 * so its address is the context's), the storage reference and the arrays its DLTensor points
 * to. */
typedef struct tt_dlpack_export {
    union {
        DLManagedTensorVersioned versioned;
        DLManagedTensor legacy;
    } m;
    tensor_storage *storage; /* one reference, and one count in storage->exports */
    int64_t offset;          /* the exported view's, in elements (kept for views without elements) */
    tensor_dtype dtype;
    int64_t shape[TENSOR_MAX_DIMS];
    int64_t strides[TENSOR_MAX_DIMS];
} tt_dlpack_export;

/* The deleters of our exports; import compares against them to recognise its own. */
void tt_dlpack_delete_versioned(DLManagedTensorVersioned *self);
void tt_dlpack_delete_legacy(DLManagedTensor *self);

/* tensor_dtype_from_dlpack with errors naming func. */
tensor_status tt_dlpack_dtype_from(DLDataType dt, tensor_dtype *out, const char *func);

/* A foreign DLTensor checked and translated: what a tensor over it needs. */
typedef struct tt_dlpack_layout {
    tensor_device device;
    tensor_dtype dtype;
    int ndim;
    int64_t sizes[TENSOR_MAX_DIMS];
    int64_t strides[TENSOR_MAX_DIMS]; /* in elements, >= 0 */
    int64_t numel;
    char *first;   /* element [0, ..., 0]: data + byte_offset; NULL when numel is 0 */
    size_t nbytes; /* bytes from `first` that the view can reach (0 when numel is 0) */
} tt_dlpack_layout;

/* Checks every field of dl that a tensor over it depends on (tensor_from_dlpack_versioned's list
 * of refusals) and fills *out. Reads shape and strides only once ndim is known to be in range.
 * Errors name func. */
tensor_status tt_dlpack_layout_of(const DLTensor *dl, tt_dlpack_layout *out, const char *func);

#ifdef __cplusplus
}
#endif
#endif

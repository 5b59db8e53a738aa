/* The tensor handle: lifetime, geometry checks, and read-only properties. */
#include <stdlib.h>
#include <string.h>

#include "runtime/alloc.h"
#include "runtime/error.h"
#include "runtime/tensor_impl.h"

tensor_t *tensor_make(tensor_storage *storage, int64_t offset, int ndim, const int64_t *sizes,
                      const int64_t *strides, tensor_dtype dtype, const char *func) {
    /* malloc and every field set, not calloc: glibc's calloc (2.36 here) skips the per-thread
     * cache, and with the storage's it was a tenth of a tiny reduction's instructions
     * (callgrind). Not malloc + memset either: compilers fuse those back into calloc. */
    tensor_t *t = tt_malloc(sizeof *t);
    if (t == NULL) return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for a tensor", func);
    atomic_init(&t->refcount, 1);
    tensor_storage_retain(storage);
    t->storage = storage;
    t->offset = offset;
    t->ndim = ndim;
    t->dtype = dtype;
    for (int i = 0; i < TENSOR_MAX_DIMS; i++) {
        t->sizes[i] = i < ndim ? sizes[i] : 0;
        t->strides[i] = i < ndim ? strides[i] : 0;
    }
    return t;
}

tensor_t *tensor_retain(tensor_t *t) {
    if (t) atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed);
    return t;
}

void tensor_release(tensor_t *t) {
    if (t == NULL) return;
    if (atomic_fetch_sub_explicit(&t->refcount, 1, memory_order_acq_rel) != 1) return;
    tensor_storage_release(t->storage);
    free(t);
}

tensor_status tensor_check_shape(int ndim, const int64_t *sizes, int64_t *numel, const char *func) {
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: ndim %d is outside [0, %d] (TENSOR_MAX_DIMS)", func, ndim,
                            TENSOR_MAX_DIMS);
    if (ndim > 0 && sizes == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'sizes' is NULL with ndim %d", func, ndim);
    int64_t n = 1;
    bool zero = false;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0)
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: negative size %lld at dim %d", func,
                                (long long)sizes[i], i);
        if (sizes[i] == 0) zero = true;
    }
    /* Overflow is checked over the non-zero sizes even when some size is zero: [0, 2^62, 2^62]
     * has numel 0 but its contiguous strides (products of max(size, 1)) would overflow, so it is
     * TENSOR_ERR_OVERFLOW. Every stride tensor_contiguous_strides computes then fits int64. */
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] == 0) continue;
        if (__builtin_mul_overflow(n, sizes[i], &n))
            return tensor_error(TENSOR_ERR_OVERFLOW, "%s: the product of sizes overflows int64 at dim %d", func, i);
    }
    if (numel) *numel = zero ? 0 : n;
    return TENSOR_OK;
}

tensor_status tensor_wrap_dim(int dim, int ndim, bool wrap_scalar, int *out, const char *func) {
    int n = ndim;
    if (n == 0 && wrap_scalar) n = 1;
    if (n == 0)
        return tensor_error(TENSOR_ERR_INDEX, "%s: dimension specified as %d but tensor has no dimensions", func, dim);
    if (dim < -n || dim >= n)
        return tensor_error(TENSOR_ERR_INDEX, "%s: Dimension out of range (expected to be in range of [%d, %d], but got %d)",
                            func, -n, n - 1, dim);
    *out = dim < 0 ? dim + n : dim;
    return TENSOR_OK;
}

void tensor_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides) {
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = s;
        /* A zero size must not zero the strides of outer dims (PyTorch keeps max(size, 1)). */
        s *= sizes[i] > 1 ? sizes[i] : 1;
    }
}

int tensor_ndim(const tensor_t *t) { return t ? t->ndim : -1; }

int64_t tensor_size(const tensor_t *t, int dim) {
    if (t == NULL) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_size: argument 't' is NULL");
        return -1;
    }
    int d = 0;
    if (tensor_wrap_dim(dim, t->ndim, false, &d, "tensor_size") != TENSOR_OK) return -1;
    return t->sizes[d];
}

int64_t tensor_stride(const tensor_t *t, int dim) {
    if (t == NULL) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_stride: argument 't' is NULL");
        return -1;
    }
    int d = 0;
    if (tensor_wrap_dim(dim, t->ndim, false, &d, "tensor_stride") != TENSOR_OK) return -1;
    return t->strides[d];
}

const int64_t *tensor_sizes(const tensor_t *t) { return t ? t->sizes : NULL; }
const int64_t *tensor_strides(const tensor_t *t) { return t ? t->strides : NULL; }

int64_t tensor_numel(const tensor_t *t) {
    if (t == NULL) return 0;
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++) n *= t->sizes[i];
    return n;
}

int64_t tensor_storage_offset(const tensor_t *t) { return t ? t->offset : 0; }
tensor_dtype tensor_get_dtype(const tensor_t *t) { return t ? t->dtype : TENSOR_NUM_DTYPES; }
tensor_device tensor_get_device(const tensor_t *t) { return t ? t->storage->device : tensor_cpu(); }

void *tensor_data(const tensor_t *t) {
    if (t == NULL || t->storage->data == NULL) return NULL;
    return (char *)t->storage->data + t->offset * (int64_t)tensor_dtype_size(t->dtype);
}

bool tensor_is_contiguous(const tensor_t *t) {
    if (t == NULL) return false;
    /* An empty tensor is contiguous whatever its strides (PyTorch), wherever the zero size is:
     * look for it before comparing any stride. */
    for (int i = 0; i < t->ndim; i++)
        if (t->sizes[i] == 0) return true;
    int64_t expected = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->sizes[i] == 1) continue;
        if (t->strides[i] != expected) return false;
        expected *= t->sizes[i];
    }
    return true;
}

bool tensor_shares_storage(const tensor_t *a, const tensor_t *b) {
    return a && b && a->storage == b->storage;
}

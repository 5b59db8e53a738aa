/* DLPack import: a tensor over another library's memory, whose storage calls that library's
 * deleter at the end. Import owns the managed struct from the first line on: every path out,
 * error or not, either hands it to a storage or calls its deleter. */
#include <stdlib.h>

#include "cuda/cuda_backend.h"
#include "interop/dlpack_internal.h"
#include "runtime/error.h"
#include "runtime/tensor_impl.h"

tensor_status tt_dlpack_layout_of(const DLTensor *dl, tt_dlpack_layout *out, const char *func) {
    switch (dl->device.device_type) {
    case kDLCPU: out->device = tensor_cpu(); break;
    case kDLCUDA:
        out->device = tensor_cuda(dl->device.device_id);
        if (tensor_device_check(out->device, func) != TENSOR_OK) return TENSOR_ERR_DEVICE;
        break;
    default:
        return tensor_error(TENSOR_ERR_DEVICE,
                            "%s: dl_tensor.device {type %d, id %d}: only kDLCPU (1) and kDLCUDA (2) are supported",
                            func, (int)dl->device.device_type, (int)dl->device.device_id);
    }
    if (tt_dlpack_dtype_from(dl->dtype, &out->dtype, func) != TENSOR_OK) return TENSOR_ERR_DTYPE;
    if (dl->ndim < 0 || dl->ndim > TENSOR_MAX_DIMS)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: dl_tensor.ndim %d is outside [0, %d] (TENSOR_MAX_DIMS)",
                            func, (int)dl->ndim, TENSOR_MAX_DIMS);
    out->ndim = dl->ndim;
    if (out->ndim > 0 && dl->shape == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: dl_tensor.shape is NULL with ndim %d", func, out->ndim);
    for (int i = 0; i < out->ndim; i++) out->sizes[i] = dl->shape[i];
    if (tensor_check_shape(out->ndim, out->sizes, &out->numel, func) != TENSOR_OK) return tensor_last_status();

    int64_t rowmajor[TENSOR_MAX_DIMS];
    tensor_contiguous_strides(out->ndim, out->sizes, rowmajor);
    for (int i = 0; i < out->ndim; i++) {
        int64_t s = dl->strides ? dl->strides[i] : rowmajor[i];
        if (s < 0) {
            /* A dim of one element (or a tensor of none) never steps: the stride means nothing,
             * and producers that compute it from a reversed view may leave it negative. */
            if (out->sizes[i] > 1 && out->numel > 0)
                return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                    "%s: dl_tensor.strides[%d] is %lld (negative strides are not supported)", func, i,
                                    (long long)s);
            s = rowmajor[i];
        }
        out->strides[i] = s;
    }

    out->first = NULL;
    out->nbytes = 0;
    if (out->numel == 0) return TENSOR_OK;
    int64_t last = 0; /* element offset of the last element the view reaches */
    for (int i = 0; i < out->ndim; i++) {
        int64_t term;
        if (__builtin_mul_overflow(out->sizes[i] - 1, out->strides[i], &term) ||
            __builtin_add_overflow(last, term, &last))
            return tensor_error(TENSOR_ERR_OVERFLOW, "%s: dl_tensor shape and strides overflow int64 at dim %d", func, i);
    }
    const int64_t esize = (int64_t)tensor_dtype_size(out->dtype);
    int64_t nbytes;
    if (__builtin_add_overflow(last, 1, &nbytes) || __builtin_mul_overflow(nbytes, esize, &nbytes))
        return tensor_error(TENSOR_ERR_OVERFLOW, "%s: dl_tensor's byte extent overflows int64", func);
    if (dl->data == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: dl_tensor.data is NULL for %lld elements", func,
                            (long long)out->numel);
    uintptr_t first;
    if (__builtin_add_overflow((uintptr_t)dl->data, dl->byte_offset, &first) ||
        first + (uintptr_t)nbytes < first)
        return tensor_error(TENSOR_ERR_OVERFLOW, "%s: dl_tensor.data + byte_offset %llu overflows the address space",
                            func, (unsigned long long)dl->byte_offset);
    /* Kernels load whole elements through typed pointers: a misaligned one is undefined
     * behaviour (and a fault on some targets), so such memory is refused, not copied. */
    if (first % (uintptr_t)esize != 0)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                            "%s: dl_tensor.data + byte_offset (%p + %llu) is not aligned to the %lld-byte elements of %s",
                            func, dl->data, (unsigned long long)dl->byte_offset, (long long)esize,
                            tensor_dtype_name(out->dtype));
    out->first = (char *)first;
    out->nbytes = (size_t)nbytes;
    return TENSOR_OK;
}

/* What the storage of an import calls at the end: our queued work on the memory finishes
 * before the producer may reuse it, then the producer's deleter. */
static void release_versioned(void *data, void *ctx) {
    (void)data;
    DLManagedTensorVersioned *m = ctx;
    if (m->dl_tensor.device.device_type == kDLCUDA) tt_cuda_device_sync_quiet(m->dl_tensor.device.device_id);
    if (m->deleter) m->deleter(m);
}

static void release_legacy(void *data, void *ctx) {
    (void)data;
    DLManagedTensor *m = ctx;
    if (m->dl_tensor.device.device_type == kDLCUDA) tt_cuda_device_sync_quiet(m->dl_tensor.device.device_id);
    if (m->deleter) m->deleter(m);
}

/* Our own export coming back: *out becomes a view of the original storage when the DLTensor
 * still lies inside it (a consumer may have narrowed it), else stays NULL. Fails only for
 * host memory. */
static tensor_status own_view(const tt_dlpack_export *ctx, const tt_dlpack_layout *l, tensor_t **out,
                              const char *func) {
    *out = NULL;
    tensor_storage *s = ctx->storage;
    if (!tensor_device_equal(s->device, l->device)) return TENSOR_OK;
    const int64_t esize = (int64_t)tensor_dtype_size(l->dtype);
    int64_t offset = l->dtype == ctx->dtype ? ctx->offset : 0; /* for a view without elements */
    if (l->numel > 0) {
        /* addresses as integers: the two pointers need not point into one object */
        const uintptr_t base = (uintptr_t)s->data, first = (uintptr_t)l->first;
        if (s->data == NULL || first < base) return TENSOR_OK;
        const uintptr_t delta = first - base;
        if (delta % (uintptr_t)esize != 0 || delta > s->nbytes || l->nbytes > s->nbytes - delta) return TENSOR_OK;
        offset = (int64_t)(delta / (uintptr_t)esize);
    }
    *out = tensor_make(s, offset, l->ndim, l->sizes, l->strides, l->dtype, func);
    return *out != NULL ? TENSOR_OK : TENSOR_ERR_OUT_OF_MEMORY;
}

/* The common import: m is the managed struct (owned), dl its tensor, drop(m) calls its deleter
 * without any wait, release is the storage's end, own_ctx our export context if m is ours. */
static tensor_t *import(void *m, const DLTensor *dl, void (*drop)(void *m), void (*release)(void *, void *),
                        const tt_dlpack_export *own_ctx, const char *func) {
    tt_dlpack_layout l = {0};
    if (tt_dlpack_layout_of(dl, &l, func) != TENSOR_OK) {
        drop(m);
        return NULL;
    }
    if (own_ctx != NULL) {
        tensor_t *t = NULL;
        tensor_status st = own_view(own_ctx, &l, &t, func);
        if (st != TENSOR_OK || t != NULL) {
            drop(m); /* the view holds its own reference; the export's goes */
            return t;
        }
    }
    tensor_storage *s = tensor_storage_wrap(l.first, l.nbytes, l.device, NULL, NULL, func);
    if (s == NULL) {
        drop(m);
        return NULL;
    }
    tensor_t *t = tensor_make(s, 0, l.ndim, l.sizes, l.strides, l.dtype, func);
    if (t == NULL) {
        tensor_storage_release(s); /* no deleter attached yet: m is still ours to drop */
        drop(m);
        return NULL;
    }
    s->deleter = release;
    s->deleter_ctx = m;
    tensor_storage_release(s);
    return t;
}

static void drop_versioned(void *p) {
    DLManagedTensorVersioned *m = p;
    if (m->deleter) m->deleter(m);
}

static void drop_legacy(void *p) {
    DLManagedTensor *m = p;
    if (m->deleter) m->deleter(m);
}

tensor_t *tensor_from_dlpack_versioned(DLManagedTensorVersioned *m) {
    const char *func = "tensor_from_dlpack_versioned";
    TENSOR_CHECK_NOT_NULL_P(m, func, "m");
    if (m->version.major != TENSOR_DLPACK_MAJOR) {
        /* Only the deleter is known to be where we look for it. */
        tensor_error(TENSOR_ERR_NOT_IMPLEMENTED, "%s: DLPack version %u.%u: this library reads major version %d", func,
                     m->version.major, m->version.minor, TENSOR_DLPACK_MAJOR);
        drop_versioned(m);
        return NULL;
    }
    const tt_dlpack_export *own = m->deleter == tt_dlpack_delete_versioned ? m->manager_ctx : NULL;
    return import(m, &m->dl_tensor, drop_versioned, release_versioned, own, func);
}

tensor_t *tensor_from_dlpack(DLManagedTensor *m) {
    const char *func = "tensor_from_dlpack";
    TENSOR_CHECK_NOT_NULL_P(m, func, "m");
    const tt_dlpack_export *own = m->deleter == tt_dlpack_delete_legacy ? m->manager_ctx : NULL;
    return import(m, &m->dl_tensor, drop_legacy, release_legacy, own, func);
}

/* Copies between layouts, dtypes and devices. The general CPU path walks both tensors with an
 * index counter and converts element by element; CUDA -> CUDA copies that are not one plain
 * memcpy run on the CUDA elementwise engine (tensor_cuda_copy, cuda/copy.cu). */
#include <string.h>

#include "cuda/cuda_backend.h"
#include "runtime/error.h"
#include "runtime/tensor_impl.h"

static bool is_integral_or_bool(tensor_dtype d) { return !tensor_dtype_is_floating(d); }

tensor_status tensor_copy_cpu(tensor_t *dst, const tensor_t *src, const char *func) {
    int64_t numel = tensor_numel(src);
    bool same_shape = dst->ndim == src->ndim;
    for (int i = 0; same_shape && i < src->ndim; i++) same_shape = dst->sizes[i] == src->sizes[i];
    if (!same_shape) return tensor_error(TENSOR_ERR_SHAPE, "%s: copy between tensors of different shapes", func);
    if (numel == 0) return TENSOR_OK;
    size_t dsz = tensor_dtype_size(dst->dtype), ssz = tensor_dtype_size(src->dtype);
    char *dbase = tensor_data(dst);
    const char *sbase = tensor_data(src);
    bool same = dst->dtype == src->dtype;
    if (same && tensor_is_contiguous(dst) && tensor_is_contiguous(src)) {
        memmove(dbase, sbase, (size_t)numel * dsz);
        return TENSOR_OK;
    }
    /* Integers go through int64 so that values above 2^53 survive. */
    bool via_int = is_integral_or_bool(dst->dtype) && is_integral_or_bool(src->dtype);
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    int64_t doff = 0, soff = 0;
    int nd = src->ndim;
    for (int64_t i = 0; i < numel; i++) {
        char *d = dbase + doff * (int64_t)dsz;
        const char *s = sbase + soff * (int64_t)ssz;
        if (same)
            memcpy(d, s, dsz);
        else if (via_int)
            tensor_dtype_store_int64(dst->dtype, d, tensor_dtype_load_int64(src->dtype, s));
        else
            tensor_dtype_store_double(dst->dtype, d, tensor_dtype_load_double(src->dtype, s));
        for (int k = nd - 1; k >= 0; k--) {
            if (++idx[k] < src->sizes[k]) {
                doff += dst->strides[k];
                soff += src->strides[k];
                break;
            }
            doff -= dst->strides[k] * (src->sizes[k] - 1);
            soff -= src->strides[k] * (src->sizes[k] - 1);
            idx[k] = 0;
        }
    }
    return TENSOR_OK;
}


/* A CPU tensor with src's sizes and strides over a host copy of the device memory src spans
 * (from its first to its last element): one download, then any layout or dtype work happens
 * on the host. Expanded (stride 0) dims cost nothing, since the span covers each element once. */
static tensor_t *download_span(const tensor_t *src, const char *func) {
    int64_t extent = 1;
    for (int d = 0; d < src->ndim; d++) extent += (src->sizes[d] - 1) * src->strides[d];
    size_t esize = tensor_dtype_size(src->dtype);
    tensor_storage *s = tensor_storage_new((size_t)extent * esize, tensor_cpu(), func);
    if (s == NULL) return NULL;
    tensor_status st = tensor_memcpy(s->data, tensor_cpu(), tensor_data(src), src->storage->device,
                                     (size_t)extent * esize, func);
    tensor_t *t = st == TENSOR_OK ? tensor_make(s, 0, src->ndim, src->sizes, src->strides, src->dtype, func) : NULL;
    tensor_storage_release(s);
    return t;
}

/* Copies src (any layout, any device) into a new contiguous tensor of dtype on device. */
tensor_t *tensor_copy_as(const tensor_t *src, tensor_dtype dtype, tensor_device device, const char *func) {
    if (tensor_device_check(device, func) != TENSOR_OK) return NULL;
    if (!tensor_dtype_is_valid(dtype)) return tensor_error_null(TENSOR_ERR_DTYPE, "%s: unknown dtype %d", func, (int)dtype);
    tensor_device sdev = src->storage->device;
    bool src_cpu = sdev.type == TENSOR_DEVICE_CPU, dst_cpu = device.type == TENSOR_DEVICE_CPU;
    tensor_t *out = tensor_new_contiguous(src->ndim, src->sizes, dtype, device, func);
    if (out == NULL) return NULL;
    tensor_status st = TENSOR_OK;
    if (src_cpu && dst_cpu) {
        st = tensor_copy_cpu(out, src, func);
    } else if (tensor_is_contiguous(src) && src->dtype == dtype) {
        st = tensor_memcpy(tensor_data(out), device, tensor_data(src), sdev,
                           (size_t)tensor_numel(src) * tensor_dtype_size(dtype), func);
    } else if (src_cpu) {
        /* Host side does the layout and dtype work, then one contiguous upload. */
        tensor_t *staged = tensor_copy_as(src, dtype, tensor_cpu(), func);
        if (staged == NULL) st = tensor_last_status();
        else {
            st = tensor_memcpy(tensor_data(out), device, tensor_data(staged), tensor_cpu(),
                               (size_t)tensor_numel(src) * tensor_dtype_size(dtype), func);
            tensor_release(staged);
        }
    } else if (dst_cpu) {
        /* Download what src spans, then gather and convert on the host. */
        tensor_t *staged = tensor_numel(src) == 0 ? NULL : download_span(src, func);
        if (tensor_numel(src) == 0)
            st = TENSOR_OK;
        else if (staged == NULL)
            st = tensor_last_status();
        else {
            st = tensor_copy_cpu(out, staged, func);
            tensor_release(staged);
        }
    } else if (tensor_device_equal(sdev, device)) {
        /* Layout and dtype work on the device, in one kernel: nothing is staged. */
        st = tensor_cuda_copy(out, src, func);
    } else {
        /* Another CUDA device: gather and convert on src's device, then one peer copy. */
        tensor_t *staged = tensor_copy_as(src, dtype, sdev, func);
        if (staged == NULL) st = tensor_last_status();
        else {
            st = tensor_memcpy(tensor_data(out), device, tensor_data(staged), sdev,
                               (size_t)tensor_numel(src) * tensor_dtype_size(dtype), func);
            tensor_release(staged);
        }
    }
    if (st != TENSOR_OK) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

tensor_t *tensor_contiguous(const tensor_t *t) {
    TENSOR_CHECK_NOT_NULL_P(t, "tensor_contiguous", "t");
    if (tensor_is_contiguous(t)) return tensor_retain((tensor_t *)t);
    return tensor_copy_as(t, t->dtype, t->storage->device, "tensor_contiguous");
}

tensor_t *tensor_clone(const tensor_t *t) {
    TENSOR_CHECK_NOT_NULL_P(t, "tensor_clone", "t");
    return tensor_copy_as(t, t->dtype, t->storage->device, "tensor_clone");
}

tensor_t *tensor_to_device(const tensor_t *t, tensor_device device) {
    TENSOR_CHECK_NOT_NULL_P(t, "tensor_to_device", "t");
    if (tensor_device_check(device, "tensor_to_device") != TENSOR_OK) return NULL;
    if (tensor_device_equal(device, t->storage->device)) return tensor_retain((tensor_t *)t);
    return tensor_copy_as(t, t->dtype, device, "tensor_to_device");
}

tensor_t *tensor_to_dtype(const tensor_t *t, tensor_dtype dtype) {
    TENSOR_CHECK_NOT_NULL_P(t, "tensor_to_dtype", "t");
    if (!tensor_dtype_is_valid(dtype))
        return tensor_error_null(TENSOR_ERR_DTYPE, "tensor_to_dtype: unknown dtype %d", (int)dtype);
    if (dtype == t->dtype) return tensor_retain((tensor_t *)t);
    return tensor_copy_as(t, dtype, t->storage->device, "tensor_to_dtype");
}

tensor_status tensor_to_buffer(const tensor_t *t, void *dst, size_t dst_bytes) {
    const char *func = "tensor_to_buffer";
    TENSOR_CHECK_NOT_NULL(t, func, "t");
    int64_t numel = tensor_numel(t);
    size_t need;
    /* An expanded (stride 0) tensor may have more elements than any buffer can hold. */
    if (__builtin_mul_overflow((size_t)numel, tensor_dtype_size(t->dtype), &need))
        return tensor_error(TENSOR_ERR_OVERFLOW, "%s: %lld elements of %s overflow the byte count", func,
                            (long long)numel, tensor_dtype_name(t->dtype));
    if (numel > 0) TENSOR_CHECK_NOT_NULL(dst, func, "dst");
    if (dst_bytes < need)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: dst_bytes %zu is smaller than the %zu bytes of t", func,
                            dst_bytes, need);
    if (numel == 0) return TENSOR_OK;
    tensor_device dev = t->storage->device;
    if (tensor_is_contiguous(t)) return tensor_memcpy(dst, tensor_cpu(), tensor_data(t), dev, need, func);
    tensor_t *host_src = dev.type == TENSOR_DEVICE_CPU ? tensor_retain((tensor_t *)t) : download_span(t, func);
    if (host_src == NULL) return tensor_last_status();
    /* A contiguous tensor over the caller's buffer receives the strided copy directly. */
    tensor_storage *s = tensor_storage_wrap(dst, need, tensor_cpu(), NULL, NULL, func);
    if (s == NULL) {
        tensor_release(host_src);
        return tensor_last_status();
    }
    int64_t strides[TENSOR_MAX_DIMS];
    tensor_contiguous_strides(t->ndim, t->sizes, strides);
    tensor_t *view = tensor_make(s, 0, t->ndim, t->sizes, strides, t->dtype, func);
    tensor_storage_release(s);
    if (view == NULL) {
        tensor_release(host_src);
        return tensor_last_status();
    }
    tensor_status st = tensor_copy_cpu(view, host_src, func);
    tensor_release(view);
    tensor_release(host_src);
    return st;
}

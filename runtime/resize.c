/* Resizing a tensor in place (tensor_resize_) and PyTorch's resize_output rule for out=
 * arguments (tensor_resize_output): PyTorch's resize_impl_cpu_ / maybe_resize_storage_cpu /
 * resize_output, for our handle and storage model (runtime/tensor_impl.h, runtime/storage.h). */
#include <stdio.h>
#include <string.h>

#include "runtime/error.h"
#include "runtime/tensor_impl.h"

char *tensor_format_shape(char *buf, size_t size, int ndim, const int64_t *sizes) {
    size_t used = 0;
    buf[0] = '\0';
    int n = snprintf(buf, size, "[");
    for (int d = 0; d < ndim && n >= 0; d++) {
        used += (size_t)n;
        if (used >= size) return buf;
        n = snprintf(buf + used, size - used, d ? ", %lld" : "%lld", (long long)sizes[d]);
    }
    if (n >= 0 && (used += (size_t)n) < size) snprintf(buf + used, size - used, "]");
    return buf;
}

static bool same_sizes(const tensor_t *t, int ndim, const int64_t *sizes) {
    if (t->ndim != ndim) return false;
    for (int d = 0; d < ndim; d++)
        if (t->sizes[d] != sizes[d]) return false;
    return true;
}

tensor_status tensor_resize_impl(tensor_t *t, int ndim, const int64_t *sizes, const char *func) {
    TENSOR_CHECK_NOT_NULL(t, func, "t");
    int64_t numel;
    if (tensor_check_shape(ndim, sizes, &numel, func) != TENSOR_OK) return tensor_last_status();
    if (same_sizes(t, ndim, sizes)) return TENSOR_OK; /* PyTorch keeps the strides then */
    /* bytes the storage must hold: (offset + numel) elements; none for an empty result (PyTorch
     * does not grow a storage for 0 elements, whatever the offset) */
    const int64_t es = (int64_t)tensor_dtype_size(t->dtype);
    int64_t need = 0;
    if (numel > 0 && (__builtin_add_overflow(t->offset, numel, &need) || __builtin_mul_overflow(need, es, &need)))
        return tensor_error(TENSOR_ERR_OVERFLOW, "%s: %lld elements of %s at storage offset %lld overflow the byte count",
                            func, (long long)numel, tensor_dtype_name(t->dtype), (long long)t->offset);
    if ((uint64_t)need > t->storage->nbytes && tensor_storage_grow(t->storage, (size_t)need, func) != TENSOR_OK)
        return tensor_last_status();
    t->ndim = ndim;
    for (int d = 0; d < ndim; d++) t->sizes[d] = sizes[d];
    tensor_contiguous_strides(ndim, sizes, t->strides);
    return TENSOR_OK;
}

tensor_status tensor_resize_(tensor_t *t, int ndim, const int64_t *sizes) {
    return tensor_resize_impl(t, ndim, sizes, "tensor_resize_");
}

tensor_status tensor_resize_output(tensor_t *out, int ndim, const int64_t *sizes, const char *func, bool *resized) {
    if (resized) *resized = false;
    TENSOR_CHECK_NOT_NULL(out, func, "out");
    if (same_sizes(out, ndim, sizes)) return TENSOR_OK;
    const int64_t had = tensor_numel(out);
    char from[256];
    tensor_format_shape(from, sizeof from, out->ndim, out->sizes);
    if (tensor_resize_impl(out, ndim, sizes, func) != TENSOR_OK) return tensor_last_status();
    if (resized) *resized = true;
    if (had != 0) {
        char to[256];
        tensor_warn("%s: An output with one or more elements was resized since it had shape %s, which does not "
                    "match the required output shape %s. This behavior is deprecated (in PyTorch); to reuse an "
                    "out tensor, resize it to zero elements first (tensor_resize_(t, 1, (int64_t[]){0})).",
                    func, from, tensor_format_shape(to, sizeof to, ndim, sizes));
    }
    return TENSOR_OK;
}

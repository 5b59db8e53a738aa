/* Views: new geometry over the same storage; nothing is copied. */
#include <string.h>

#include "runtime/error.h"
#include "runtime/tensor_impl.h"

#define CHECK_T(t, func) TENSOR_CHECK_NOT_NULL_P(t, func, "t")

static tensor_t *view_of(const tensor_t *t, int64_t offset, int ndim, const int64_t *sizes, const int64_t *strides,
                         const char *func) {
    return tensor_make(t->storage, offset, ndim, sizes, strides, t->dtype, func);
}

tensor_t *tensor_permute(const tensor_t *t, const int *dims) {
    const char *func = "tensor_permute";
    CHECK_T(t, func);
    if (t->ndim > 0) TENSOR_CHECK_NOT_NULL_P(dims, func, "dims");
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    bool seen[TENSOR_MAX_DIMS] = {false};
    for (int i = 0; i < t->ndim; i++) {
        int d;
        if (tensor_wrap_dim(dims[i], t->ndim, false, &d, func) != TENSOR_OK) return NULL;
        if (seen[d]) return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: repeated dim %d in dims", func, d);
        seen[d] = true;
        sizes[i] = t->sizes[d];
        strides[i] = t->strides[d];
    }
    return view_of(t, t->offset, t->ndim, sizes, strides, func);
}

tensor_t *tensor_transpose(const tensor_t *t, int dim0, int dim1) {
    const char *func = "tensor_transpose";
    CHECK_T(t, func);
    int a, b;
    if (tensor_wrap_dim(dim0, t->ndim, true, &a, func) != TENSOR_OK) return NULL;
    if (tensor_wrap_dim(dim1, t->ndim, true, &b, func) != TENSOR_OK) return NULL;
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    memcpy(strides, t->strides, sizeof strides);
    if (t->ndim > 0) {
        sizes[a] = t->sizes[b], sizes[b] = t->sizes[a];
        strides[a] = t->strides[b], strides[b] = t->strides[a];
    }
    return view_of(t, t->offset, t->ndim, sizes, strides, func);
}

tensor_t *tensor_narrow(const tensor_t *t, int dim, int64_t start, int64_t length) {
    const char *func = "tensor_narrow";
    CHECK_T(t, func);
    int d = 0;
    if (tensor_wrap_dim(dim, t->ndim, false, &d, func) != TENSOR_OK) return NULL;
    int64_t size = t->sizes[d];
    if (start < -size || start > size)
        return tensor_error_null(TENSOR_ERR_INDEX, "%s: start %lld out of range for size %lld of dim %d", func,
                                 (long long)start, (long long)size, d);
    if (start < 0) start += size;
    if (length < 0)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: length must be non-negative, got %lld", func,
                                 (long long)length);
    if (start > size - length)
        return tensor_error_null(TENSOR_ERR_INDEX, "%s: start %lld + length %lld exceeds size %lld of dim %d", func,
                                 (long long)start, (long long)length, (long long)size, d);
    int64_t sizes[TENSOR_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    sizes[d] = length;
    return view_of(t, t->offset + start * t->strides[d], t->ndim, sizes, t->strides, func);
}

tensor_t *tensor_slice(const tensor_t *t, int dim, int64_t start, int64_t end, int64_t step) {
    const char *func = "tensor_slice";
    CHECK_T(t, func);
    int d = 0;
    if (tensor_wrap_dim(dim, t->ndim, false, &d, func) != TENSOR_OK) return NULL;
    if (step <= 0)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: slice step must be positive, got %lld", func,
                                 (long long)step);
    int64_t size = t->sizes[d];
    /* Python slice clamping. */
    if (start < 0) start = start + size < 0 ? 0 : start + size;
    if (end < 0) end = end + size < 0 ? 0 : end + size;
    if (start > size) start = size;
    if (end > size) end = size;
    if (end < start) end = start;
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    memcpy(strides, t->strides, sizeof strides);
    /* (end - start + step - 1) / step would overflow for a huge step. */
    sizes[d] = end == start ? 0 : (end - start - 1) / step + 1;
    /* With two or more elements step < size, so stride * step fits as stride * size does; with
     * fewer the stride is never used, and a huge step must not overflow it. */
    if (sizes[d] <= 1 || __builtin_mul_overflow(t->strides[d], step, &strides[d])) strides[d] = t->strides[d];
    return view_of(t, t->offset + start * t->strides[d], t->ndim, sizes, strides, func);
}

tensor_t *tensor_select(const tensor_t *t, int dim, int64_t index) {
    const char *func = "tensor_select";
    CHECK_T(t, func);
    int d = 0;
    if (tensor_wrap_dim(dim, t->ndim, false, &d, func) != TENSOR_OK) return NULL;
    int64_t size = t->sizes[d];
    if (index < -size || index >= size)
        return tensor_error_null(TENSOR_ERR_INDEX, "%s: index %lld out of range for size %lld of dim %d", func,
                                 (long long)index, (long long)size, d);
    if (index < 0) index += size;
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (i == d) continue;
        sizes[n] = t->sizes[i];
        strides[n++] = t->strides[i];
    }
    return view_of(t, t->offset + index * t->strides[d], n, sizes, strides, func);
}

static void format_shape(char *buf, size_t size, int ndim, const int64_t *sizes) {
    size_t used = 0;
    used += (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "", (long long)sizes[i]);
    if (used < size) snprintf(buf + used, size - used, "]");
}

tensor_t *tensor_expand(const tensor_t *t, int ndim, const int64_t *sizes) {
    const char *func = "tensor_expand";
    CHECK_T(t, func);
    if (ndim < t->ndim)
        return tensor_error_null(TENSOR_ERR_SHAPE,
                                 "%s: the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
                                 func, ndim, t->ndim);
    if (ndim > TENSOR_MAX_DIMS)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: ndim %d exceeds TENSOR_MAX_DIMS (%d)", func, ndim,
                                 TENSOR_MAX_DIMS);
    if (ndim > 0) TENSOR_CHECK_NOT_NULL_P(sizes, func, "sizes");
    int64_t out_sizes[TENSOR_MAX_DIMS], out_strides[TENSOR_MAX_DIMS];
    int lead = ndim - t->ndim;
    for (int i = ndim - 1; i >= 0; i--) {
        int j = i - lead;
        int64_t want = sizes[i];
        if (j < 0) {
            if (want < 0)
                return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT,
                                         "%s: the expanded size of the tensor (%lld) isn't allowed in a leading, non-existing dimension %d",
                                         func, (long long)want, i);
            out_sizes[i] = want;
            out_strides[i] = 0;
            continue;
        }
        if (want == -1) want = t->sizes[j];
        if (want < 0)
            return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: negative size %lld at dim %d", func,
                                     (long long)want, i);
        if (t->sizes[j] == want) {
            out_sizes[i] = want;
            out_strides[i] = t->strides[j];
        } else if (t->sizes[j] == 1) {
            out_sizes[i] = want;
            out_strides[i] = 0;
        } else {
            char a[256], b[256];
            format_shape(a, sizeof a, ndim, sizes);
            format_shape(b, sizeof b, t->ndim, t->sizes);
            return tensor_error_null(TENSOR_ERR_SHAPE,
                                     "%s: The expanded size of the tensor (%lld) must match the existing size (%lld) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
                                     func, (long long)want, (long long)t->sizes[j], i, a, b);
        }
    }
    if (tensor_check_shape(ndim, out_sizes, NULL, func) != TENSOR_OK) return NULL;
    return view_of(t, t->offset, ndim, out_sizes, out_strides, func);
}

/* Resolves one -1 in sizes against numel, as PyTorch's infer_size. */
static tensor_status infer_size(int ndim, const int64_t *sizes, int64_t numel, int64_t *out, const char *func) {
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: ndim %d is outside [0, %d] (TENSOR_MAX_DIMS)", func, ndim,
                            TENSOR_MAX_DIMS);
    if (ndim > 0 && sizes == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'sizes' is NULL", func);
    int infer = -1;
    int64_t known = 1;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] == -1) {
            if (infer >= 0) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: only one dimension can be inferred", func);
            infer = i;
        } else if (sizes[i] < 0) {
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: invalid shape dimension %lld", func, (long long)sizes[i]);
        } else if (__builtin_mul_overflow(known, sizes[i], &known)) {
            return tensor_error(TENSOR_ERR_OVERFLOW, "%s: the product of sizes overflows int64", func);
        }
        out[i] = sizes[i];
    }
    char shape[256];
    if (infer >= 0) {
        if (known == 0 && numel == 0) {
            format_shape(shape, sizeof shape, ndim, sizes);
            return tensor_error(TENSOR_ERR_SHAPE,
                                "%s: cannot reshape tensor of 0 elements into shape %s because the unspecified dimension size -1 can be any value and is ambiguous",
                                func, shape);
        }
        if (known == 0 || numel % known != 0) {
            format_shape(shape, sizeof shape, ndim, sizes);
            return tensor_error(TENSOR_ERR_SHAPE, "%s: shape '%s' is invalid for input of size %lld", func, shape,
                                (long long)numel);
        }
        out[infer] = numel / known;
    } else if (known != numel) {
        format_shape(shape, sizeof shape, ndim, sizes);
        return tensor_error(TENSOR_ERR_SHAPE, "%s: shape '%s' is invalid for input of size %lld", func, shape,
                            (long long)numel);
    }
    /* numel 0 lets [0, 2^62, 2^62] through the checks above; its strides would overflow. */
    return tensor_check_shape(ndim, out, NULL, func);
}

/* Strides for viewing (old sizes, old strides) as new sizes without copying, or false when the
 * memory layout forbids it. Each run of old dims that is contiguous within itself ("chunk") can be
 * split freely into new dims of the same total; new dims may not span two chunks. */
static bool compute_view_strides(int old_ndim, const int64_t *old_sizes, const int64_t *old_strides, int new_ndim,
                                 const int64_t *new_sizes, int64_t numel, int64_t *new_strides) {
    if (numel == 0 || old_ndim == 0) {
        /* Nothing to address, or a single element: every layout is valid. */
        tensor_contiguous_strides(new_ndim, new_sizes, new_strides);
        return true;
    }
    int view_d = new_ndim - 1;
    int64_t chunk_base_stride = old_ndim > 0 ? old_strides[old_ndim - 1] : 1;
    int64_t tensor_numel = 1, view_numel = 1;
    for (int d = old_ndim - 1; d >= 0; d--) {
        tensor_numel *= old_sizes[d];
        bool chunk_ends = d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride);
        if (chunk_ends) {
            while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
                new_strides[view_d] = view_numel * chunk_base_stride;
                view_numel *= new_sizes[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return false;
            if (d > 0) {
                chunk_base_stride = old_strides[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

static tensor_t *view_or_copy(const tensor_t *t, int ndim, const int64_t *sizes, bool allow_copy, const char *func) {
    CHECK_T(t, func);
    int64_t numel = tensor_numel(t), out_sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    if (infer_size(ndim, sizes, numel, out_sizes, func) != TENSOR_OK) return NULL;
    if (compute_view_strides(t->ndim, t->sizes, t->strides, ndim, out_sizes, numel, strides))
        return view_of(t, t->offset, ndim, out_sizes, strides, func);
    if (!allow_copy)
        return tensor_error_null(TENSOR_ERR_SHAPE,
                                 "%s: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use tensor_reshape instead.",
                                 func);
    tensor_t *c = tensor_copy_as(t, t->dtype, t->storage->device, func);
    if (c == NULL) return NULL;
    tensor_contiguous_strides(ndim, out_sizes, strides);
    tensor_t *v = view_of(c, c->offset, ndim, out_sizes, strides, func);
    tensor_release(c);
    return v;
}

tensor_t *tensor_view(const tensor_t *t, int ndim, const int64_t *sizes) {
    return view_or_copy(t, ndim, sizes, false, "tensor_view");
}

tensor_t *tensor_reshape(const tensor_t *t, int ndim, const int64_t *sizes) {
    return view_or_copy(t, ndim, sizes, true, "tensor_reshape");
}

/* The view of t without some of its size-1 dims: every one (only < 0), or dim `only` (which
 * the caller has checked is of size 1). */
static tensor_t *squeezed_view(const tensor_t *t, int only, const char *func) {
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (only < 0 ? t->sizes[i] == 1 : i == only) continue;
        sizes[n] = t->sizes[i];
        strides[n++] = t->strides[i];
    }
    return view_of(t, t->offset, n, sizes, strides, func);
}

tensor_t *tensor_squeeze(const tensor_t *t) {
    const char *func = "tensor_squeeze";
    CHECK_T(t, func);
    return squeezed_view(t, -1, func);
}

tensor_t *tensor_squeeze_dim(const tensor_t *t, int dim) {
    const char *func = "tensor_squeeze_dim";
    CHECK_T(t, func);
    int d = 0;
    if (tensor_wrap_dim(dim, t->ndim, true, &d, func) != TENSOR_OK) return NULL;
    if (t->ndim == 0 || t->sizes[d] != 1) return view_of(t, t->offset, t->ndim, t->sizes, t->strides, func);
    return squeezed_view(t, d, func);
}

tensor_t *tensor_unsqueeze(const tensor_t *t, int dim) {
    const char *func = "tensor_unsqueeze";
    CHECK_T(t, func);
    if (t->ndim >= TENSOR_MAX_DIMS)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: result would have %d dims, more than TENSOR_MAX_DIMS (%d)",
                                 func, t->ndim + 1, TENSOR_MAX_DIMS);
    int d = 0;
    if (tensor_wrap_dim(dim, t->ndim + 1, false, &d, func) != TENSOR_OK) return NULL;
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int n = 0;
    for (int i = 0; i <= t->ndim; i++) {
        if (i == d) {
            sizes[n] = 1;
            /* Any stride is valid for a size-1 dim; PyTorch uses size*stride of the next dim. */
            int64_t st = 1;
            if (d < t->ndim && __builtin_mul_overflow(t->sizes[d], t->strides[d], &st)) st = 1;
            strides[n++] = st;
        }
        if (i < t->ndim) {
            sizes[n] = t->sizes[i];
            strides[n++] = t->strides[i];
        }
    }
    return view_of(t, t->offset, t->ndim + 1, sizes, strides, func);
}

tensor_t *tensor_flatten(const tensor_t *t, int start_dim, int end_dim) {
    const char *func = "tensor_flatten";
    CHECK_T(t, func);
    int s, e;
    if (tensor_wrap_dim(start_dim, t->ndim, true, &s, func) != TENSOR_OK) return NULL;
    if (tensor_wrap_dim(end_dim, t->ndim, true, &e, func) != TENSOR_OK) return NULL;
    if (s > e)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: start_dim %d cannot come after end_dim %d", func, s, e);
    if (t->ndim == 0) {
        int64_t one = 1;
        return view_or_copy(t, 1, &one, true, func);
    }
    int64_t sizes[TENSOR_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < s; i++) sizes[n++] = t->sizes[i];
    int64_t merged = 1;
    for (int i = s; i <= e; i++) merged *= t->sizes[i];
    sizes[n++] = merged;
    for (int i = e + 1; i < t->ndim; i++) sizes[n++] = t->sizes[i];
    tensor_t *r = view_or_copy(t, n, sizes, true, func);
    return r;
}

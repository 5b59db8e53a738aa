#include <math.h>
#include <string.h>

#include "ops/reduce_plan.h"
#include "runtime/error.h"

tensor_status tensor_reduce_plan_make(const tensor_t *t, const int *dims, int ndims, bool keepdim, bool all_if_empty,
                                      tensor_reduce_plan *plan, const char *func) {
    memset(plan, 0, sizeof *plan);
    plan->in_ndim = t->ndim;
    plan->first_empty_reduced_dim = -1;
    if (ndims < 0) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: ndims must be >= 0, got %d", func, ndims);
    bool all = dims == NULL || (ndims == 0 && all_if_empty);
    if (all) {
        for (int d = 0; d < t->ndim; d++) plan->mask[d] = true;
    } else {
        /* A 0-d tensor behaves as 1-D for dim checks (dims 0 and -1), and stays 0-d. */
        bool seen_scalar_dim = false;
        for (int i = 0; i < ndims; i++) {
            int d;
            if (tensor_wrap_dim(dims[i], t->ndim, true, &d, func) != TENSOR_OK) return tensor_last_status();
            bool *slot = t->ndim == 0 ? &seen_scalar_dim : &plan->mask[d];
            if (*slot)
                return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: dim %d appears multiple times in the list of dims",
                                    func, d);
            *slot = true;
        }
    }
    plan->reduced_numel = 1;
    plan->out_numel = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (plan->mask[d]) {
            plan->num_reduced++;
            plan->reduced_numel *= t->sizes[d];
            plan->keep_sizes[d] = 1;
            if (t->sizes[d] == 0 && plan->first_empty_reduced_dim < 0) plan->first_empty_reduced_dim = d;
            if (keepdim) plan->out_sizes[plan->out_ndim++] = 1;
        } else {
            plan->keep_sizes[d] = t->sizes[d];
            plan->out_numel *= t->sizes[d];
            plan->out_sizes[plan->out_ndim++] = t->sizes[d];
        }
    }
    return TENSOR_OK;
}

tensor_t *tensor_reduce_keepdim_view(const tensor_t *out, const tensor_reduce_plan *plan, const char *func) {
    int64_t strides[TENSOR_MAX_DIMS];
    int j = 0;
    bool out_has_reduced = out->ndim == plan->in_ndim;
    for (int d = 0; d < plan->in_ndim; d++) {
        if (plan->mask[d]) {
            strides[d] = 0;
            if (out_has_reduced) j++;
        } else {
            strides[d] = out->strides[j++];
        }
    }
    return tensor_make(out->storage, out->offset, plan->in_ndim, plan->keep_sizes, strides, out->dtype, func);
}

tensor_status tensor_fill_value(tensor_t *t, double value, const char *func) {
    int64_t numel = tensor_numel(t);
    if (numel == 0) return TENSOR_OK;
    tensor_t *src = tensor_full(t->ndim, t->sizes, value, t->dtype, tensor_cpu());
    if (src == NULL) return tensor_last_status();
    tensor_status st;
    if (t->storage->device.type == TENSOR_DEVICE_CPU) {
        st = tensor_copy_cpu(t, src, func);
    } else if (tensor_is_contiguous(t)) {
        st = tensor_memcpy(tensor_data(t), t->storage->device, tensor_data(src), tensor_cpu(),
                           (size_t)numel * tensor_dtype_size(t->dtype), func);
    } else {
        st = tensor_error(TENSOR_ERR_NOT_IMPLEMENTED, "%s: filling a strided CUDA tensor is not yet implemented", func);
    }
    tensor_release(src);
    return st;
}

/* The out= forms of the reductions (tensor_sum_out is ops/reduce.c's own, written in place):
 * each computes the result as its plain form does, then checks out (dtype, device), resizes it
 * when its shape differs (unless it shares the input's storage) and copies the result in. One
 * extra pass over the result, none over the input; out may alias the input, since the result
 * is complete before out is written. */
#include "ops/ops.h"
#include "ops/elementwise.h"
#include "runtime/error.h"
#include "runtime/tensor_impl.h"

/* r: the plain form's result (a new reference, or NULL with the error set), consumed. */
tensor_status tt_out_finish(const char *func, const char *arg, tensor_t *out, const tensor_t *t, tensor_t *r) {
    if (r == NULL) return tensor_last_status();
    tensor_status st = TENSOR_OK;
    if (out->dtype != r->dtype)
        st = tensor_error(TENSOR_ERR_DTYPE, "%s: argument '%s' has dtype %s, expected %s", func, arg,
                          tensor_dtype_name(out->dtype), tensor_dtype_name(r->dtype));
    else if (!tensor_device_equal(out->storage->device, r->storage->device))
        st = tensor_error(TENSOR_ERR_DEVICE, "%s: argument '%s' is on another device than the input", func, arg);
    if (st == TENSOR_OK) {
        bool same = out->ndim == r->ndim;
        for (int d = 0; same && d < r->ndim; d++) same = out->sizes[d] == r->sizes[d];
        if (!same && out->storage == t->storage)
            st = tensor_error(TENSOR_ERR_SHAPE, "%s: argument '%s' has the wrong shape for this result and shares "
                              "memory with the input: it cannot be resized", func, arg);
        else if (!same)
            st = tensor_resize_output(out, r->ndim, r->sizes, func, NULL);
    }
    if (st == TENSOR_OK) st = tensor_copy_(out, r);
    tensor_release(r);
    return st;
}

static tensor_status check_args(const char *func, const tensor_t *out, const tensor_t *t) {
    if (out == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", func);
    if (t == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 't' is NULL", func);
    return TENSOR_OK;
}

/* Forms whose result dtype the op fixes: out must already have it. ARGS: the plain form's
 * argument list; the rest: the parameters after out. */
#define REDUCE_OUT(NAME, ARGS, ...)                                                                 \
    tensor_status tensor_##NAME##_out(tensor_t *out, __VA_ARGS__) {                                \
        static const char func[] = "tensor_" #NAME "_out";                                         \
        if (check_args(func, out, t) != TENSOR_OK) return tensor_last_status();                    \
        return tt_out_finish(func, "out", out, t, tensor_##NAME ARGS);                                \
    }
REDUCE_OUT(amax, (t, dims, ndims, keepdim), const tensor_t *t, const int *dims, int ndims, bool keepdim)
REDUCE_OUT(amin, (t, dims, ndims, keepdim), const tensor_t *t, const int *dims, int ndims, bool keepdim)
REDUCE_OUT(logsumexp, (t, dims, ndims, keepdim), const tensor_t *t, const int *dims, int ndims, bool keepdim)
REDUCE_OUT(all, (t, dims, ndims, keepdim), const tensor_t *t, const int *dims, int ndims, bool keepdim)
REDUCE_OUT(any, (t, dims, ndims, keepdim), const tensor_t *t, const int *dims, int ndims, bool keepdim)
REDUCE_OUT(sum_of_squares, (t, dims, ndims, keepdim), const tensor_t *t, const int *dims, int ndims, bool keepdim)
REDUCE_OUT(count_nonzero, (t, dims, ndims), const tensor_t *t, const int *dims, int ndims)
REDUCE_OUT(argmax, (t, dim, keepdim), const tensor_t *t, const int *dim, bool keepdim)
REDUCE_OUT(argmin, (t, dim, keepdim), const tensor_t *t, const int *dim, bool keepdim)
REDUCE_OUT(norm, (t, p, dims, ndims, keepdim), const tensor_t *t, double p, const int *dims, int ndims, bool keepdim)
REDUCE_OUT(var, (t, correction, dims, ndims, keepdim), const tensor_t *t, double correction, const int *dims, int ndims,
           bool keepdim)
REDUCE_OUT(std, (t, correction, dims, ndims, keepdim), const tensor_t *t, double correction, const int *dims, int ndims,
           bool keepdim)

/* Forms with a dtype= parameter: as tensor_sum_out, TENSOR_DTYPE_DEFAULT means out's dtype. */
#define REDUCE_OUT_DTYPE(NAME, ARGS, ...)                                                           \
    tensor_status tensor_##NAME##_out(tensor_t *out, __VA_ARGS__) {                                \
        static const char func[] = "tensor_" #NAME "_out";                                         \
        if (check_args(func, out, t) != TENSOR_OK) return tensor_last_status();                    \
        if (dtype == TENSOR_DTYPE_DEFAULT) dtype = out->dtype;                                     \
        return tt_out_finish(func, "out", out, t, tensor_##NAME ARGS);                                \
    }
REDUCE_OUT_DTYPE(nansum, (t, dims, ndims, keepdim, dtype), const tensor_t *t, const int *dims, int ndims, bool keepdim,
                 tensor_dtype dtype)
REDUCE_OUT_DTYPE(mean, (t, dims, ndims, keepdim, dtype), const tensor_t *t, const int *dims, int ndims, bool keepdim,
                 tensor_dtype dtype)
REDUCE_OUT_DTYPE(nanmean, (t, dims, ndims, keepdim, dtype), const tensor_t *t, const int *dims, int ndims, bool keepdim,
                 tensor_dtype dtype)
REDUCE_OUT_DTYPE(prod, (t, dim, keepdim, dtype), const tensor_t *t, const int *dim, bool keepdim, tensor_dtype dtype)

/* max/min with indices: values into `values` (the input's dtype), indices into `indices`
 * (int64); both or neither are written. */
static tensor_status minmax_out(const char *func, bool is_max, tensor_t *values, tensor_t *indices, const tensor_t *t,
                                int dim, bool keepdim) {
    if (values == NULL || indices == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func,
                            values == NULL ? "values" : "indices");
    if (t == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 't' is NULL", func);
    if (values->dtype != t->dtype || indices->dtype != TENSOR_INT64)
        return tensor_error(TENSOR_ERR_DTYPE, "%s: argument '%s' has dtype %s, expected %s", func,
                            values->dtype != t->dtype ? "values" : "indices",
                            tensor_dtype_name(values->dtype != t->dtype ? values->dtype : indices->dtype),
                            tensor_dtype_name(values->dtype != t->dtype ? t->dtype : TENSOR_INT64));
    tensor_t *v = NULL, *i = NULL;
    tensor_status st = is_max ? tensor_max_dim(t, dim, keepdim, &v, &i) : tensor_min_dim(t, dim, keepdim, &v, &i);
    if (st != TENSOR_OK) return st;
    st = tt_out_finish(func, "values", values, t, v);
    if (st == TENSOR_OK) return tt_out_finish(func, "indices", indices, t, i);
    tensor_release(i);
    return st;
}

/* aminmax: min into `min`, max into `max`, both of the input's dtype; both or neither written. */
tensor_status tensor_aminmax_out(tensor_t *min, tensor_t *max, const tensor_t *t, const int *dims, int ndims,
                                 bool keepdim) {
    static const char func[] = "tensor_aminmax_out";
    if (min == NULL || max == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, min == NULL ? "min" : "max");
    if (t == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 't' is NULL", func);
    if (min->dtype != t->dtype || max->dtype != t->dtype)
        return tensor_error(TENSOR_ERR_DTYPE, "%s: argument '%s' has dtype %s, expected %s", func,
                            min->dtype != t->dtype ? "min" : "max",
                            tensor_dtype_name(min->dtype != t->dtype ? min->dtype : max->dtype),
                            tensor_dtype_name(t->dtype));
    tensor_t *lo = NULL, *hi = NULL;
    tensor_status st = tensor_aminmax(t, dims, ndims, keepdim, &lo, &hi);
    if (st != TENSOR_OK) return st;
    st = tt_out_finish(func, "min", min, t, lo);
    if (st == TENSOR_OK) return tt_out_finish(func, "max", max, t, hi);
    tensor_release(hi);
    return st;
}

tensor_status tensor_max_dim_out(tensor_t *values, tensor_t *indices, const tensor_t *t, int dim, bool keepdim) {
    return minmax_out("tensor_max_dim_out", true, values, indices, t, dim, keepdim);
}

tensor_status tensor_min_dim_out(tensor_t *values, tensor_t *indices, const tensor_t *t, int dim, bool keepdim) {
    return minmax_out("tensor_min_dim_out", false, values, indices, t, dim, keepdim);
}

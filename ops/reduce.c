/* The reduction family: PyTorch's output dtypes, shapes, identities and errors
 *, then one iterator and one kernel call per op. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/ops.h"
#include "ops/reduce_launch.h"
#include "ops/reduce_plan.h"
#include "ops/reduce_internal.h"
#include "runtime/error.h"

/* reduce_desc (what an op does when the reduced dims are empty) is in ops/reduce_internal.h. */

static bool is_float(tensor_dtype d) { return tensor_dtype_is_floating(d); }
static bool is_fp8(tensor_dtype d) { return d == TENSOR_FLOAT8_E4M3FN || d == TENSOR_FLOAT8_E5M2; }

static tensor_status check_input(const tensor_t *t, const char *func) {
    if (t == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 't' is NULL", func);
    return TENSOR_OK;
}

static tensor_status check_dtype_arg(tensor_dtype dtype, const char *func) {
    if (dtype != TENSOR_DTYPE_DEFAULT && !tensor_dtype_is_valid(dtype))
        return tensor_error(TENSOR_ERR_DTYPE, "%s: unknown dtype %d", func, (int)dtype);
    return TENSOR_OK;
}

/* sum/prod: integers and bool widen to int64; float8 (which PyTorch cannot sum) gives float32. */
static tensor_dtype sum_dtype(tensor_dtype in, tensor_dtype requested) {
    tensor_dtype out = in;
    (void)tensor_reduce_rule_dtype(TENSOR_RULE_SUM, in, requested, &out, "", ""); /* never fails */
    return out;
}

/* Floating results that are not one of the inputs (mean, var, norm, ...): float8 computes and
 * returns float32, other floats keep their dtype. */
static tensor_dtype float_result_dtype(tensor_dtype in) { return is_fp8(in) ? TENSOR_FLOAT32 : in; }

/* The output dtype by the op's row (contract/reductions.h), for rules that cannot refuse. */
static tensor_dtype row_dtype(tensor_op op, tensor_dtype in) {
    tensor_dtype out = in;
    (void)tensor_reduce_rule_dtype(tensor_op_reduction(op)->rule, in, TENSOR_DTYPE_DEFAULT, &out, "", "");
    return out;
}

/* Runs a reduction with one or more outputs. outs[i] may be provided (out= form, shape checked)
 * or NULL (allocated with dtypes[i]). On success outs[] hold new references (or the caller's,
 * retained). */
/* Where tensor_reduce_explain's text goes (snprintf contract over len). */
typedef struct explain_sink {
    char *buf;
    size_t size;
    int64_t len;
} explain_sink;

static void sink_put(explain_sink *ex, const char *text) {
    size_t off = (size_t)ex->len;
    char *dst = ex->buf != NULL && off < ex->size ? ex->buf + off : NULL;
    int n = snprintf(dst, dst != NULL ? ex->size - off : 0, "%s", text);
    if (n > 0) ex->len += n;
}

/* With ex != NULL nothing runs: the text of what would run goes to ex, and the outputs are
 * released before returning (outs[] all NULL). */
static tensor_status reduce_run_ex(const reduce_desc *desc, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                                   int nout, const tensor_dtype *dtypes, tensor_t **outs,
                                   const tensor_kernel_params *params, explain_sink *ex) {
    const char *func = desc->func;
    tensor_reduce_plan plan;
    tensor_status st = tensor_reduce_plan_make(t, dims, ndims, keepdim, desc->all_if_empty, &plan, func);
    if (st != TENSOR_OK) return st;
    if (!desc->has_identity) {
        if (tensor_numel(t) == 0 && (dims == NULL || (ndims == 0 && desc->all_if_empty)) && t->ndim > 0 &&
            plan.first_empty_reduced_dim >= 0)
            /* A RuntimeError in PyTorch (argmax/argmin's no-dim case, an IndexError, is in arg_impl). */
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                "%s: %s Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.",
                                func, desc->torch);
        if (plan.first_empty_reduced_dim >= 0)
            return tensor_error(TENSOR_ERR_INDEX, "%s: %s Expected reduction dim %d to have non-zero size.", func,
                                desc->torch, plan.first_empty_reduced_dim);
    }
    tensor_device dev = t->storage->device;
    /* Validate every caller-provided output before taking any reference, so failure paths own nothing. */
    for (int i = 0; i < nout; i++) {
        tensor_t *o = outs[i];
        if (o == NULL) continue;
        if (o->dtype != dtypes[i])
            return tensor_error(TENSOR_ERR_DTYPE, "%s: argument 'out' has dtype %s, expected %s", func,
                                tensor_dtype_name(o->dtype), tensor_dtype_name(dtypes[i]));
        if (!tensor_device_equal(o->storage->device, dev))
            return tensor_error(TENSOR_ERR_DEVICE, "%s: argument 'out' is on another device than the input", func);
    }
    /* An out of another shape is resized to the result's (PyTorch's resize_output, as the
     * elementwise out=: runtime/resize.c), unless it shares the input's storage. */
    for (int i = 0; i < nout; i++) {
        tensor_t *o = outs[i];
        if (o == NULL) continue;
        bool same_shape = o->ndim == plan.out_ndim;
        for (int k = 0; same_shape && k < o->ndim; k++) same_shape = o->sizes[k] == plan.out_sizes[k];
        if (same_shape) continue;
        if (o->storage == t->storage)
            return tensor_error(TENSOR_ERR_SHAPE, "%s: argument 'out' has the wrong shape for this reduction and "
                                "shares memory with the input: it cannot be resized", func);
        if (tensor_resize_output(o, plan.out_ndim, plan.out_sizes, func, NULL) != TENSOR_OK) return tensor_last_status();
    }
    for (int i = 0; i < nout; i++) {
        if (outs[i] != NULL) {
            tensor_retain(outs[i]);
            continue;
        }
        outs[i] = tensor_empty(plan.out_ndim, plan.out_sizes, dtypes[i], dev);
        if (outs[i] == NULL) {
            st = tensor_last_status();
            for (int k = 0; k < i; k++) {
                tensor_release(outs[k]);
                outs[k] = NULL;
            }
            return st;
        }
    }
    if (ex != NULL && (plan.out_numel == 0 || tensor_numel(t) == 0)) {
        sink_put(ex, plan.out_numel == 0 ? "no kernel: the result is empty\n"
                                         : "no kernel: the reduced dims are empty, every output takes the identity\n");
        st = TENSOR_OK;
        goto fail_all; /* releases the outputs */
    }
    if (plan.out_numel == 0) return TENSOR_OK;
    if (tensor_numel(t) == 0) {
        /* Every output takes the identity; only the first output of multi-output ops has one. */
        for (int i = 0; i < nout; i++) {
            st = tensor_fill_value(outs[i], i == 0 ? desc->identity : 0.0, func);
            if (st != TENSOR_OK) goto fail_all;
        }
        return TENSOR_OK;
    }
    tensor_t *views[2] = {NULL, NULL};
    for (int i = 0; i < nout; i++) {
        views[i] = tensor_reduce_keepdim_view(outs[i], &plan, func);
        if (views[i] == NULL) {
            st = tensor_last_status();
            tensor_release(views[0]);
            goto fail_all;
        }
    }
    if (ex != NULL) {
        size_t off = (size_t)ex->len;
        char *dst = ex->buf != NULL && off < ex->size ? ex->buf + off : NULL;
        int64_t n = tensor_reduce_explain_launch(desc->op, views, nout, t, params, func, dst,
                                                 dst != NULL ? ex->size - off : 0);
        for (int i = 0; i < nout; i++) tensor_release(views[i]);
        st = n < 0 ? tensor_last_status() : TENSOR_OK;
        if (n > 0) ex->len += n;
        goto fail_all; /* releases the outputs */
    }
    st = tensor_reduce_launch(desc->op, views, nout, t, params, func);
    for (int i = 0; i < nout; i++) tensor_release(views[i]);
    if (st != TENSOR_OK) goto fail_all;
    return TENSOR_OK;
fail_all:
    for (int i = 0; i < nout; i++) {
        tensor_release(outs[i]);
        outs[i] = NULL;
    }
    return st;
}

static tensor_status reduce_run(const reduce_desc *desc, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                                int nout, const tensor_dtype *dtypes, tensor_t **outs, const tensor_kernel_params *params) {
    return reduce_run_ex(desc, t, dims, ndims, keepdim, nout, dtypes, outs, params, NULL);
}

static tensor_t *reduce_single(const reduce_desc *desc, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                               tensor_dtype out_dtype, const tensor_kernel_params *params) {
    tensor_t *out = NULL;
    if (reduce_run(desc, t, dims, ndims, keepdim, 1, &out_dtype, &out, params) != TENSOR_OK) return NULL;
    return out;
}

static const tensor_kernel_params no_params = {0};

/* ---- sum family ---- */

tensor_t *tensor_sum_dims(const tensor_t *t, const int *dims, int ndims, bool keepdim, tensor_dtype dtype) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_SUM, "tensor_sum");
    if (check_input(t, d.func) || check_dtype_arg(dtype, d.func)) return NULL;
    return reduce_single(&d, t, dims, ndims, keepdim, sum_dtype(t->dtype, dtype), &no_params);
}

tensor_t *tensor_sum(const tensor_t *t, int dim, bool keepdim) {
    return tensor_sum_dims(t, &dim, 1, keepdim, TENSOR_DTYPE_DEFAULT);
}

tensor_status tensor_sum_out(tensor_t *out, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                             tensor_dtype dtype) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_SUM, "tensor_sum_out");
    tensor_status st = check_input(t, d.func);
    if (st) return st;
    if (out == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", d.func);
    if ((st = check_dtype_arg(dtype, d.func))) return st;
    tensor_dtype odt = dtype == TENSOR_DTYPE_DEFAULT ? out->dtype : dtype;
    tensor_t *o = out;
    st = reduce_run(&d, t, dims, ndims, keepdim, 1, &odt, &o, &no_params);
    if (st == TENSOR_OK) tensor_release(o); /* drop the reference reduce_run took */
    return st;
}

tensor_t *tensor_nansum(const tensor_t *t, const int *dims, int ndims, bool keepdim, tensor_dtype dtype) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_NANSUM, "tensor_nansum");
    if (check_input(t, d.func) || check_dtype_arg(dtype, d.func)) return NULL;
    return reduce_single(&d, t, dims, ndims, keepdim, sum_dtype(t->dtype, dtype), &no_params);
}

static tensor_t *mean_impl(const reduce_desc *d, const char *torch, const tensor_t *t, const int *dims, int ndims,
                           bool keepdim, tensor_dtype dtype) {
    if (check_input(t, d->func) || check_dtype_arg(dtype, d->func)) return NULL;
    tensor_dtype odt;
    if (dtype != TENSOR_DTYPE_DEFAULT) {
        if (!is_float(dtype))
            return tensor_error_null(TENSOR_ERR_DTYPE,
                                     "%s: %s could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: %s",
                                     d->func, torch, tensor_dtype_name(dtype));
        odt = float_result_dtype(dtype);
    } else {
        if (!is_float(t->dtype) && d->op == TENSOR_OP_NANMEAN) /* PyTorch's nanmean has its own text */
            return tensor_error_null(TENSOR_ERR_DTYPE,
                                     "%s: %s expected input to have floating point or complex dtype but got %s",
                                     d->func, torch, tensor_dtype_name(t->dtype));
        if (!is_float(t->dtype))
            return tensor_error_null(TENSOR_ERR_DTYPE,
                                     "%s: %s could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: %s",
                                     d->func, torch, tensor_dtype_name(t->dtype));
        odt = float_result_dtype(t->dtype);
    }
    return reduce_single(d, t, dims, ndims, keepdim, odt, &no_params);
}

tensor_t *tensor_mean(const tensor_t *t, const int *dims, int ndims, bool keepdim, tensor_dtype dtype) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_MEAN, "tensor_mean");
    return mean_impl(&d, "mean():", t, dims, ndims, keepdim, dtype);
}

tensor_t *tensor_nanmean(const tensor_t *t, const int *dims, int ndims, bool keepdim, tensor_dtype dtype) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_NANMEAN, "tensor_nanmean");
    return mean_impl(&d, "nanmean():", t, dims, ndims, keepdim, dtype);
}

tensor_t *tensor_prod(const tensor_t *t, const int *dim, bool keepdim, tensor_dtype dtype) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_PROD, "tensor_prod");
    if (check_input(t, d.func) || check_dtype_arg(dtype, d.func)) return NULL;
    return reduce_single(&d, t, dim, dim ? 1 : 0, keepdim, sum_dtype(t->dtype, dtype), &no_params);
}

/* ---- extremes ---- */

tensor_t *tensor_amax(const tensor_t *t, const int *dims, int ndims, bool keepdim) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_AMAX, "tensor_amax");
    if (check_input(t, d.func)) return NULL;
    return reduce_single(&d, t, dims, ndims, keepdim, row_dtype(d.op, t->dtype), &no_params);
}

tensor_t *tensor_amin(const tensor_t *t, const int *dims, int ndims, bool keepdim) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_AMIN, "tensor_amin");
    if (check_input(t, d.func)) return NULL;
    return reduce_single(&d, t, dims, ndims, keepdim, row_dtype(d.op, t->dtype), &no_params);
}

static tensor_status minmax_dim(const reduce_desc *d, const tensor_t *t, int dim, bool keepdim, tensor_t **values,
                                tensor_t **indices) {
    if (values) *values = NULL;
    if (indices) *indices = NULL;
    tensor_status st = check_input(t, d->func);
    if (st) return st;
    if (values == NULL || indices == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", d->func,
                            values == NULL ? "values" : "indices");
    tensor_dtype dtypes[2] = {t->dtype, TENSOR_INT64};
    tensor_t *outs[2] = {NULL, NULL};
    st = reduce_run(d, t, &dim, 1, keepdim, 2, dtypes, outs, &no_params);
    if (st != TENSOR_OK) return st;
    *values = outs[0];
    *indices = outs[1];
    return TENSOR_OK;
}

tensor_status tensor_max_dim(const tensor_t *t, int dim, bool keepdim, tensor_t **values, tensor_t **indices) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_MAX_DIM, "tensor_max_dim");
    return minmax_dim(&d, t, dim, keepdim, values, indices);
}

tensor_status tensor_min_dim(const tensor_t *t, int dim, bool keepdim, tensor_t **values, tensor_t **indices) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_MIN_DIM, "tensor_min_dim");
    return minmax_dim(&d, t, dim, keepdim, values, indices);
}

tensor_status tensor_aminmax(const tensor_t *t, const int *dims, int ndims, bool keepdim, tensor_t **min,
                             tensor_t **max) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_AMINMAX, "tensor_aminmax");
    if (min) *min = NULL;
    if (max) *max = NULL;
    tensor_status st = check_input(t, d.func);
    if (st) return st;
    if (min == NULL || max == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", d.func, min == NULL ? "min" : "max");
    if ((dims == NULL || ndims == 0) && tensor_numel(t) == 0)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                            "%s: aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                            "identity.", d.func);
    tensor_dtype dtypes[2] = {t->dtype, t->dtype};
    tensor_t *outs[2] = {NULL, NULL};
    st = reduce_run(&d, t, dims, ndims, keepdim, 2, dtypes, outs, &no_params);
    if (st != TENSOR_OK) return st;
    *min = outs[0];
    *max = outs[1];
    return TENSOR_OK;
}

static tensor_t *arg_impl(const reduce_desc *d, const tensor_t *t, const int *dim, bool keepdim) {
    if (check_input(t, d->func)) return NULL;
    if (t->dtype == TENSOR_BOOL)
        return tensor_error_null(TENSOR_ERR_DTYPE, "%s: %s does not support bool input", d->func, d->torch);
    if (dim != NULL) return reduce_single(d, t, dim, 1, keepdim, TENSOR_INT64, &no_params);
    /* No dim: the index is into the flattened tensor. */
    if (tensor_numel(t) == 0)
        return tensor_error_null(TENSOR_ERR_INDEX,
                                 "%s: %s Expected reduction dim to be specified for input.numel() == 0.", d->func,
                                 d->torch);
    int64_t n = -1;
    tensor_t *flat = tensor_reshape(t, 1, &n);
    if (flat == NULL) return NULL;
    int zero = 0;
    tensor_t *r = reduce_single(d, flat, &zero, 1, false, TENSOR_INT64, &no_params);
    tensor_release(flat);
    if (r == NULL || !keepdim) return r;
    int64_t ones[TENSOR_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++) ones[i] = 1;
    tensor_t *shaped = tensor_view(r, t->ndim, ones);
    tensor_release(r);
    return shaped;
}

tensor_t *tensor_argmax(const tensor_t *t, const int *dim, bool keepdim) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_ARGMAX, "tensor_argmax");
    return arg_impl(&d, t, dim, keepdim);
}

tensor_t *tensor_argmin(const tensor_t *t, const int *dim, bool keepdim) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_ARGMIN, "tensor_argmin");
    return arg_impl(&d, t, dim, keepdim);
}

/* ---- moments ---- */

static tensor_status var_mean_impl(const char *func, bool take_sqrt, const tensor_t *t, const int *dims, int ndims,
                                   double correction, bool keepdim, tensor_t **first, tensor_t **mean) {
    reduce_desc d = tensor_reduce_desc(TENSOR_OP_VAR_MEAN, func);
    tensor_status st = check_input(t, func);
    if (st) return st;
    if (!is_float(t->dtype))
        return tensor_error(TENSOR_ERR_DTYPE, "%s: std and var only support floating point and complex dtypes, got %s",
                            func, tensor_dtype_name(t->dtype));
    if (!isfinite(correction))
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: correction must be finite, got %g", func, correction);
    tensor_dtype odt = float_result_dtype(t->dtype);
    tensor_dtype dtypes[2] = {odt, odt};
    tensor_t *outs[2] = {NULL, NULL};
    tensor_kernel_params p = {0};
    p.correction = correction;
    p.take_sqrt = take_sqrt;
    /* An empty reduction gives NaN for both var and mean. */
    st = reduce_run(&d, t, dims, ndims, keepdim, 2, dtypes, outs, &p);
    if (st != TENSOR_OK) return st;
    if (tensor_numel(t) == 0) {
        st = tensor_fill_value(outs[1], NAN, func);
        if (st != TENSOR_OK) {
            tensor_release(outs[0]);
            tensor_release(outs[1]);
            return st;
        }
    }
    *first = outs[0];
    if (mean) *mean = outs[1];
    else tensor_release(outs[1]);
    return TENSOR_OK;
}

tensor_t *tensor_var(const tensor_t *t, double correction, const int *dims, int ndims, bool keepdim) {
    tensor_t *v = NULL;
    if (var_mean_impl("tensor_var", false, t, dims, ndims, correction, keepdim, &v, NULL) != TENSOR_OK) return NULL;
    return v;
}

tensor_t *tensor_std(const tensor_t *t, double correction, const int *dims, int ndims, bool keepdim) {
    tensor_t *v = NULL;
    if (var_mean_impl("tensor_std", true, t, dims, ndims, correction, keepdim, &v, NULL) != TENSOR_OK) return NULL;
    return v;
}

tensor_status tensor_var_mean(const tensor_t *t, double correction, const int *dims, int ndims, bool keepdim,
                              tensor_t **var, tensor_t **mean) {
    if (var == NULL || mean == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_var_mean: argument '%s' is NULL", var ? "mean" : "var");
    *var = *mean = NULL;
    return var_mean_impl("tensor_var_mean", false, t, dims, ndims, correction, keepdim, var, mean);
}

tensor_status tensor_std_mean(const tensor_t *t, double correction, const int *dims, int ndims, bool keepdim,
                              tensor_t **std, tensor_t **mean) {
    if (std == NULL || mean == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_std_mean: argument '%s' is NULL", std ? "mean" : "std");
    *std = *mean = NULL;
    return var_mean_impl("tensor_std_mean", true, t, dims, ndims, correction, keepdim, std, mean);
}

/* ---- norms and friends ---- */

tensor_t *tensor_norm(const tensor_t *t, double p, const int *dims, int ndims, bool keepdim) {
    const char *func = "tensor_norm";
    if (check_input(t, func)) return NULL;
    if (isnan(p)) return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: the order p must not be NaN", func);
    if (!is_float(t->dtype))
        return tensor_error_null(TENSOR_ERR_DTYPE,
                                 "%s: linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s",
                                 func, tensor_dtype_name(t->dtype));
    /* Orders without an identity (max- and min-like: inf and negative p) cannot reduce an empty
     * set; PyTorch raises for them as well. */
    bool has_identity = !(p < 0 || p == INFINITY);
    if (!has_identity && tensor_numel(t) == 0) {
        tensor_reduce_plan plan;
        if (tensor_reduce_plan_make(t, dims, ndims, keepdim, true, &plan, func) != TENSOR_OK) return NULL;
        if (plan.first_empty_reduced_dim >= 0)
            return tensor_error_null(TENSOR_ERR_INDEX,
                                     "%s: linalg.vector_norm cannot compute the %g norm on an empty tensor because the operation does not have an identity",
                                     func, p);
    }
    reduce_desc d = tensor_reduce_desc(TENSOR_OP_NORM, func);
    tensor_kernel_params params = {0};
    params.p = p;
    return reduce_single(&d, t, dims, ndims, keepdim, float_result_dtype(t->dtype), &params);
}

tensor_t *tensor_logsumexp(const tensor_t *t, const int *dims, int ndims, bool keepdim) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_LOGSUMEXP, "tensor_logsumexp");
    if (check_input(t, d.func)) return NULL;
    tensor_dtype odt = row_dtype(TENSOR_OP_LOGSUMEXP, t->dtype);
    return reduce_single(&d, t, dims, ndims, keepdim, odt, &no_params);
}

tensor_t *tensor_count_nonzero(const tensor_t *t, const int *dims, int ndims) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_COUNT_NONZERO, "tensor_count_nonzero");
    if (check_input(t, d.func)) return NULL;
    return reduce_single(&d, t, dims, ndims, false, row_dtype(d.op, t->dtype), &no_params);
}

static tensor_t *allany(const reduce_desc *d, const tensor_t *t, const int *dims, int ndims, bool keepdim) {
    if (check_input(t, d->func)) return NULL;
    tensor_dtype odt = row_dtype(d->op, t->dtype);
    if (dims != NULL && ndims == 0) {
        /* PyTorch: an explicit empty dim list reduces nothing; each element becomes x != 0, as
         * bool (uint8 0/1 for uint8 input), in a new tensor (never the input itself). */
        if (t->dtype == TENSOR_BOOL) return tensor_clone(t);
        tensor_t *b = tensor_to_dtype(t, TENSOR_BOOL);
        if (b == NULL || odt == TENSOR_BOOL) return b;
        tensor_t *r = tensor_to_dtype(b, odt);
        tensor_release(b);
        return r;
    }
    return reduce_single(d, t, dims, ndims, keepdim, odt, &no_params);
}

tensor_t *tensor_all(const tensor_t *t, const int *dims, int ndims, bool keepdim) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_ALL, "tensor_all");
    return allany(&d, t, dims, ndims, keepdim);
}

tensor_t *tensor_any(const tensor_t *t, const int *dims, int ndims, bool keepdim) {
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_ANY, "tensor_any");
    return allany(&d, t, dims, ndims, keepdim);
}

/* ---- for the other reduction files of ops/ (ops/reduce_internal.h) ---- */

reduce_desc tensor_reduce_desc(tensor_op op, const char *func) {
    const tensor_reduction_row *row = tensor_op_reduction(op);
    reduce_desc d = {func, row->torch, op, row->has_identity != 0, row->identity, row->all_if_no_dims != 0};
    return d;
}

tensor_status tensor_reduce_check_input(const tensor_t *t, const char *func) { return check_input(t, func); }

tensor_dtype tensor_reduce_sum_dtype(tensor_dtype in, tensor_dtype requested) { return sum_dtype(in, requested); }

tensor_t *tensor_reduce_single(const reduce_desc *desc, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                               tensor_dtype out_dtype, const tensor_kernel_params *params) {
    return reduce_single(desc, t, dims, ndims, keepdim, out_dtype, params ? params : &no_params);
}

/* ---- explain ---- */

int64_t tensor_reduce_explain(const char *op, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                              tensor_dtype dtype, char *buf, size_t size) {
    static const char func[] = "tensor_reduce_explain";
    if (buf == NULL && size != 0) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'buf' is NULL with size %zu", func, size);
        return -1;
    }
    if (buf != NULL && size > 0) buf[0] = '\0';
    if (op == NULL) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'op' is NULL", func);
        return -1;
    }
    if (check_input(t, func) || check_dtype_arg(dtype, func)) return -1;
    /* The op's output dtypes and scalars, as its public function decides them (defaults:
     * norm p = 2, var correction = 1): the row of contract/reductions.h, found by its name or
     * by one of var_mean's other names (var, std, std_mean: the same kernel). */
    static const char *const var_names[] = {"var", "std", "std_mean"};
    tensor_op opk = TENSOR_NUM_REDUCTION_OPS;
    for (int i = 0; i < TENSOR_NUM_REDUCTION_OPS; i++)
        if (strcmp(op, tensor_op_reduction((tensor_op)i)->name) == 0) opk = (tensor_op)i;
    for (int i = 0; i < 3; i++)
        if (strcmp(op, var_names[i]) == 0) opk = TENSOR_OP_VAR_MEAN;
    if (opk == TENSOR_NUM_REDUCTION_OPS) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'op' names no reduction: '%s'", func, op);
        return -1;
    }
    const tensor_reduction_row *row = tensor_op_reduction(opk);
    tensor_dtype odt;
    if (tensor_reduce_rule_dtype(row->rule, t->dtype, dtype, &odt, func, op) != TENSOR_OK) return -1;
    tensor_dtype dtypes[2] = {odt, opk == TENSOR_OP_VAR_MEAN || opk == TENSOR_OP_AMINMAX ? odt : TENSOR_INT64};
    tensor_kernel_params params = {0};
    params.p = 2.0;
    params.correction = 1.0;
    params.take_sqrt = strncmp(op, "std", 3) == 0;
    reduce_desc d = tensor_reduce_desc(opk, func);
    tensor_t *outs[2] = {NULL, NULL};
    explain_sink ex = {buf, size, 0};
    if (reduce_run_ex(&d, t, dims, ndims, keepdim, row->nout, dtypes, outs, &params, &ex) != TENSOR_OK) return -1;
    return ex.len;
}

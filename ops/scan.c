/* Scans (ops/scan.h): argument checks and PyTorch's dtype rules here; the kernel registered
 * for TENSOR_OP_SCAN on the input's device walks the lines. The iterator runs over every
 * operand viewed with the scanned dim narrowed to one element (a line's start), and the kernel
 * gets each operand's byte stride along the line. */
#include <string.h>

#include "contract/dispatch.h"
#include "iterator/iter_local.h"
#include "ops/elementwise.h"
#include "ops/reduce_internal.h"
#include "ops/scan.h"
#include "runtime/error.h"
#include "runtime/tensor_impl.h"
#include "iterator/iter_internal.h"

static const char *const scan_names[] = {"cumsum", "cumprod", "logcumsumexp", "cummax", "cummin"};

/* Runs scan `kind` of t along dim into the fresh outputs outs[0..nout) (t's shape). */
static tensor_status run_scan(int kind, const tensor_t *t, int dim, tensor_t *const *outs, int nout,
                              const char *func) {
    if (tensor_numel(t) == 0) return TENSOR_OK;
    tensor_kernel_fn kernel = tensor_dispatch_get(TENSOR_OP_SCAN, t->storage->device.type, func);
    if (kernel == NULL) return tensor_last_status();
    /* A 0-d tensor is one line of one element. */
    const int64_t one = 1;
    tensor_t *views[3] = {NULL, NULL, NULL}; /* outputs' line starts, then the input's */
    const tensor_t *ops[3];
    for (int k = 0; k < nout; k++) ops[k] = outs[k];
    ops[nout] = t;
    tensor_status st = TENSOR_OK;
    tensor_kernel_params params;
    memset(&params, 0, sizeof params);
    params.scan_kind = kind;
    params.scan_len = t->ndim == 0 ? 1 : t->sizes[dim];
    for (int k = 0; k <= nout && st == TENSOR_OK; k++) {
        tensor_t *base = (tensor_t *)ops[k];
        if (t->ndim == 0) base = tensor_view(ops[k], 1, &one);
        else tensor_retain(base);
        views[k] = base != NULL ? tensor_narrow(base, t->ndim == 0 ? 0 : dim, 0, 1) : NULL;
        if (views[k] == NULL) st = tensor_last_status();
        else params.scan_strides[k] = (t->ndim == 0 ? 1 : ops[k]->strides[dim]) * (int64_t)tensor_dtype_size(ops[k]->dtype);
        tensor_release(base);
    }
    if (st == TENSOR_OK) {
        tensor_iter_config cfg;
        tensor_iter_t iter;
        tt_iter_config_init(&cfg, func);
        /* Each operand keeps its dtype (the kernel converts); the lines never overlap: the
         * outputs are fresh tensors. */
        tensor_iter_config_disable(&cfg, TENSOR_ITER_SAME_DTYPE | TENSOR_ITER_CHECK_OVERLAP);
        for (int k = 0; k < nout; k++) tensor_iter_config_add_output_dtype(&cfg, views[k], views[k]->dtype);
        tensor_iter_config_add_input(&cfg, views[nout]);
        st = tt_iter_build_into(&cfg, &iter);
        tt_iter_config_clear(&cfg);
        if (st == TENSOR_OK) {
            st = kernel(&iter, &params);
            tt_iter_clear(&iter);
        }
    }
    for (int k = 0; k <= nout; k++) tensor_release(views[k]);
    return st;
}

static tensor_status check(const tensor_t *t, int *dim, const char *func) {
    if (t == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 't' is NULL", func);
    const int rank = t->ndim == 0 ? 1 : t->ndim;
    if (*dim < -rank || *dim >= rank)
        return tensor_error(TENSOR_ERR_INDEX,
                            "%s: Dimension out of range (expected to be in range of [%d, %d], but got %d)", func, -rank,
                            rank - 1, *dim);
    if (*dim < 0) *dim += rank;
    return TENSOR_OK;
}

static tensor_t *scan1(int kind, const tensor_t *t, int dim, tensor_dtype odt, const char *func) {
    tensor_t *out = tensor_empty(t->ndim, t->sizes, odt, t->storage->device);
    if (out == NULL) return NULL;
    if (run_scan(kind, t, dim, &out, 1, func) != TENSOR_OK) {
        tensor_release(out);
        return NULL;
    }
    return out;
}

static tensor_t *cum(int kind, const tensor_t *t, int dim, tensor_dtype dtype, const char *func) {
    if (check(t, &dim, func) != TENSOR_OK) return NULL;
    if (dtype != TENSOR_DTYPE_DEFAULT && !tensor_dtype_is_valid(dtype))
        return tensor_error_null(TENSOR_ERR_DTYPE, "%s: unknown dtype %d", func, (int)dtype);
    tensor_dtype odt;
    if (tensor_reduce_rule_dtype(TENSOR_RULE_SUM, t->dtype, dtype, &odt, func, scan_names[kind]) != TENSOR_OK)
        return NULL;
    /* The kernels take an input of the output's dtype, an integer or bool input into int64, or
     * a 16-bit float into float32 (contract/dispatch.h); any other pair is converted first,
     * which is also PyTorch's rule (the input is cast to `dtype`, then scanned). */
    const tensor_dtype in = t->dtype;
    const bool direct = in == odt || (odt == TENSOR_INT64 && !tensor_dtype_is_floating(in)) ||
                        (odt == TENSOR_FLOAT32 && (in == TENSOR_FLOAT16 || in == TENSOR_BFLOAT16));
    if (direct) return scan1(kind, t, dim, odt, func);
    tensor_t *cast = tensor_to_dtype(t, odt);
    if (cast == NULL) return NULL;
    tensor_t *out = scan1(kind, cast, dim, odt, func);
    tensor_release(cast);
    return out;
}

tensor_t *tensor_cumsum(const tensor_t *t, int dim, tensor_dtype dtype) {
    return cum(TENSOR_SCAN_CUMSUM, t, dim, dtype, "tensor_cumsum");
}

tensor_t *tensor_cumprod(const tensor_t *t, int dim, tensor_dtype dtype) {
    return cum(TENSOR_SCAN_CUMPROD, t, dim, dtype, "tensor_cumprod");
}

tensor_t *tensor_logcumsumexp(const tensor_t *t, int dim) {
    static const char func[] = "tensor_logcumsumexp";
    if (check(t, &dim, func) != TENSOR_OK) return NULL;
    if (!tensor_dtype_is_floating(t->dtype))
        return tensor_error_null(TENSOR_ERR_DTYPE, "%s: logcumsumexp needs a floating input, got %s", func,
                                 tensor_dtype_name(t->dtype));
    tensor_dtype odt;
    if (tensor_reduce_rule_dtype(TENSOR_RULE_FLOAT, t->dtype, TENSOR_DTYPE_DEFAULT, &odt, func, "logcumsumexp") !=
        TENSOR_OK)
        return NULL;
    return scan1(TENSOR_SCAN_LOGCUMSUMEXP, t, dim, odt, func);
}

static tensor_status cumext(int kind, const tensor_t *t, int dim, tensor_t **values, tensor_t **indices,
                            const char *func) {
    if (values != NULL) *values = NULL;
    if (indices != NULL) *indices = NULL;
    if (values == NULL || indices == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func,
                            values == NULL ? "values" : "indices");
    if (check(t, &dim, func) != TENSOR_OK) return tensor_last_status();
    tensor_t *outs[2] = {tensor_empty(t->ndim, t->sizes, t->dtype, t->storage->device),
                         tensor_empty(t->ndim, t->sizes, TENSOR_INT64, t->storage->device)};
    tensor_status st = outs[0] != NULL && outs[1] != NULL ? run_scan(kind, t, dim, outs, 2, func) : tensor_last_status();
    if (st != TENSOR_OK) {
        tensor_release(outs[0]);
        tensor_release(outs[1]);
        return st;
    }
    *values = outs[0];
    *indices = outs[1];
    return TENSOR_OK;
}

tensor_status tensor_cummax(const tensor_t *t, int dim, tensor_t **values, tensor_t **indices) {
    return cumext(TENSOR_SCAN_CUMMAX, t, dim, values, indices, "tensor_cummax");
}

tensor_status tensor_cummin(const tensor_t *t, int dim, tensor_t **values, tensor_t **indices) {
    return cumext(TENSOR_SCAN_CUMMIN, t, dim, values, indices, "tensor_cummin");
}

/* ---- out= forms: computed by the plain form, then written into out (tt_out_finish) ---- */

static tensor_status out_args(const tensor_t *out, const char *name, const tensor_t *t, const char *func) {
    if (out == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, name);
    if (t == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 't' is NULL", func);
    return TENSOR_OK;
}

tensor_status tensor_cumsum_out(tensor_t *out, const tensor_t *t, int dim, tensor_dtype dtype) {
    static const char func[] = "tensor_cumsum_out";
    if (out_args(out, "out", t, func) != TENSOR_OK) return tensor_last_status();
    return tt_out_finish(func, "out", out, t,
                         cum(TENSOR_SCAN_CUMSUM, t, dim, dtype == TENSOR_DTYPE_DEFAULT ? out->dtype : dtype, func));
}

tensor_status tensor_cumprod_out(tensor_t *out, const tensor_t *t, int dim, tensor_dtype dtype) {
    static const char func[] = "tensor_cumprod_out";
    if (out_args(out, "out", t, func) != TENSOR_OK) return tensor_last_status();
    return tt_out_finish(func, "out", out, t,
                         cum(TENSOR_SCAN_CUMPROD, t, dim, dtype == TENSOR_DTYPE_DEFAULT ? out->dtype : dtype, func));
}

tensor_status tensor_logcumsumexp_out(tensor_t *out, const tensor_t *t, int dim) {
    static const char func[] = "tensor_logcumsumexp_out";
    if (out_args(out, "out", t, func) != TENSOR_OK) return tensor_last_status();
    return tt_out_finish(func, "out", out, t, tensor_logcumsumexp(t, dim));
}

static tensor_status cumext_out(int kind, tensor_t *values, tensor_t *indices, const tensor_t *t, int dim,
                                const char *func) {
    if (out_args(values, "values", t, func) != TENSOR_OK || out_args(indices, "indices", t, func) != TENSOR_OK)
        return tensor_last_status();
    tensor_t *v = NULL, *i = NULL;
    tensor_status st = cumext(kind, t, dim, &v, &i, func);
    if (st != TENSOR_OK) return st;
    st = tt_out_finish(func, "values", values, t, v);
    if (st == TENSOR_OK) return tt_out_finish(func, "indices", indices, t, i);
    tensor_release(i);
    return st;
}

tensor_status tensor_cummax_out(tensor_t *values, tensor_t *indices, const tensor_t *t, int dim) {
    return cumext_out(TENSOR_SCAN_CUMMAX, values, indices, t, dim, "tensor_cummax_out");
}

tensor_status tensor_cummin_out(tensor_t *values, tensor_t *indices, const tensor_t *t, int dim) {
    return cumext_out(TENSOR_SCAN_CUMMIN, values, indices, t, dim, "tensor_cummin_out");
}

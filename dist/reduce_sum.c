/* sum, mean, prod, amax, amin, norm and logsumexp over a dtensor: one partial per rank, folded
 * with the same op (or its sum, for mean and norm with p = 0). */
#include <math.h>

#include "dist/reduce_internal.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "runtime/error.h"

typedef enum { R_SUM, R_MEAN, R_PROD, R_AMAX, R_AMIN, R_NORM, R_LSE } red_kind;

typedef struct red_ctx {
    red_kind kind;
    const int *dims;
    int ndims;
    bool keepdim;
    tensor_dtype dtype; /* the caller's dtype= (sum, mean, prod) */
    tensor_dtype acc;   /* the partials' dtype (fold path) */
    tensor_dtype out;   /* the result's dtype (fold path) */
    double p;           /* norm's */
} red_ctx;

/* The local op itself, with the caller's arguments. */
static tensor_t *local_op(const tensor_t *t, void *vctx) {
    const red_ctx *c = vctx;
    switch (c->kind) {
    case R_SUM: return tensor_sum_dims(t, c->dims, c->ndims, c->keepdim, c->dtype);
    case R_MEAN: return tensor_mean(t, c->dims, c->ndims, c->keepdim, c->dtype);
    case R_PROD: return tensor_prod(t, c->dims, c->keepdim, c->dtype);
    case R_AMAX: return tensor_amax(t, c->dims, c->ndims, c->keepdim);
    case R_AMIN: return tensor_amin(t, c->dims, c->ndims, c->keepdim);
    case R_NORM: return tensor_norm(t, c->p, c->dims, c->ndims, c->keepdim);
    default: return tensor_logsumexp(t, c->dims, c->ndims, c->keepdim);
    }
}

/* One partial per rank: the local op with keepdim (so every output keeps its place) and, for
 * sums and products, the accumulation dtype; mean's partial is a sum. */
static tensor_status partial(const tt_dist_plan *p, int local, void *vctx, tensor_t **parts) {
    const red_ctx *c = vctx;
    const tensor_t *t = p->x->locals[local];
    tensor_t *r;
    switch (c->kind) {
    case R_SUM:
    case R_MEAN: r = tensor_sum_dims(t, c->dims, c->ndims, true, c->acc); break;
    case R_PROD: r = tensor_prod(t, c->dims, true, c->acc); break;
    case R_AMAX: r = tensor_amax(t, c->dims, c->ndims, true); break;
    case R_AMIN: r = tensor_amin(t, c->dims, c->ndims, true); break;
    case R_NORM: r = tensor_norm(t, c->p, c->dims, c->ndims, true); break;
    default: r = tensor_logsumexp(t, c->dims, c->ndims, true); break;
    }
    if (r != NULL && tensor_get_dtype(r) != c->acc) {
        /* A 16-bit norm or logsumexp: the local op rounded it to 16 bits; the fold runs in
         * float32 and rounds again at the end. */
        tensor_t *wide = tensor_to_dtype(r, c->acc);
        tensor_release(r);
        r = wide;
    }
    parts[0] = r;
    return r != NULL ? TENSOR_OK : tensor_last_status();
}

static tensor_t *fold(const tt_dist_plan *p, int local, void *vctx, tensor_t *const *g) {
    (void)local;
    const red_ctx *c = vctx;
    int zero = 0;
    tensor_t *r;
    switch (c->kind) {
    case R_SUM: r = tensor_sum_dims(g[0], &zero, 1, false, c->acc); break;
    case R_MEAN: {
        tensor_t *s = tensor_sum_dims(g[0], &zero, 1, false, c->acc);
        r = s != NULL ? tensor_div_scalar(s, tensor_scalar_float((double)tt_dist_plan_total(p)), TENSOR_ROUNDING_NONE)
                      : NULL;
        tensor_release(s);
        break;
    }
    case R_PROD: r = tensor_prod(g[0], &zero, false, c->acc); break;
    case R_AMAX: r = tensor_amax(g[0], &zero, 1, false); break;
    case R_AMIN: r = tensor_amin(g[0], &zero, 1, false); break;
    /* The norm of the partial norms is the norm, for every p but 0 (a count: their sum). */
    case R_NORM:
        r = c->p == 0.0 ? tensor_sum_dims(g[0], &zero, 1, false, c->acc) : tensor_norm(g[0], c->p, &zero, 1, false);
        break;
    default: r = tensor_logsumexp(g[0], &zero, 1, false); break;
    }
    if (r == NULL || tensor_get_dtype(r) == c->out) return r;
    tensor_t *o = tensor_to_dtype(r, c->out);
    tensor_release(r);
    return o;
}

static const tt_dist_fold_ops fold_ops = {1, partial, fold};

static bool is_fp8(tensor_dtype d) { return d == TENSOR_FLOAT8_E4M3FN || d == TENSOR_FLOAT8_E5M2; }

/* The local op's result dtype (ops/reduce.c's rules). The partial's own op checks the rest;
 * mean's partial is a sum, so mean's dtype errors are raised here, in tensor_mean's words. */
static tensor_status result_dtype(const red_ctx *c, tensor_dtype in, tensor_dtype *out, const char *func) {
    tensor_dtype req = c->dtype;
    if ((c->kind == R_SUM || c->kind == R_MEAN || c->kind == R_PROD) && req != TENSOR_DTYPE_DEFAULT &&
        !tensor_dtype_is_valid(req))
        return tensor_error(TENSOR_ERR_DTYPE, "%s: unknown dtype %d", func, (int)req);
    switch (c->kind) {
    case R_SUM:
    case R_PROD:
        *out = req != TENSOR_DTYPE_DEFAULT ? req : !tensor_dtype_is_floating(in) ? TENSOR_INT64 : is_fp8(in) ? TENSOR_FLOAT32 : in;
        return TENSOR_OK;
    case R_MEAN:
        if (req != TENSOR_DTYPE_DEFAULT && !tensor_dtype_is_floating(req))
            return tensor_error(TENSOR_ERR_DTYPE,
                                "%s: mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: %s",
                                func, tensor_dtype_name(req));
        if (req == TENSOR_DTYPE_DEFAULT && !tensor_dtype_is_floating(in))
            return tensor_error(TENSOR_ERR_DTYPE,
                                "%s: mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: %s",
                                func, tensor_dtype_name(in));
        *out = req != TENSOR_DTYPE_DEFAULT ? req : in;
        if (is_fp8(*out)) *out = TENSOR_FLOAT32;
        return TENSOR_OK;
    case R_AMAX:
    case R_AMIN: *out = in; return TENSOR_OK;
    default: /* norm (floats only: its partial refuses the rest), logsumexp (integers give float32) */
        *out = tensor_dtype_is_floating(in) && !is_fp8(in) ? in : TENSOR_FLOAT32;
        return TENSOR_OK;
    }
}

static tensor_dtensor_t *run(red_ctx *c, const tensor_dtensor_t *x, const char *func) {
    tt_dist_plan p;
    int ndims = c->kind == R_PROD ? (c->dims != NULL) : c->ndims;
    if (tt_dist_plan_make(x, c->dims, ndims, c->keepdim, &p, func) != TENSOR_OK) return NULL;
    if (!p.over_shard) return tt_dist_run_local(&p, local_op, c);
    if (result_dtype(c, tensor_get_dtype(x->locals[0]), &c->out, func) != TENSOR_OK) return NULL;
    switch (c->kind) {
    case R_SUM:
    case R_PROD: {
        /* Integers accumulate in the result dtype (int64, or the dtype= asked for: wrapping
         * then matches the unsharded op's exactly); floats in float32 or wider. */
        c->acc = tensor_dtype_is_floating(c->out) ? tt_dist_acc_dtype(c->out) : c->out;
        break;
    }
    case R_MEAN: c->acc = tt_dist_acc_dtype(c->out); break;
    case R_AMAX:
    case R_AMIN: c->acc = c->out; break;
    default: c->acc = tt_dist_acc_dtype(c->out); break;
    }
    return tt_dist_run_fold(&p, &fold_ops, c);
}

tensor_dtensor_t *tensor_dist_sum(const tensor_dtensor_t *x, const int *dims, int ndims, bool keepdim,
                                  tensor_dtype dtype) {
    red_ctx c = {.kind = R_SUM, .dims = dims, .ndims = ndims, .keepdim = keepdim, .dtype = dtype};
    return run(&c, x, "tensor_dist_sum");
}

tensor_dtensor_t *tensor_dist_mean(const tensor_dtensor_t *x, const int *dims, int ndims, bool keepdim,
                                   tensor_dtype dtype) {
    red_ctx c = {.kind = R_MEAN, .dims = dims, .ndims = ndims, .keepdim = keepdim, .dtype = dtype};
    return run(&c, x, "tensor_dist_mean");
}

tensor_dtensor_t *tensor_dist_prod(const tensor_dtensor_t *x, const int *dim, bool keepdim, tensor_dtype dtype) {
    red_ctx c = {.kind = R_PROD, .dims = dim, .ndims = dim != NULL, .keepdim = keepdim, .dtype = dtype};
    return run(&c, x, "tensor_dist_prod");
}

tensor_dtensor_t *tensor_dist_amax(const tensor_dtensor_t *x, const int *dims, int ndims, bool keepdim) {
    red_ctx c = {.kind = R_AMAX, .dims = dims, .ndims = ndims, .keepdim = keepdim};
    return run(&c, x, "tensor_dist_amax");
}

tensor_dtensor_t *tensor_dist_amin(const tensor_dtensor_t *x, const int *dims, int ndims, bool keepdim) {
    red_ctx c = {.kind = R_AMIN, .dims = dims, .ndims = ndims, .keepdim = keepdim};
    return run(&c, x, "tensor_dist_amin");
}

tensor_dtensor_t *tensor_dist_norm(const tensor_dtensor_t *x, double p, const int *dims, int ndims, bool keepdim) {
    red_ctx c = {.kind = R_NORM, .dims = dims, .ndims = ndims, .keepdim = keepdim, .p = p};
    return run(&c, x, "tensor_dist_norm");
}

tensor_dtensor_t *tensor_dist_logsumexp(const tensor_dtensor_t *x, const int *dims, int ndims, bool keepdim) {
    red_ctx c = {.kind = R_LSE, .dims = dims, .ndims = ndims, .keepdim = keepdim};
    return run(&c, x, "tensor_dist_logsumexp");
}

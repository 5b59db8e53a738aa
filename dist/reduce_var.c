/* var and std over a dtensor: Welford partials per rank, combined with Chan's formula.
 *
 * Rank r's partial over its n_r elements is (mean m_r, population variance v_r). For all ranks
 * at once, with every mean taken relative to rank 0's (D_r = m_r - m_0, small and exact where
 * the data has a large mean and a small spread):
 *     dbar = sum_r n_r D_r / N          (the global mean is m_0 + dbar)
 *     M2   = sum_r n_r v_r + sum_r n_r (D_r - dbar)^2
 *     var  = M2 / max(0, N - correction)
 * computed in float64 whatever the input dtype, and rounded once to the result dtype. The
 * partial means come from a float64 sum (one more pass over the shard but for float64 inputs):
 * rounded to float32 they would cost the between-rank term its precision. */
#include <math.h>

#include "dist/reduce_internal.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "runtime/error.h"

typedef struct var_ctx {
    double correction;
    const int *dims;
    int ndims;
    bool keepdim;
    bool take_sqrt;
    tensor_dtype out;
} var_ctx;

static tensor_t *local_op(const tensor_t *t, void *vctx) {
    const var_ctx *c = vctx;
    return c->take_sqrt ? tensor_std(t, c->correction, c->dims, c->ndims, c->keepdim)
                        : tensor_var(t, c->correction, c->dims, c->ndims, c->keepdim);
}

static tensor_status partial(const tt_dist_plan *p, int local, void *vctx, tensor_t **parts) {
    const var_ctx *c = vctx;
    const tensor_t *t = p->x->locals[local];
    tensor_t *v = NULL, *m = NULL;
    if (tensor_var_mean(t, 0.0, c->dims, c->ndims, true, &v, &m) != TENSOR_OK) return tensor_last_status();
    tensor_dtype dt = tensor_get_dtype(t);
    if (dt != TENSOR_FLOAT64 && m != NULL) {
        /* A mean rounded to the input's dtype (float32 1e4 + x: steps of 1e-3) would swamp the
         * between-rank term with its rounding: take it from a float64 sum, one more pass over
         * the shard (the sum converts while loading). */
        tensor_release(m);
        tensor_t *s = tensor_sum_dims(t, c->dims, c->ndims, true, TENSOR_FLOAT64);
        m = s != NULL ? tensor_div_scalar(s, tensor_scalar_float((double)tt_dist_plan_count(p, p->x->comm->ranks[local])),
                                          TENSOR_ROUNDING_NONE)
                      : NULL;
        tensor_release(s);
    }
    parts[0] = v != NULL ? tensor_to_dtype(v, TENSOR_FLOAT64) : NULL;
    parts[1] = m != NULL ? tensor_to_dtype(m, TENSOR_FLOAT64) : NULL;
    tensor_release(v);
    tensor_release(m);
    if (parts[0] != NULL && parts[1] != NULL) return TENSOR_OK;
    return tensor_last_status();
}

/* Holds the temporaries of the fold, released together. */
#define KEEP(expr) (tmp[ntmp++] = (expr))

static tensor_t *fold(const tt_dist_plan *p, int local, void *vctx, tensor_t *const *g) {
    const var_ctx *c = vctx;
    const tensor_comm_t *comm = p->x->comm;
    tensor_t *tmp[16] = {NULL};
    int ntmp = 0, zero = 0;
    tensor_t *result = NULL;
    const tensor_t *gv = g[0], *gm = g[1];
    /* n_r as a column [nranks, 1]: one fill per rank (no host-to-device copy, so no wait). */
    int64_t col[2] = {comm->nranks, 1};
    tensor_t *w = KEEP(tensor_empty(2, col, TENSOR_FLOAT64, comm->devices[local]));
    for (int r = 0; w != NULL && r < comm->nranks; r++) {
        tensor_t *row = tensor_narrow(w, 0, r, 1);
        tensor_status st = row != NULL ? tensor_fill_(row, tensor_scalar_float((double)tt_dist_plan_count(p, r)))
                                       : TENSOR_ERR_INTERNAL;
        tensor_release(row);
        if (st != TENSOR_OK) goto done;
    }
    double total = (double)tt_dist_plan_total(p);
    tensor_t *m0 = w ? KEEP(tensor_narrow(gm, 0, 0, 1)) : NULL;
    tensor_t *d = m0 ? KEEP(tensor_sub(gm, m0, tensor_scalar_int(1))) : NULL;
    tensor_t *wd = d ? KEEP(tensor_mul(d, w)) : NULL;
    tensor_t *swd = wd ? KEEP(tensor_sum_dims(wd, &zero, 1, true, TENSOR_DTYPE_DEFAULT)) : NULL;
    tensor_t *dbar = swd ? KEEP(tensor_div_scalar(swd, tensor_scalar_float(total), TENSOR_ROUNDING_NONE)) : NULL;
    tensor_t *dev = dbar ? KEEP(tensor_sub(d, dbar, tensor_scalar_int(1))) : NULL;
    tensor_t *dev2 = dev ? KEEP(tensor_mul(dev, dev)) : NULL;
    tensor_t *between = dev2 ? KEEP(tensor_mul(dev2, w)) : NULL;
    tensor_t *within = between ? KEEP(tensor_mul(gv, w)) : NULL;
    tensor_t *both = within ? KEEP(tensor_add(within, between, tensor_scalar_int(1))) : NULL;
    tensor_t *m2 = both ? KEEP(tensor_sum_dims(both, &zero, 1, false, TENSOR_DTYPE_DEFAULT)) : NULL;
    double denom = total - c->correction > 0.0 ? total - c->correction : 0.0;
    tensor_t *var = m2 ? KEEP(tensor_div_scalar(m2, tensor_scalar_float(denom), TENSOR_ROUNDING_NONE)) : NULL;
    tensor_t *fin = var && c->take_sqrt ? KEEP(tensor_sqrt(var)) : var;
    if (fin != NULL) result = tensor_to_dtype(fin, c->out);
done:
    for (int i = 0; i < ntmp; i++) tensor_release(tmp[i]);
    return result;
}

static const tt_dist_fold_ops fold_ops = {2, partial, fold};

static tensor_dtensor_t *run(var_ctx *c, const tensor_dtensor_t *x, const char *func) {
    tt_dist_plan p;
    if (tt_dist_plan_make(x, c->dims, c->ndims, c->keepdim, &p, func) != TENSOR_OK) return NULL;
    if (!p.over_shard) return tt_dist_run_local(&p, local_op, c);
    /* The partials use correction 0: the caller's is checked here, as tensor_var would. */
    if (!isfinite(c->correction))
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: correction must be finite, got %g", func,
                                 c->correction);
    tensor_dtype in = tensor_get_dtype(x->locals[0]);
    c->out = in == TENSOR_FLOAT8_E4M3FN || in == TENSOR_FLOAT8_E5M2 ? TENSOR_FLOAT32 : in;
    return tt_dist_run_fold(&p, &fold_ops, c);
}

tensor_dtensor_t *tensor_dist_var(const tensor_dtensor_t *x, double correction, const int *dims, int ndims,
                                  bool keepdim) {
    var_ctx c = {.correction = correction, .dims = dims, .ndims = ndims, .keepdim = keepdim};
    return run(&c, x, "tensor_dist_var");
}

tensor_dtensor_t *tensor_dist_std(const tensor_dtensor_t *x, double correction, const int *dims, int ndims,
                                  bool keepdim) {
    var_ctx c = {.correction = correction, .dims = dims, .ndims = ndims, .keepdim = keepdim, .take_sqrt = true};
    return run(&c, x, "tensor_dist_std");
}

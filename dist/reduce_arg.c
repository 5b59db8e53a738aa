/* argmax and argmin over a dtensor: each rank's (extreme value, global index) pair, then on
 * every rank the extreme of the values and, among the ranks holding it (or holding a NaN, which
 * wins as in the local op), the smallest global index: the first occurrence in the logical
 * tensor, whichever ranks hold which slices. */
#include <stdint.h>

#include "dist/reduce_internal.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "runtime/error.h"

typedef struct arg_ctx {
    const int *dim;
    bool keepdim;
    bool is_max;
} arg_ctx;

/* Larger than any index a tensor can have: a candidate that lost. */
#define LOSER ((int64_t)1 << 62)

static tensor_t *local_op(const tensor_t *t, void *vctx) {
    const arg_ctx *c = vctx;
    return c->is_max ? tensor_argmax(t, c->dim, c->keepdim) : tensor_argmin(t, c->dim, c->keepdim);
}

/* idx + a * floor(idx / b) + k, in int64 (a and b only when b > 0). */
static tensor_t *affine_index(const tensor_t *idx, int64_t a, int64_t b, int64_t k) {
    tensor_t *q = NULL, *qa = NULL, *sum = NULL;
    if (b > 0 && a != 0) {
        q = tensor_div_scalar(idx, tensor_scalar_int(b), TENSOR_ROUNDING_FLOOR);
        qa = q != NULL ? tensor_mul_scalar(q, tensor_scalar_int(a)) : NULL;
        sum = qa != NULL ? tensor_add(idx, qa, tensor_scalar_int(1)) : NULL;
    } else {
        sum = tensor_retain((tensor_t *)idx);
    }
    tensor_t *r = sum != NULL ? tensor_add_scalar(sum, tensor_scalar_int(k), tensor_scalar_int(1)) : NULL;
    tensor_release(q);
    tensor_release(qa);
    tensor_release(sum);
    return r;
}

static tensor_status partial(const tt_dist_plan *p, int local, void *vctx, tensor_t **parts) {
    const arg_ctx *c = vctx;
    const tensor_dtensor_t *x = p->x;
    const tensor_t *t = x->locals[local];
    int rank = x->comm->ranks[local];
    int64_t off = x->offsets[rank], len = x->lengths[rank];
    tensor_t *flat = NULL, *v = NULL, *i = NULL;
    int zero = 0;
    tensor_status st;
    if (c->dim != NULL) {
        /* The dim is the sharded one (the fold path): a local index plus the slice's offset. */
        st = c->is_max ? tensor_max_dim(t, *c->dim, true, &v, &i) : tensor_min_dim(t, *c->dim, true, &v, &i);
    } else {
        int64_t all = -1;
        flat = tensor_reshape(t, 1, &all);
        st = flat == NULL ? tensor_last_status()
             : c->is_max  ? tensor_max_dim(flat, zero, true, &v, &i)
                          : tensor_min_dim(flat, zero, true, &v, &i);
    }
    tensor_release(flat);
    if (st != TENSOR_OK) return st;
    /* Row-major flat index: element (o, j, k) of the shard (o over the dims before the sharded
     * one, j along it, k over those after, `inner` of them) is o * (G * inner) + (off + j) *
     * inner + k in the logical tensor, i.e. its local flat index plus o * (G - len) * inner plus
     * off * inner. With a dim, inner is 1 and o does not occur. */
    int64_t inner = 1;
    if (c->dim == NULL)
        for (int d = x->dim + 1; d < x->ndim; d++) inner *= x->sizes[d];
    int64_t global_len = x->sizes[x->dim];
    /* The fold compares the values (eq, isnan), which the float8 types lack: widen them to
     * float32, exactly and in the same order (NaN stays NaN). */
    if (v != NULL && tt_dist_acc_dtype(tensor_get_dtype(v)) != tensor_get_dtype(v)) {
        tensor_t *wide = tensor_to_dtype(v, tt_dist_acc_dtype(tensor_get_dtype(v)));
        tensor_release(v);
        v = wide;
        if (v == NULL) {
            tensor_release(i);
            return tensor_last_status();
        }
    }
    parts[0] = v;
    parts[1] = c->dim == NULL ? affine_index(i, (global_len - len) * inner, len * inner, off * inner)
                              : affine_index(i, 0, 0, off);
    tensor_release(i);
    return parts[1] != NULL ? TENSOR_OK : tensor_last_status();
}

static tensor_t *fold(const tt_dist_plan *p, int local, void *vctx, tensor_t *const *g) {
    (void)p;
    (void)local;
    const arg_ctx *c = vctx;
    int zero = 0;
    tensor_t *best = c->is_max ? tensor_amax(g[0], &zero, 1, true) : tensor_amin(g[0], &zero, 1, true);
    tensor_t *hit = best != NULL ? tensor_eq(g[0], best) : NULL;
    tensor_t *nan = hit != NULL ? tensor_isnan(g[0]) : NULL;
    tensor_t *win = nan != NULL ? tensor_logical_or(hit, nan) : NULL;
    tensor_t *lose = win != NULL ? tensor_logical_not(win) : NULL;
    tensor_t *penalty = lose != NULL ? tensor_mul_scalar(lose, tensor_scalar_int(LOSER)) : NULL;
    tensor_t *cand = penalty != NULL ? tensor_add(g[1], penalty, tensor_scalar_int(1)) : NULL;
    tensor_t *r = cand != NULL ? tensor_amin(cand, &zero, 1, false) : NULL;
    tensor_release(best);
    tensor_release(hit);
    tensor_release(nan);
    tensor_release(win);
    tensor_release(lose);
    tensor_release(penalty);
    tensor_release(cand);
    return r;
}

static const tt_dist_fold_ops fold_ops = {2, partial, fold};

static tensor_dtensor_t *run(arg_ctx *c, const tensor_dtensor_t *x, const char *func) {
    tt_dist_plan p;
    if (tt_dist_plan_make(x, c->dim, c->dim != NULL, c->keepdim, &p, func) != TENSOR_OK) return NULL;
    if (!p.over_shard) return tt_dist_run_local(&p, local_op, c);
    /* max_dim, which the partials use, takes bool; argmax does not. */
    if (tensor_get_dtype(x->locals[0]) == TENSOR_BOOL)
        return tensor_error_null(TENSOR_ERR_DTYPE, "%s: %s does not support bool input", func,
                                 c->is_max ? "argmax():" : "argmin():");
    return tt_dist_run_fold(&p, &fold_ops, c);
}

tensor_dtensor_t *tensor_dist_argmax(const tensor_dtensor_t *x, const int *dim, bool keepdim) {
    arg_ctx c = {.dim = dim, .keepdim = keepdim, .is_max = true};
    return run(&c, x, "tensor_dist_argmax");
}

tensor_dtensor_t *tensor_dist_argmin(const tensor_dtensor_t *x, const int *dim, bool keepdim) {
    arg_ctx c = {.dim = dim, .keepdim = keepdim, .is_max = false};
    return run(&c, x, "tensor_dist_argmin");
}

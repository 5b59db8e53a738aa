/* The two paths of a reduction over a dtensor: purely local when the sharded dim is kept,
 * partials + all-gather + a fold in rank order when it is reduced. */
#include "dist/reduce_internal.h"
#include "runtime/error.h"

tensor_dtype tt_dist_acc_dtype(tensor_dtype dt) {
    switch (dt) {
    case TENSOR_FLOAT16:
    case TENSOR_BFLOAT16:
    case TENSOR_FLOAT8_E4M3FN:
    case TENSOR_FLOAT8_E5M2: return TENSOR_FLOAT32;
    default: return dt;
    }
}

tensor_status tt_dist_plan_make(const tensor_dtensor_t *x, const int *dims, int ndims, bool keepdim, tt_dist_plan *p,
                                const char *func) {
    if (x == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'x' is NULL", func);
    *p = (tt_dist_plan){.func = func, .x = x, .keepdim = keepdim, .other = 1};
    if (x->dim < 0) return TENSOR_OK;
    bool all = dims == NULL || ndims == 0;
    if (!all && (ndims < 0 || ndims > TENSOR_MAX_DIMS))
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'ndims' is %d", func, ndims);
    for (int k = 0; !all && k < ndims; k++) {
        int d = dims[k] < 0 ? dims[k] + x->ndim : dims[k];
        if (d < 0 || d >= x->ndim)
            return tensor_error(TENSOR_ERR_INDEX,
                                "%s: Dimension out of range (expected to be in range of [%d, %d], but got %d)", func,
                                -x->ndim, x->ndim - 1, dims[k]);
        if (p->reduced[d])
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: dim %d appears multiple times in the list of dims",
                                func, d);
        p->reduced[d] = true;
    }
    for (int d = 0; d < x->ndim; d++) {
        if (all) p->reduced[d] = true;
        if (p->reduced[d] && d != x->dim) p->other *= x->sizes[d];
        if (!p->reduced[d]) p->out_sizes[p->out_ndim++] = x->sizes[d];
        else if (keepdim) p->out_sizes[p->out_ndim++] = 1;
    }
    p->over_shard = p->reduced[x->dim];
    return TENSOR_OK;
}

int64_t tt_dist_plan_count(const tt_dist_plan *p, int rank) { return p->x->lengths[rank] * p->other; }

int64_t tt_dist_plan_total(const tt_dist_plan *p) { return p->x->sizes[p->x->dim] * p->other; }

tensor_dtensor_t *tt_dist_run_local(const tt_dist_plan *p, tt_dist_local_fn op, void *ctx) {
    const tensor_dtensor_t *x = p->x;
    const int n = x->comm->nlocal;
    tensor_t *res[TT_DIST_MAX_LOCAL] = {NULL};
    for (int i = 0; i < n; i++)
        if ((res[i] = op(x->locals[i], ctx)) == NULL) {
            tt_dist_rethrow(p->func);
            for (int k = 0; k < i; k++) tensor_release(res[k]);
            return NULL;
        }
    int dim = x->dim;
    if (dim >= 0 && !p->keepdim)
        for (int d = 0; d < x->dim; d++) dim -= p->reduced[d];
    /* The logical shape: the local result's, with the sharded dim's global length. */
    int64_t sizes[TENSOR_MAX_DIMS];
    int nd = tensor_ndim(res[0]);
    for (int d = 0; d < nd; d++) sizes[d] = tensor_size(res[0], d);
    if (dim >= 0) sizes[dim] = x->sizes[x->dim];
    return tt_dtensor_make(x->comm, res, dim, nd, sizes, x->offsets, x->lengths, p->func);
}

static void release_all(tensor_t **ts, int n) {
    for (int i = 0; i < n; i++) {
        tensor_release(ts[i]);
        ts[i] = NULL;
    }
}

tensor_dtensor_t *tt_dist_run_fold(const tt_dist_plan *p, const tt_dist_fold_ops *ops, void *ctx) {
    const tensor_comm_t *c = p->x->comm;
    const int n = c->nlocal, np = ops->nparts;
    /* parts[k][i]: part k of local rank i. Every local rank's partials are queued before the
     * exchange, so the GPUs of one process compute them at the same time. */
    tensor_t *parts[TT_DIST_MAX_PARTS][TT_DIST_MAX_LOCAL] = {{NULL}};
    tensor_t *gathered[TT_DIST_MAX_PARTS][TT_DIST_MAX_LOCAL] = {{NULL}};
    tensor_t *res[TT_DIST_MAX_LOCAL] = {NULL};
    tensor_status st = TENSOR_OK;
    for (int i = 0; i < n && st == TENSOR_OK; i++) {
        tensor_t *mine[TT_DIST_MAX_PARTS] = {NULL};
        st = ops->partial(p, i, ctx, mine);
        for (int k = 0; k < np; k++) parts[k][i] = mine[k];
        if (st != TENSOR_OK) tt_dist_rethrow(p->func);
    }
    for (int k = 0; k < np && st == TENSOR_OK; k++) st = tt_dist_gather_partials(c, parts[k], gathered[k], p->func);
    for (int k = 0; k < np; k++) release_all(parts[k], n);
    for (int i = 0; i < n && st == TENSOR_OK; i++) {
        tensor_t *g[TT_DIST_MAX_PARTS];
        for (int k = 0; k < np; k++) g[k] = gathered[k][i];
        tensor_t *folded = ops->fold(p, i, ctx, g);
        if (folded == NULL) {
            st = tt_dist_rethrow(p->func);
            break;
        }
        res[i] = tensor_view(folded, p->out_ndim, p->out_sizes);
        tensor_release(folded);
        if (res[i] == NULL) st = tt_dist_rethrow(p->func);
    }
    for (int k = 0; k < np; k++) release_all(gathered[k], n);
    if (st != TENSOR_OK) {
        release_all(res, n);
        return NULL;
    }
    return tt_dtensor_make(p->x->comm, res, -1, p->out_ndim, p->out_sizes, NULL, NULL, p->func);
}

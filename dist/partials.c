/* What every reduction over the sharded dim shares: moving the per-rank partials (small: one
 * value per output) to every rank, and reporting a failing local op under the dist call's name. */
#include "dist/dist_internal.h"
#include "runtime/error.h"

tensor_status tt_dist_rethrow(const char *func) {
    return tensor_error(tensor_last_status(), "%s: %s", func, tensor_last_error());
}

void *tt_dist_rethrow_null(const char *func) {
    tt_dist_rethrow(func);
    return NULL;
}

tensor_status tt_dist_gather_partials(const tensor_comm_t *c, tensor_t *const *parts, tensor_t **gathered,
                                      const char *func) {
    int64_t m = tensor_numel(parts[0]);
    tensor_dtype dt = tensor_get_dtype(parts[0]);
    /* Flat rows: a partial of TENSOR_MAX_DIMS dims could not take one more. */
    int64_t shape[2] = {c->nranks, m};
    const void *send[TT_DIST_MAX_LOCAL];
    void *recv[TT_DIST_MAX_LOCAL];
    tensor_status st = TENSOR_OK;
    for (int i = 0; i < c->nlocal; i++) gathered[i] = NULL;
    for (int i = 0; i < c->nlocal && st == TENSOR_OK; i++) {
        if (!tensor_is_contiguous(parts[i]) || tensor_numel(parts[i]) != m || tensor_get_dtype(parts[i]) != dt)
            st = tensor_error(TENSOR_ERR_INTERNAL, "%s: local rank %d's partial does not match rank 0's", func, i);
        else if ((gathered[i] = tensor_empty(2, shape, dt, c->devices[i])) == NULL)
            st = tt_dist_rethrow(func);
        else {
            send[i] = tensor_data(parts[i]);
            recv[i] = tensor_data(gathered[i]);
        }
    }
    if (st == TENSOR_OK && m > 0) st = c->xp->all_gather(c, send, recv, (size_t)m * tensor_dtype_size(dt), func);
    if (st != TENSOR_OK)
        for (int i = 0; i < c->nlocal; i++) {
            tensor_release(gathered[i]);
            gathered[i] = NULL;
        }
    return st;
}

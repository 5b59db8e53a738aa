/* The whole logical tensor on every rank: each shard with its sharded dim moved first and made
 * contiguous is one block of bytes, the blocks are all-gathered in slice order, and the result
 * is permuted back. */
#include <stdlib.h>

#include "dist/dist_internal.h"
#include "runtime/alloc.h"
#include "runtime/error.h"

tensor_status tensor_dtensor_gather(const tensor_dtensor_t *x, tensor_dtensor_t **out) {
    const char *func = "tensor_dtensor_gather";
    TENSOR_CHECK_NOT_NULL(out, func, "out");
    *out = NULL;
    TENSOR_CHECK_NOT_NULL(x, func, "x");
    if (x->dim < 0) {
        *out = tensor_dtensor_retain((tensor_dtensor_t *)x);
        return TENSOR_OK;
    }
    const tensor_comm_t *c = x->comm;
    const int n = c->nlocal, nd = x->ndim, dim = x->dim;
    int perm[TENSOR_MAX_DIMS], inv[TENSOR_MAX_DIMS];
    perm[0] = dim;
    for (int d = 0, k = 1; d < nd; d++)
        if (d != dim) perm[k++] = d;
    for (int k = 0; k < nd; k++) inv[perm[k]] = k;
    int64_t big[TENSOR_MAX_DIMS];
    for (int k = 0; k < nd; k++) big[k] = x->sizes[perm[k]];
    int64_t inner = 1;
    for (int k = 1; k < nd; k++) inner *= big[k];
    size_t es = tensor_dtype_size(tensor_get_dtype(x->locals[0]));

    tensor_t *packed[TT_DIST_MAX_LOCAL] = {NULL}, *full[TT_DIST_MAX_LOCAL] = {NULL};
    const void *send[TT_DIST_MAX_LOCAL];
    void *recv[TT_DIST_MAX_LOCAL];
    tensor_status st = TENSOR_OK;
    for (int i = 0; i < n && st == TENSOR_OK; i++) {
        tensor_t *moved = tensor_permute(x->locals[i], perm);
        packed[i] = moved != NULL ? tensor_contiguous(moved) : NULL;
        tensor_release(moved);
        full[i] = packed[i] != NULL ? tensor_empty(nd, big, tensor_get_dtype(x->locals[i]), c->devices[i]) : NULL;
        if (full[i] == NULL) st = tt_dist_rethrow(func);
        else {
            send[i] = tensor_data(packed[i]);
            recv[i] = tensor_data(full[i]);
        }
    }
    /* Equal slices in rank order are NCCL's all-gather; any other tiling one broadcast per rank. */
    bool even = true;
    for (int r = 0; r < c->nranks; r++) even = even && x->lengths[r] == x->lengths[0] && x->offsets[r] == r * x->lengths[0];
    if (st == TENSOR_OK && inner > 0) {
        if (even) {
            st = c->xp->all_gather(c, send, recv, (size_t)(x->lengths[0] * inner) * es, func);
        } else {
            size_t *bytes = tt_malloc(2 * (size_t)c->nranks * sizeof *bytes), *displs = bytes + c->nranks;
            if (bytes == NULL) st = tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
            for (int r = 0; st == TENSOR_OK && r < c->nranks; r++) {
                bytes[r] = (size_t)(x->lengths[r] * inner) * es;
                displs[r] = (size_t)(x->offsets[r] * inner) * es;
            }
            if (st == TENSOR_OK) st = c->xp->all_gatherv(c, send, recv, bytes, displs, func);
            free(bytes);
        }
    }
    tensor_t *res[TT_DIST_MAX_LOCAL] = {NULL};
    for (int i = 0; i < n && st == TENSOR_OK; i++) {
        tensor_t *back = tensor_permute(full[i], inv);
        res[i] = back != NULL ? tensor_contiguous(back) : NULL;
        tensor_release(back);
        if (res[i] == NULL) st = tt_dist_rethrow(func);
    }
    for (int i = 0; i < n; i++) {
        tensor_release(packed[i]);
        tensor_release(full[i]);
    }
    if (st != TENSOR_OK) {
        for (int i = 0; i < n; i++) tensor_release(res[i]);
        return st;
    }
    *out = tt_dtensor_make(x->comm, res, -1, nd, x->sizes, NULL, NULL, func);
    return *out != NULL ? TENSOR_OK : tensor_last_status();
}

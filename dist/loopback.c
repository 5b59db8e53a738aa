/* The loopback transport: a clique whose ranks all live in this process, moving bytes with
 * memcpy (CPU) or one device copy (a single CUDA rank) and reducing with the library's own
 * elementwise ops in rank order. The tests run the whole dist module over it, folds included,
 * on machines without a GPU or NCCL; it also fixes the semantics the NCCL transport must match. */
#include <string.h>

#include "cuda/cuda_backend.h"
#include "dist/dist_internal.h"
#include "ops/elementwise.h"
#include "runtime/error.h"

static tensor_status copy_bytes(const tensor_comm_t *c, void *dst, const void *src, size_t bytes, const char *func) {
    if (bytes == 0 || dst == src) return TENSOR_OK;
    tensor_device d = c->devices[0];
    if (d.type == TENSOR_DEVICE_CPU) {
        memmove(dst, src, bytes);
        return TENSOR_OK;
    }
    return tensor_cuda_memcpy(dst, d, src, d, bytes, func);
}

static tensor_status all_gather(const tensor_comm_t *c, const void *const *send, void *const *recv, size_t bytes,
                                const char *func) {
    for (int i = 0; i < c->nlocal; i++)
        for (int r = 0; r < c->nranks; r++) {
            tensor_status st = copy_bytes(c, (char *)recv[i] + (size_t)r * bytes, send[r], bytes, func);
            if (st != TENSOR_OK) return st;
        }
    return TENSOR_OK;
}

static tensor_status all_gatherv(const tensor_comm_t *c, const void *const *send, void *const *recv,
                                 const size_t *bytes, const size_t *displs, const char *func) {
    for (int i = 0; i < c->nlocal; i++)
        for (int r = 0; r < c->nranks; r++) {
            tensor_status st = copy_bytes(c, (char *)recv[i] + displs[r], send[r], bytes[r], func);
            if (st != TENSOR_OK) return st;
        }
    return TENSOR_OK;
}

static tensor_status broadcast(const tensor_comm_t *c, const void *const *send, void *const *recv, size_t bytes,
                               int root, const char *func) {
    /* The root's own copy last, in case its send and recv are one buffer. */
    for (int i = 0; i < c->nlocal; i++) {
        if (i == root) continue;
        tensor_status st = copy_bytes(c, recv[i], send[root], bytes, func);
        if (st != TENSOR_OK) return st;
    }
    return copy_bytes(c, recv[root], send[root], bytes, func);
}

static tensor_t *wrap(const tensor_comm_t *c, const void *p, size_t offset, size_t count, tensor_dtype dt) {
    int64_t n = (int64_t)count;
    return tensor_from_blob((char *)p + offset * tensor_dtype_size(dt), 1, &n, NULL, dt, c->devices[0], NULL, NULL);
}

/* op over the ranks' send[r][offset, offset + count), in rank order, into a new tensor. */
static tensor_t *reduce_ranks(const tensor_comm_t *c, const void *const *send, size_t offset, size_t count,
                              tensor_dtype dt, tensor_dist_op op, const char *func) {
    tensor_t *first = wrap(c, send[0], offset, count, dt);
    tensor_t *acc = first != NULL ? tensor_clone(first) : NULL;
    tensor_release(first);
    for (int r = 1; acc != NULL && r < c->nranks; r++) {
        tensor_t *x = wrap(c, send[r], offset, count, dt);
        tensor_status st = x == NULL ? tensor_last_status()
                           : op == TENSOR_DIST_PROD ? tensor_mul_(acc, x)
                           : op == TENSOR_DIST_MAX  ? tensor_maximum_(acc, x)
                           : op == TENSOR_DIST_MIN  ? tensor_minimum_(acc, x)
                                                    : tensor_add_(acc, x, tensor_scalar_int(1));
        tensor_release(x);
        if (st != TENSOR_OK) {
            tensor_release(acc);
            return tt_dist_rethrow_null(func);
        }
    }
    if (acc != NULL && op == TENSOR_DIST_AVG) {
        tensor_t *avg = tensor_div_scalar(acc, tensor_scalar_int(c->nranks), TENSOR_ROUNDING_NONE);
        tensor_release(acc);
        acc = avg != NULL ? avg : tt_dist_rethrow_null(func);
    }
    return acc;
}

static tensor_status store(const tensor_comm_t *c, void *dst, const tensor_t *value, size_t count, tensor_dtype dt,
                           const char *func) {
    tensor_t *d = wrap(c, dst, 0, count, dt);
    tensor_status st = d != NULL ? tensor_copy_(d, value) : tensor_last_status();
    tensor_release(d);
    return st == TENSOR_OK ? st : tt_dist_rethrow(func);
}

static tensor_status all_reduce(const tensor_comm_t *c, const void *const *send, void *const *recv, size_t count,
                                tensor_dtype dt, tensor_dist_op op, const char *func) {
    if (count == 0) return TENSOR_OK;
    tensor_t *acc = reduce_ranks(c, send, 0, count, dt, op, func);
    if (acc == NULL) return tensor_last_status();
    tensor_status st = TENSOR_OK;
    for (int i = 0; i < c->nlocal && st == TENSOR_OK; i++) st = store(c, recv[i], acc, count, dt, func);
    tensor_release(acc);
    return st;
}

static tensor_status reduce_scatter(const tensor_comm_t *c, const void *const *send, void *const *recv,
                                    size_t recvcount, tensor_dtype dt, tensor_dist_op op, const char *func) {
    if (recvcount == 0) return TENSOR_OK;
    /* Every block is reduced before any is stored: an output may alias an input. */
    tensor_t *blocks[TT_DIST_MAX_LOCAL] = {NULL};
    tensor_status st = TENSOR_OK;
    for (int i = 0; i < c->nlocal && st == TENSOR_OK; i++) {
        blocks[i] = reduce_ranks(c, send, (size_t)c->ranks[i] * recvcount, recvcount, dt, op, func);
        if (blocks[i] == NULL) st = tensor_last_status();
    }
    for (int i = 0; i < c->nlocal && st == TENSOR_OK; i++) st = store(c, recv[i], blocks[i], recvcount, dt, func);
    for (int i = 0; i < c->nlocal; i++) tensor_release(blocks[i]);
    return st;
}

/* The loopback reduces with tensor ops, which take every dtype but int16 the way NCCL does not:
 * refuse what NCCL refuses, so the tests see one behaviour. */
static tensor_status check_reduce_dtype(tensor_dtype dt, const char *func) {
    if (dt == TENSOR_INT16 || dt == TENSOR_FLOAT8_E4M3FN || dt == TENSOR_FLOAT8_E5M2)
        return tensor_error(TENSOR_ERR_DTYPE, "%s: the loopback transport cannot reduce %s", func,
                            tensor_dtype_name(dt));
    return TENSOR_OK;
}

static const tt_dist_transport loopback = {
    "loopback", all_gather, all_gatherv, broadcast, all_reduce, reduce_scatter, check_reduce_dtype, NULL,
};

tensor_status tt_comm_loopback(int n, tensor_device device, tensor_comm_t **out) {
    const char *func = "tt_comm_loopback";
    TENSOR_CHECK_NOT_NULL(out, func, "out");
    *out = NULL;
    if (n < 1 || n > TT_DIST_MAX_LOCAL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: %d ranks, expected 1 to %d", func, n, TT_DIST_MAX_LOCAL);
    if (device.type != TENSOR_DEVICE_CPU && n != 1)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: %d ranks on a CUDA device: one only", func, n);
    if (tensor_device_check(device, func) != TENSOR_OK) return tensor_last_status();
    tensor_comm_t *c = tt_comm_alloc(n, n, &loopback, func);
    if (c == NULL) return TENSOR_ERR_OUT_OF_MEMORY;
    for (int i = 0; i < n; i++) {
        c->ranks[i] = i;
        c->devices[i] = device;
    }
    *out = c;
    return TENSOR_OK;
}

/* The NCCL transport: each call issues one NCCL collective per local rank, as one NCCL group
 * (one thread driving several GPUs must group them, or the first would wait for the others),
 * on each device's current stream, so it is ordered with the library's own work there. */
#include "dist/nccl_lib.h"

#if TENSOR_HAVE_NCCL

#include "runtime/error.h"

static void *stream_of(const tensor_comm_t *c, int i) { return tensor_cuda_get_stream(c->devices[i].index); }

/* NCCL's dtype for an arithmetic collective on dt, or -1. */
static int nccl_dtype(const tt_nccl_api *a, tensor_dtype dt) {
    switch (dt) {
    case TENSOR_BOOL:
    case TENSOR_UINT8: return TT_NCCL_UINT8;
    case TENSOR_INT8: return TT_NCCL_INT8;
    case TENSOR_INT32: return TT_NCCL_INT32;
    case TENSOR_INT64: return TT_NCCL_INT64;
    case TENSOR_FLOAT16: return TT_NCCL_FLOAT16;
    case TENSOR_BFLOAT16: return TT_NCCL_BFLOAT16;
    case TENSOR_FLOAT32: return TT_NCCL_FLOAT32;
    case TENSOR_FLOAT64: return TT_NCCL_FLOAT64;
    /* Reductions of float8 arrived in NCCL 2.24. */
    case TENSOR_FLOAT8_E4M3FN: return a->version >= 22400 ? TT_NCCL_FLOAT8E4M3 : -1;
    case TENSOR_FLOAT8_E5M2: return a->version >= 22400 ? TT_NCCL_FLOAT8E5M2 : -1;
    default: return -1;
    }
}

static tensor_status check_reduce_dtype(tensor_dtype dt, const char *func) {
    const tt_nccl_api *a = tt_nccl(func);
    if (a == NULL) return TENSOR_ERR_NOT_IMPLEMENTED;
    if (nccl_dtype(a, dt) < 0)
        return tensor_error(TENSOR_ERR_DTYPE, "%s: NCCL %d cannot reduce %s", func, a->version, tensor_dtype_name(dt));
    return TENSOR_OK;
}

/* Ends the group whatever happened inside it; the first error wins. */
static tensor_status group_end(const tt_nccl_api *a, tensor_status st, const char *func) {
    tensor_status e = tt_nccl_error(a, a->group_end(), NULL, func);
    return st != TENSOR_OK ? st : e;
}

static tensor_status all_gather(const tensor_comm_t *c, const void *const *send, void *const *recv, size_t bytes,
                                const char *func) {
    const tt_nccl_api *a = tt_nccl(func);
    if (a == NULL) return TENSOR_ERR_NOT_IMPLEMENTED;
    tensor_status st = tt_nccl_error(a, a->group_start(), NULL, func);
    if (st != TENSOR_OK) return st;
    for (int i = 0; i < c->nlocal && st == TENSOR_OK; i++)
        st = tt_nccl_error(a, a->all_gather(send[i], recv[i], bytes, TT_NCCL_UINT8, c->handles[i], stream_of(c, i)),
                           c->handles[i], func);
    return group_end(a, st, func);
}

static tensor_status all_gatherv(const tensor_comm_t *c, const void *const *send, void *const *recv,
                                 const size_t *bytes, const size_t *displs, const char *func) {
    const tt_nccl_api *a = tt_nccl(func);
    if (a == NULL) return TENSOR_ERR_NOT_IMPLEMENTED;
    tensor_status st = tt_nccl_error(a, a->group_start(), NULL, func);
    if (st != TENSOR_OK) return st;
    /* One broadcast per root, all in one group: NCCL runs them together. */
    for (int i = 0; i < c->nlocal && st == TENSOR_OK; i++)
        for (int r = 0; r < c->nranks && st == TENSOR_OK; r++) {
            char *dst = (char *)recv[i] + displs[r];
            const void *src = c->ranks[i] == r ? send[i] : dst;
            st = tt_nccl_error(a, a->broadcast(src, dst, bytes[r], TT_NCCL_UINT8, r, c->handles[i], stream_of(c, i)),
                               c->handles[i], func);
        }
    return group_end(a, st, func);
}

static tensor_status broadcast(const tensor_comm_t *c, const void *const *send, void *const *recv, size_t bytes,
                               int root, const char *func) {
    const tt_nccl_api *a = tt_nccl(func);
    if (a == NULL) return TENSOR_ERR_NOT_IMPLEMENTED;
    tensor_status st = tt_nccl_error(a, a->group_start(), NULL, func);
    if (st != TENSOR_OK) return st;
    for (int i = 0; i < c->nlocal && st == TENSOR_OK; i++)
        st = tt_nccl_error(a, a->broadcast(send[i], recv[i], bytes, TT_NCCL_UINT8, root, c->handles[i], stream_of(c, i)),
                           c->handles[i], func);
    return group_end(a, st, func);
}

/* all-reduce and reduce-scatter: one NCCL call of the same signature per local rank, grouped. */
typedef tt_nccl_result (*reduce_call)(const void *, void *, size_t, int, int, tt_nccl_comm_t, void *);

static tensor_status reducing(const tensor_comm_t *c, const void *const *send, void *const *recv, size_t count,
                              tensor_dtype dt, tensor_dist_op op, int scatter, const char *func) {
    const tt_nccl_api *a = tt_nccl(func);
    if (a == NULL) return TENSOR_ERR_NOT_IMPLEMENTED;
    int ndt = nccl_dtype(a, dt);
    if (ndt < 0) return check_reduce_dtype(dt, func);
    const reduce_call call = scatter ? a->reduce_scatter : a->all_reduce;
    tensor_status st = tt_nccl_error(a, a->group_start(), NULL, func);
    if (st != TENSOR_OK) return st;
    for (int i = 0; i < c->nlocal && st == TENSOR_OK; i++)
        st = tt_nccl_error(a, call(send[i], recv[i], count, ndt, (int)op, c->handles[i], stream_of(c, i)), c->handles[i],
                           func);
    return group_end(a, st, func);
}

static tensor_status all_reduce(const tensor_comm_t *c, const void *const *send, void *const *recv, size_t count,
                                tensor_dtype dt, tensor_dist_op op, const char *func) {
    return reducing(c, send, recv, count, dt, op, 0, func);
}

/* count: the elements each rank receives. */
static tensor_status reduce_scatter(const tensor_comm_t *c, const void *const *send, void *const *recv,
                                    size_t recvcount, tensor_dtype dt, tensor_dist_op op, const char *func) {
    return reducing(c, send, recv, recvcount, dt, op, 1, func);
}

static void destroy(tensor_comm_t *c) {
    const tt_nccl_api *a = tt_nccl("tensor_comm_release");
    if (a == NULL || !c->owns_handles) return;
    /* A release path: there is no caller to report a failure to. */
    for (int i = 0; i < c->nlocal; i++)
        if (c->handles[i] != NULL) (void)a->comm_destroy(c->handles[i]);
}

const tt_dist_transport tt_nccl_transport = {
    "nccl", all_gather, all_gatherv, broadcast, all_reduce, reduce_scatter, check_reduce_dtype, destroy,
};

#else
typedef int tt_nccl_transport_unused;
#endif

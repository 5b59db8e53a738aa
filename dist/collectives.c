/* The collectives on tensors: checks, the bool rules of PyTorch's NCCL backend, then one
 * transport call (one NCCL group) for all local ranks. */
#include <stdint.h>

#include "dist/dist_internal.h"
#include "runtime/error.h"

/* Every entry of a per-rank array: present, contiguous, on its rank's device, of one dtype. */
static tensor_status check_tensors(const tensor_comm_t *c, const tensor_t *const *ts, const char *name,
                                   const char *func) {
    if (ts == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, name);
    for (int i = 0; i < c->nlocal; i++) {
        const tensor_t *t = ts[i];
        if (t == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: %s[%d] is NULL", func, name, i);
        if (!tensor_device_equal(tensor_get_device(t), c->devices[i])) {
            char want[32], got[32];
            return tensor_error(TENSOR_ERR_DEVICE, "%s: %s[%d] is on %s, local rank %d's device is %s", func, name, i,
                                tensor_device_format(tensor_get_device(t), got, sizeof got), i,
                                tensor_device_format(c->devices[i], want, sizeof want));
        }
        if (!tensor_is_contiguous(t))
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: %s[%d] is not contiguous (NCCL needs flat buffers)",
                                func, name, i);
        if (tensor_get_dtype(t) != tensor_get_dtype(ts[0]))
            return tensor_error(TENSOR_ERR_DTYPE, "%s: %s[%d] is %s, %s[0] is %s", func, name, i,
                                tensor_dtype_name(tensor_get_dtype(t)), name, tensor_dtype_name(tensor_get_dtype(ts[0])));
        if (tensor_numel(t) != tensor_numel(ts[0]))
            return tensor_error(TENSOR_ERR_SHAPE, "%s: %s[%d] has %lld elements, %s[0] %lld", func, name, i,
                                (long long)tensor_numel(t), name, (long long)tensor_numel(ts[0]));
    }
    return TENSOR_OK;
}

/* The op NCCL runs for dt: bool has no arithmetic, so sums and maxima are a logical or and
 * products and minima a logical and (PyTorch's NCCL backend); an average needs a float. */
static tensor_status map_op(const tensor_comm_t *c, tensor_dtype dt, tensor_dist_op op, tensor_dist_op *mapped,
                            const char *func) {
    if ((int)op < TENSOR_DIST_SUM || (int)op > TENSOR_DIST_AVG)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'op' is %d, not a tensor_dist_op", func, (int)op);
    if (op == TENSOR_DIST_AVG && !tensor_dtype_is_floating(dt))
        return tensor_error(TENSOR_ERR_DTYPE, "%s: TENSOR_DIST_AVG needs a floating dtype, got %s", func,
                            tensor_dtype_name(dt));
    *mapped = op;
    if (dt == TENSOR_BOOL) *mapped = op == TENSOR_DIST_SUM || op == TENSOR_DIST_MAX ? TENSOR_DIST_MAX : TENSOR_DIST_MIN;
    return c->xp->check_reduce_dtype(dt, func);
}

static uintptr_t addr(const tensor_t *t) { return (uintptr_t)tensor_data(t); }

/* NCCL accepts one overlap of send and recv buffers: the in-place layout, where a rank's block
 * of the larger buffer is the smaller one. Any other overlap would be read while written. */
static tensor_status check_overlap(const tensor_t *big, const tensor_t *small, int block, const char *func, int i) {
    size_t es = tensor_dtype_size(tensor_get_dtype(big));
    uintptr_t b0 = addr(big), b1 = b0 + (size_t)tensor_numel(big) * es;
    uintptr_t s0 = addr(small), s1 = s0 + (size_t)tensor_numel(small) * es;
    if (s1 <= b0 || b1 <= s0 || tensor_numel(small) == 0) return TENSOR_OK;
    if (s0 == b0 + (size_t)block * (s1 - s0)) return TENSOR_OK;
    return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                        "%s: local rank %d's input and output overlap other than in place (the output's block of this "
                        "rank)", func, i);
}

tensor_status tensor_dist_all_reduce(tensor_comm_t *comm, tensor_t *const *tensors, tensor_dist_op op) {
    const char *func = "tensor_dist_all_reduce";
    if (tt_comm_check(comm, func) || check_tensors(comm, (const tensor_t *const *)tensors, "tensors", func))
        return tensor_last_status();
    tensor_dtype dt = tensor_get_dtype(tensors[0]);
    tensor_dist_op mapped;
    if (map_op(comm, dt, op, &mapped, func) != TENSOR_OK) return tensor_last_status();
    size_t count = (size_t)tensor_numel(tensors[0]);
    if (count == 0) return TENSOR_OK;
    void *bufs[TT_DIST_MAX_LOCAL];
    for (int i = 0; i < comm->nlocal; i++) bufs[i] = tensor_data(tensors[i]);
    return comm->xp->all_reduce(comm, (const void *const *)bufs, bufs, count, dt, mapped, func);
}

tensor_status tensor_dist_broadcast(tensor_comm_t *comm, tensor_t *const *tensors, int root) {
    const char *func = "tensor_dist_broadcast";
    if (tt_comm_check(comm, func) || check_tensors(comm, (const tensor_t *const *)tensors, "tensors", func))
        return tensor_last_status();
    if (root < 0 || root >= comm->nranks)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'root' is %d, outside [0, %d)", func, root,
                            comm->nranks);
    size_t bytes = (size_t)tensor_numel(tensors[0]) * tensor_dtype_size(tensor_get_dtype(tensors[0]));
    if (bytes == 0) return TENSOR_OK;
    void *bufs[TT_DIST_MAX_LOCAL];
    for (int i = 0; i < comm->nlocal; i++) bufs[i] = tensor_data(tensors[i]);
    return comm->xp->broadcast(comm, (const void *const *)bufs, bufs, bytes, root, func);
}

/* outs/ins of a gather or a scatter: each array checked, then big = nranks x small per rank. */
static tensor_status check_pair(const tensor_comm_t *c, const tensor_t *const *outs, const tensor_t *const *ins,
                                bool outs_big, const char *func) {
    if (check_tensors(c, outs, "outs", func) || check_tensors(c, ins, "ins", func)) return tensor_last_status();
    if (tensor_get_dtype(outs[0]) != tensor_get_dtype(ins[0]))
        return tensor_error(TENSOR_ERR_DTYPE, "%s: outs are %s, ins are %s", func,
                            tensor_dtype_name(tensor_get_dtype(outs[0])), tensor_dtype_name(tensor_get_dtype(ins[0])));
    const tensor_t *big = outs_big ? outs[0] : ins[0], *small = outs_big ? ins[0] : outs[0];
    if (tensor_numel(big) != (int64_t)c->nranks * tensor_numel(small))
        return tensor_error(TENSOR_ERR_SHAPE, "%s: %s[0] has %lld elements, expected %d ranks x %lld", func,
                            outs_big ? "outs" : "ins", (long long)tensor_numel(big), c->nranks,
                            (long long)tensor_numel(small));
    for (int i = 0; i < c->nlocal; i++)
        if (check_overlap(outs_big ? outs[i] : ins[i], outs_big ? ins[i] : outs[i], c->ranks[i], func, i))
            return tensor_last_status();
    return TENSOR_OK;
}

tensor_status tensor_dist_all_gather(tensor_comm_t *comm, tensor_t *const *outs, const tensor_t *const *ins) {
    const char *func = "tensor_dist_all_gather";
    if (tt_comm_check(comm, func) || check_pair(comm, (const tensor_t *const *)outs, ins, true, func))
        return tensor_last_status();
    size_t bytes = (size_t)tensor_numel(ins[0]) * tensor_dtype_size(tensor_get_dtype(ins[0]));
    if (bytes == 0) return TENSOR_OK;
    const void *send[TT_DIST_MAX_LOCAL];
    void *recv[TT_DIST_MAX_LOCAL];
    for (int i = 0; i < comm->nlocal; i++) {
        send[i] = tensor_data(ins[i]);
        recv[i] = tensor_data(outs[i]);
    }
    return comm->xp->all_gather(comm, send, recv, bytes, func);
}

tensor_status tensor_dist_reduce_scatter(tensor_comm_t *comm, tensor_t *const *outs, const tensor_t *const *ins,
                                         tensor_dist_op op) {
    const char *func = "tensor_dist_reduce_scatter";
    if (tt_comm_check(comm, func) || check_pair(comm, (const tensor_t *const *)outs, ins, false, func))
        return tensor_last_status();
    tensor_dtype dt = tensor_get_dtype(ins[0]);
    tensor_dist_op mapped;
    if (map_op(comm, dt, op, &mapped, func) != TENSOR_OK) return tensor_last_status();
    size_t count = (size_t)tensor_numel(outs[0]);
    if (count == 0) return TENSOR_OK;
    const void *send[TT_DIST_MAX_LOCAL];
    void *recv[TT_DIST_MAX_LOCAL];
    for (int i = 0; i < comm->nlocal; i++) {
        send[i] = tensor_data(ins[i]);
        recv[i] = tensor_data(outs[i]);
    }
    return comm->xp->reduce_scatter(comm, send, recv, count, dt, mapped, func);
}

/* Collectives on tensors, through NCCL's own calls (so at NCCL's bandwidth): all-reduce,
 * reduce-scatter, all-gather, broadcast.
 *
 * Every call takes one tensor (or one input and one output) per local rank of the communicator:
 * arrays of tensor_comm_local_count(comm) entries, entry i on local rank i's device
 * (dist/comm.h). With one rank per process that is an array of one: &t. The tensors are
 * BORROWED. Each must be contiguous (NCCL reads and writes flat buffers); all entries of a call
 * have one dtype, and every rank of the clique must pass tensors of the same dtype and element
 * count in the same order of calls. That cross-process agreement is NCCL's rule and is not
 * checked across processes (a mismatch makes NCCL read the wrong bytes or wait forever); within
 * a process it is checked.
 *
 * Streams: the work of local rank i is queued on the calling thread's current stream of its
 * device (tensor_cuda_set_stream), after our earlier work there and before our later work; the host
 * does not wait. Several local ranks are issued as one NCCL group.
 *
 * Dtypes: all-gather and broadcast move bytes, so every dtype works. All-reduce and
 * reduce-scatter do arithmetic in NCCL: uint8, int8, int32, int64, float16, bfloat16 (native
 * 16-bit), float32, float64, and the float8 types with NCCL 2.24 or later; bool reduces as
 * PyTorch's NCCL backend does (SUM and MAX: logical or; PROD and MIN: logical and; AVG refused);
 * int16 has no NCCL type (TENSOR_ERR_DTYPE). AVG needs a floating dtype.
 *
 * Determinism: NCCL's reductions run in an order fixed by the communicator, the algorithm and
 * the message size, so an all-reduce gives the same bytes run to run on the same machine and
 * ranks; a float result can change with the number of ranks or NCCL's tuning (NCCL_ALGO,
 * NCCL_PROTO). The sharded reductions (dist/reduce.h) do not rely on it.
 *
 * Errors (nothing is queued): NULL comm or array or entry (TENSOR_ERR_INVALID_ARGUMENT), a tensor
 * not contiguous, dtypes that differ, element counts that do not fit the call, a root outside
 * [0, nranks) (TENSOR_ERR_INVALID_ARGUMENT / TENSOR_ERR_SHAPE / TENSOR_ERR_DTYPE, naming the
 * argument and the local rank), a tensor on another device than its rank's (TENSOR_ERR_DEVICE),
 * a dtype NCCL cannot reduce (TENSOR_ERR_DTYPE), NCCL failing (TENSOR_ERR_CUDA). */
#ifndef TENSOR_DIST_COLLECTIVES_H
#define TENSOR_DIST_COLLECTIVES_H

#include "tinytensor/dist/comm.h"
#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/status.h"
#include "tinytensor/runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tensor_dist_op {
    TENSOR_DIST_SUM = 0,
    TENSOR_DIST_PROD = 1,
    TENSOR_DIST_MAX = 2,
    TENSOR_DIST_MIN = 3,
    TENSOR_DIST_AVG = 4
} tensor_dist_op;

/* In place: every tensors[i] becomes the elementwise `op` of that tensor over all ranks
 * (torch.distributed.all_reduce). */
TENSOR_API tensor_status tensor_dist_all_reduce(tensor_comm_t *comm, tensor_t *const *tensors, tensor_dist_op op);

/* In place: every tensors[i] becomes a copy of rank `root`'s tensor (torch.distributed.broadcast). */
TENSOR_API tensor_status tensor_dist_broadcast(tensor_comm_t *comm, tensor_t *const *tensors, int root);

/* outs[i] (nranks x the input's element count) gets every rank's input, rank 0's first
 * (torch.distributed.all_gather_into_tensor: with inputs of shape [n, ...] and outputs of
 * shape [nranks * n, ...] that is a concatenation along dim 0). */
TENSOR_API tensor_status tensor_dist_all_gather(tensor_comm_t *comm, tensor_t *const *outs, const tensor_t *const *ins);

/* outs[i] (the input's element count / nranks) gets block `rank` of the elementwise `op` of the
 * inputs over all ranks (torch.distributed.reduce_scatter_tensor). */
TENSOR_API tensor_status tensor_dist_reduce_scatter(tensor_comm_t *comm, tensor_t *const *outs,
                                                    const tensor_t *const *ins, tensor_dist_op op);

#ifdef __cplusplus
}
#endif
#endif

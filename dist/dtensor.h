/* Sharded tensors: a logical tensor split along one dim across the ranks of a communicator,
 * each rank holding one slice (its "shard") on its own GPU; or replicated, every rank holding
 * the whole. The reductions of dist/reduce.h take and return them.
 *
 * The descriptor is the sharded dim and, for each global rank, the offset of its slice along
 * that dim; each slice's length is its shard's size there. Slices must tile the dim: no gap, no
 * overlap, each at least one element long, in any order of ranks. Every other dim, the dtype
 * and the rank count are the same on every rank.
 *
 * Ownership: a dtensor is refcounted; creating calls return a new reference. It holds a
 * reference to its communicator and to each local shard (the caller's tensors stay the
 * caller's too: the dtensor neither copies them nor writes to them, so write to a shard only
 * when no reduction of the dtensor is in flight). tensor_dtensor_local returns a borrowed
 * shard. */
#ifndef TENSOR_DIST_DTENSOR_H
#define TENSOR_DIST_DTENSOR_H

#include <stdint.h>

#include "tinytensor/dist/comm.h"
#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/status.h"
#include "tinytensor/runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tensor_dtensor tensor_dtensor_t;

/* A dtensor sharded along `dim` (negative wraps) from this process's shards: locals[i] is
 * local rank i's shard, on its device (tensor_comm_local_count(comm) entries, BORROWED and
 * retained). offsets: tensor_comm_size(comm) entries, global rank r's slice starting at
 * offsets[r] along dim; NULL: in rank order, each slice after the previous one.
 * Collective: every rank calls it; one small all-gather of every rank's shape, dtype and offset
 * checks that they agree and tile the dim, so every rank gets the same answer, then one
 * synchronisation. *out gets a new reference (NULL on error).
 * Errors: NULL comm, locals, an entry or out, a 0-d shard (TENSOR_ERR_INVALID_ARGUMENT), dim out
 * of range (TENSOR_ERR_INDEX), a shard on another device than its rank's (TENSOR_ERR_DEVICE),
 * dtypes that differ (TENSOR_ERR_DTYPE), shapes that differ off dim, slices that do not tile
 * the dim or an empty slice (TENSOR_ERR_SHAPE, naming the rank), a negative offset
 * (TENSOR_ERR_INVALID_ARGUMENT), a logical shape whose size overflows int64 (TENSOR_ERR_OVERFLOW),
 * NCCL failing (TENSOR_ERR_CUDA). */
TENSOR_API tensor_status tensor_dtensor_new(tensor_comm_t *comm, tensor_t *const *locals, int dim,
                                            const int64_t *offsets, tensor_dtensor_t **out);

/* A replicated dtensor: locals[i] is local rank i's copy of the whole tensor. Collective, and
 * checked, as tensor_dtensor_new (same dtype and shape on every rank; the values are not
 * compared). */
TENSOR_API tensor_status tensor_dtensor_replicated(tensor_comm_t *comm, tensor_t *const *locals,
                                                   tensor_dtensor_t **out);

/* Adds a reference; returns x (NULL gives NULL). */
TENSOR_API tensor_dtensor_t *tensor_dtensor_retain(tensor_dtensor_t *x);
/* Drops a reference; the last releases the shards and the communicator. NULL is a no-op. */
TENSOR_API void tensor_dtensor_release(tensor_dtensor_t *x);

/* Local rank `local`'s shard (or copy), BORROWED: valid while x lives; NULL and an error for
 * NULL x or a bad index. */
TENSOR_API tensor_t *tensor_dtensor_local(const tensor_dtensor_t *x, int local);
/* The communicator, BORROWED (NULL and an error for NULL x). */
TENSOR_API tensor_comm_t *tensor_dtensor_comm(const tensor_dtensor_t *x);
/* The sharded dim, or -1 for a replicated dtensor (and -1 with an error for NULL x). */
TENSOR_API int tensor_dtensor_dim(const tensor_dtensor_t *x);
/* The logical tensor's rank and shape (borrowed, ndim values, valid while x lives). -1 / NULL
 * with an error for NULL x. */
TENSOR_API int tensor_dtensor_ndim(const tensor_dtensor_t *x);
TENSOR_API const int64_t *tensor_dtensor_sizes(const tensor_dtensor_t *x);
/* Global rank `rank`'s slice along the sharded dim: its offset and length. -1 with an error for
 * NULL x, a replicated x or a bad rank. */
TENSOR_API int64_t tensor_dtensor_offset(const tensor_dtensor_t *x, int rank);
TENSOR_API int64_t tensor_dtensor_length(const tensor_dtensor_t *x, int rank);

/* The whole logical tensor on every rank: a new replicated dtensor whose copies are new
 * contiguous tensors (an all-gather; equal slices in rank order take NCCL's all-gather, other
 * tilings one broadcast per rank in one group). A replicated x gives a new reference to x.
 * *out gets a new reference. Errors: NULL arguments, device memory, NCCL failing. */
TENSOR_API tensor_status tensor_dtensor_gather(const tensor_dtensor_t *x, tensor_dtensor_t **out);

#ifdef __cplusplus
}
#endif
#endif

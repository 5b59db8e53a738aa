/* Internal: the two paths of a reduction over a dtensor (dist/reduce.h), shared by the ops of
 * dist/reduce_*.c. Not installed. */
#ifndef TENSOR_DIST_REDUCE_INTERNAL_H
#define TENSOR_DIST_REDUCE_INTERNAL_H

#include <stdbool.h>

#include "dist/dist_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tt_dist_plan {
    const char *func;
    const tensor_dtensor_t *x;
    bool keepdim;
    bool reduced[TENSOR_MAX_DIMS]; /* over the logical tensor's dims */
    bool over_shard;               /* x is sharded and its dim is reduced: the fold path */
    int out_ndim;                  /* the result's shape on the fold path */
    int64_t out_sizes[TENSOR_MAX_DIMS];
    int64_t other;                 /* product of the reduced dims' sizes but the sharded dim's */
} tt_dist_plan;

/* Checks x and the dims (NULL or ndims 0: every dim; negative wrap; range and duplicates as the
 * local ops report them) and fills the plan. A replicated x only has its NULL checked: the local
 * op checks the rest. */
tensor_status tt_dist_plan_make(const tensor_dtensor_t *x, const int *dims, int ndims, bool keepdim, tt_dist_plan *p,
                                const char *func);
/* Elements reduced into each output on global rank r (fold path), and in all ranks. */
int64_t tt_dist_plan_count(const tt_dist_plan *p, int rank);
int64_t tt_dist_plan_total(const tt_dist_plan *p);

/* The local path: result i = op(local shard i) for every local rank; the result is sharded
 * along x's dim renumbered (or replicated as x is). NULL with the error named by p->func. */
typedef tensor_t *(*tt_dist_local_fn)(const tensor_t *shard, void *ctx);
tensor_dtensor_t *tt_dist_run_local(const tt_dist_plan *p, tt_dist_local_fn op, void *ctx);

/* The fold path: partial() makes each local rank's nparts partials (contiguous, the same element
 * count and dtype on every rank), they are all-gathered into [nranks, M] tensors, and fold()
 * turns those into the result's M values (contiguous; viewed to the plan's shape); the result is
 * replicated. Each callback returns TENSOR_OK or the error it recorded. */
#define TT_DIST_MAX_PARTS 2
typedef struct tt_dist_fold_ops {
    int nparts;
    tensor_status (*partial)(const tt_dist_plan *p, int local, void *ctx, tensor_t **parts);
    tensor_t *(*fold)(const tt_dist_plan *p, int local, void *ctx, tensor_t *const *gathered);
} tt_dist_fold_ops;
tensor_dtensor_t *tt_dist_run_fold(const tt_dist_plan *p, const tt_dist_fold_ops *ops, void *ctx);

/* The dtype partials of a float result are kept in: float32 for 16-bit and float8 types. */
tensor_dtype tt_dist_acc_dtype(tensor_dtype dt);

#ifdef __cplusplus
}
#endif
#endif

/* Internal to ops/: turning (tensor, dims, keepdim) into what a reduction needs, with PyTorch's
 * rules for dim wrapping, duplicates, 0-d tensors and output shapes. */
#ifndef TENSOR_REDUCE_PLAN_H
#define TENSOR_REDUCE_PLAN_H

#include <stdbool.h>

#include "runtime/tensor_impl.h"

typedef struct tensor_reduce_plan {
    bool mask[TENSOR_MAX_DIMS]; /* mask[d]: input dim d is reduced */
    int in_ndim;
    int num_reduced;
    int out_ndim;                       /* rank of the result (keepdim or not) */
    int64_t out_sizes[TENSOR_MAX_DIMS]; /* shape of the result */
    int64_t keep_sizes[TENSOR_MAX_DIMS]; /* the result's shape with reduced dims kept as 1 (in_ndim dims) */
    int64_t reduced_numel;              /* N: elements folded into each output */
    int64_t out_numel;
    int first_empty_reduced_dim;        /* first reduced dim of size 0, or -1 */
} tensor_reduce_plan;

/* dims == NULL, or ndims == 0 with all_if_empty, reduces every dim. With !all_if_empty an empty
 * list reduces nothing (any/all). Errors name func. */
tensor_status tensor_reduce_plan_make(const tensor_t *t, const int *dims, int ndims, bool keepdim, bool all_if_empty,
                                      tensor_reduce_plan *plan, const char *func);

/* A view of `out` (whose shape is plan->out_sizes) with the input's rank: size-1, stride-0 dims
 * at the reduced positions, which is what the reduction iterator expects. New reference. */
tensor_t *tensor_reduce_keepdim_view(const tensor_t *out, const tensor_reduce_plan *plan, const char *func);

/* Sets every element of t (any device, any layout) to value (tensor_dtype_store_double rules). */
tensor_status tensor_fill_value(tensor_t *t, double value, const char *func);

#endif

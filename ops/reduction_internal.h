/* Internal: what ops/reduction.c hands a backend's TENSOR_OP_USER_REDUCE kernel (through
 * tensor_kernel_params.reduction) for one call of a user reduction. */
#ifndef TENSOR_REDUCTION_INTERNAL_H
#define TENSOR_REDUCTION_INTERNAL_H

#include <stdint.h>

#include "ops/reduction.h"

typedef struct tensor_user_reduce_call {
    const char *name;                /* for messages */
    const tensor_reduction_fns *fns; /* the value type's callbacks (complete) */
    tensor_reduction_value value;    /* what the inputs are converted to */
    size_t acc_size;
    const void *user;
    int64_t count;                   /* elements reduced into each output (whole call) */
    /* A fused built-in's compiled CUDA kernels (the table's name in cuda/reduce_table.h, as
     * "vecdot"); NULL for a user reduction, which runs on the CPU only. */
    const char *cuda_table;
} tensor_user_reduce_call;

#endif

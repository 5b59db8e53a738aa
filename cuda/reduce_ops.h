/* Internal: the CUDA reduction kernels' entries for the dispatch table (cuda/reduce_ops*.cu):
 * per op a kernel (tensor_kernel_fn) and its explain (tensor_kernel_explain_fn: the launch
 * plan of the kernel that the same call would launch, as text; nothing runs). */
#ifndef TENSOR_CUDA_REDUCE_OPS_H
#define TENSOR_CUDA_REDUCE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "ops/dispatch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TENSOR_CUDA_REDUCE_ENTRIES(NAME)                                                           \
    tensor_status tensor_cuda_##NAME##_kernel(struct tensor_iter *iter, const tensor_kernel_params *params); \
    int64_t tensor_cuda_##NAME##_explain(struct tensor_iter *iter, const tensor_kernel_params *params, char *buf, \
                                         size_t size);
TENSOR_CUDA_REDUCE_ENTRIES(sum)
TENSOR_CUDA_REDUCE_ENTRIES(nansum)
TENSOR_CUDA_REDUCE_ENTRIES(prod)
TENSOR_CUDA_REDUCE_ENTRIES(amax)
TENSOR_CUDA_REDUCE_ENTRIES(amin)
TENSOR_CUDA_REDUCE_ENTRIES(mean)
TENSOR_CUDA_REDUCE_ENTRIES(nanmean)
TENSOR_CUDA_REDUCE_ENTRIES(sum_of_squares)
TENSOR_CUDA_REDUCE_ENTRIES(argmax)
TENSOR_CUDA_REDUCE_ENTRIES(argmin)
TENSOR_CUDA_REDUCE_ENTRIES(count_nonzero)
TENSOR_CUDA_REDUCE_ENTRIES(all)
TENSOR_CUDA_REDUCE_ENTRIES(any)
TENSOR_CUDA_REDUCE_ENTRIES(logsumexp)
TENSOR_CUDA_REDUCE_ENTRIES(norm)
TENSOR_CUDA_REDUCE_ENTRIES(max_dim)
TENSOR_CUDA_REDUCE_ENTRIES(min_dim)
TENSOR_CUDA_REDUCE_ENTRIES(var_mean)
/* TENSOR_OP_USER_REDUCE: the fused built-ins (vecdot) by their table; user reductions fail
 * with TENSOR_ERR_NOT_IMPLEMENTED. */
TENSOR_CUDA_REDUCE_ENTRIES(user_reduce)
#undef TENSOR_CUDA_REDUCE_ENTRIES

#ifdef __cplusplus
}
#endif
#endif

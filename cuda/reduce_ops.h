/* Internal: the CUDA reduction kernels' entries for the dispatch table (cuda/reduce_ops*.cu):
 * per op a kernel (tensor_kernel_fn) and its explain (tensor_kernel_explain_fn: the launch
 * plan of the kernel that the same call would launch, as text; nothing runs). */
#ifndef TENSOR_CUDA_REDUCE_OPS_H
#define TENSOR_CUDA_REDUCE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "contract/dispatch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TENSOR_CUDA_REDUCE_ENTRIES(NAME)                                                           \
    tensor_status tensor_cuda_##NAME##_kernel(struct tensor_iter *iter, const tensor_kernel_params *params); \
    int64_t tensor_cuda_##NAME##_explain(struct tensor_iter *iter, const tensor_kernel_params *params, char *buf, \
                                         size_t size);
#define TENSOR_CUDA_REDUCE_ROW_(ID, KERNEL, NAME, TORCH, NOUT, RULE, HAS_ID, IDENTITY, ALL, KIND) \
    TENSOR_CUDA_REDUCE_ENTRIES(KERNEL)
TENSOR_BUILTIN_REDUCTIONS(TENSOR_CUDA_REDUCE_ROW_)
#undef TENSOR_CUDA_REDUCE_ROW_
/* TENSOR_OP_USER_REDUCE: the fused built-ins (vecdot) by their table; user reductions fail
 * with TENSOR_ERR_NOT_IMPLEMENTED. */
TENSOR_CUDA_REDUCE_ENTRIES(user_reduce)
#undef TENSOR_CUDA_REDUCE_ENTRIES

/* Fills the CUDA slots of the stub table (cuda/register.c); backends/backends.c calls it. */
void tt_cuda_register_kernels(void);

#ifdef __cplusplus
}
#endif
#endif

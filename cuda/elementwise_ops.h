/* Internal: the CUDA elementwise kernels' entries for the dispatch table (cuda/elementwise_*.cu,
 * cuda/copy.cu), registered by cuda/register.c. Each runs one built iterator whose operands
 * ops/elementwise*.c has checked (docs/elementwise.md). */
#ifndef TENSOR_CUDA_ELEMENTWISE_OPS_H
#define TENSOR_CUDA_ELEMENTWISE_OPS_H

#include "ops/dispatch.h"

#ifdef __cplusplus
extern "C" {
#endif

tensor_status tensor_cuda_ew_unary_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_ew_binary_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_ew_ternary_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_ew_copy_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_ew_fill_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);

/* Parts of the unary / binary switches that live in other files (compile in parallel):
 * return TENSOR_ERR_NOT_IMPLEMENTED with *handled = 0 for an op they do not cover. */
tensor_status tensor_cuda_ew_unary_math(struct tensor_iter *iter, const tensor_kernel_params *params, int *handled);
tensor_status tensor_cuda_ew_binary_arith(struct tensor_iter *iter, const tensor_kernel_params *params, int *handled);

#ifdef __cplusplus
}
#endif
#endif

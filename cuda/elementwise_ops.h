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

/* The parts of the unary and binary switches (cuda/elementwise_<part>.cu, one file per few ops
 * so that the kernels compile in parallel). Each returns *handled = 0 for an op it does not
 * cover. */
tensor_status tensor_cuda_ew_part_add(struct tensor_iter *iter, const tensor_kernel_params *params, int *handled);
tensor_status tensor_cuda_ew_part_div(struct tensor_iter *iter, const tensor_kernel_params *params, int *handled);
tensor_status tensor_cuda_ew_part_pow(struct tensor_iter *iter, const tensor_kernel_params *params, int *handled);
tensor_status tensor_cuda_ew_part_minmax(struct tensor_iter *iter, const tensor_kernel_params *params, int *handled);
tensor_status tensor_cuda_ew_part_compare(struct tensor_iter *iter, const tensor_kernel_params *params, int *handled);
tensor_status tensor_cuda_ew_part_logical(struct tensor_iter *iter, const tensor_kernel_params *params, int *handled);
tensor_status tensor_cuda_ew_part_unary(struct tensor_iter *iter, const tensor_kernel_params *params, int *handled);
tensor_status tensor_cuda_ew_part_pred(struct tensor_iter *iter, const tensor_kernel_params *params, int *handled);
tensor_status tensor_cuda_ew_part_math_exp(struct tensor_iter *iter, const tensor_kernel_params *params, int *handled);
tensor_status tensor_cuda_ew_part_math_trig(struct tensor_iter *iter, const tensor_kernel_params *params, int *handled);
tensor_status tensor_cuda_ew_part_math_act(struct tensor_iter *iter, const tensor_kernel_params *params, int *handled);

#ifdef __cplusplus
}
#endif
#endif

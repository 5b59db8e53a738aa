/* Internal: the CUDA reduction kernels' entries for the dispatch table (cuda/reduce_ops.cu). */
#ifndef TENSOR_CUDA_REDUCE_OPS_H
#define TENSOR_CUDA_REDUCE_OPS_H

#include "ops/dispatch.h"

#ifdef __cplusplus
extern "C" {
#endif

tensor_status tensor_cuda_sum_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_nansum_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_prod_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_amax_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_amin_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_mean_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_nanmean_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_sum_of_squares_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_argmax_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_argmin_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_count_nonzero_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_all_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_any_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_logsumexp_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_norm_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);

#ifdef __cplusplus
}
#endif
#endif

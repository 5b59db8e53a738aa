/* Internal: the CUDA copy kernels (cuda/copy.cu, cuda/copy_cast.cu) on the elementwise engine
 * (cuda/loops.cuh). A copy is an iterator with one output and one input on one CUDA device, any
 * strides (broadcast included) and any dtype pair, converted with runtime/copy.c's rules. */
#ifndef TENSOR_CUDA_COPY_OPS_H
#define TENSOR_CUDA_COPY_OPS_H

#include "contract/dispatch.h"
#include "runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tensor_iter;

/* Runs a built copy iterator (operands 0 = dst, 1 = src). Errors name func. */
tensor_status tensor_cuda_copy_iter(struct tensor_iter *iter, const char *func);
/* Copies between two different dtypes (cuda/copy_cast.cu): typed, vectorised kernels for the
 * common pairs, the engine's dynamic casting for the rest. */
tensor_status tensor_cuda_copy_cast_iter(struct tensor_iter *iter, const char *func);

/* Dispatch entries (TENSOR_OP_EW_COPY, TENSOR_OP_EW_FILL). */
tensor_status tensor_cuda_ew_copy_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_ew_fill_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);

#ifdef __cplusplus
}
#endif
#endif

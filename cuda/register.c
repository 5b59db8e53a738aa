/* CUDA kernels register here when the table initialises. The reduction engine
 * (cuda/reduce_kernel.cuh, cuda/reduce_ops.cu) fills the slots below; every other op on a CUDA
 * tensor answers "<op> is not implemented for CUDA" until its kernel lands. */
#include "cuda/elementwise_ops.h"
#include "cuda/reduce_ops.h"
#include "ops/dispatch.h"

void tensor_cuda_register_kernels(void) {
    tensor_dispatch_register(TENSOR_OP_SUM, TENSOR_DEVICE_CUDA, tensor_cuda_sum_kernel);
    /* tensor_cuda_nansum_kernel (cuda/reduce_ops.cu) exists but is not registered: its NaN-skipping
     * has not been checked on a GPU with NaN inputs yet. */
    tensor_dispatch_register(TENSOR_OP_PROD, TENSOR_DEVICE_CUDA, tensor_cuda_prod_kernel);
    tensor_dispatch_register(TENSOR_OP_AMAX, TENSOR_DEVICE_CUDA, tensor_cuda_amax_kernel);
    tensor_dispatch_register(TENSOR_OP_AMIN, TENSOR_DEVICE_CUDA, tensor_cuda_amin_kernel);
    tensor_dispatch_register(TENSOR_OP_MEAN, TENSOR_DEVICE_CUDA, tensor_cuda_mean_kernel);
    /* ---- elementwise engine (cuda/loops.cuh; cuda/elementwise_*.cu, cuda/copy.cu) ---- */
    tensor_dispatch_register(TENSOR_OP_EW_UNARY, TENSOR_DEVICE_CUDA, tensor_cuda_ew_unary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_BINARY, TENSOR_DEVICE_CUDA, tensor_cuda_ew_binary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_TERNARY, TENSOR_DEVICE_CUDA, tensor_cuda_ew_ternary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_COPY, TENSOR_DEVICE_CUDA, tensor_cuda_ew_copy_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_FILL, TENSOR_DEVICE_CUDA, tensor_cuda_ew_fill_kernel);
    /* ---- end of the elementwise block ---- */
}

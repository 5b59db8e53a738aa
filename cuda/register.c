/* CUDA kernels register here when the table initialises. The reduction engine
 * (cuda/reduce_kernel.cuh, cuda/reduce_ops*.cu) fills every reduction slot, each checked on a
 * GPU against the CPU backend (tests/cuda/test_cuda_reduce.c), with its explain (the launch
 * plan as text). Every other op on a CUDA tensor answers "<op> is not implemented for CUDA"
 * until its kernel lands. */
#include "cuda/elementwise_ops.h"
#include "cuda/reduce_ops.h"
#include "ops/dispatch.h"

#define REG(OP, NAME)                                                                              \
    do {                                                                                           \
        tensor_dispatch_register(OP, TENSOR_DEVICE_CUDA, tensor_cuda_##NAME##_kernel);             \
        tensor_dispatch_register_explain(OP, TENSOR_DEVICE_CUDA, tensor_cuda_##NAME##_explain);    \
    } while (0)

void tensor_cuda_register_kernels(void) {
    REG(TENSOR_OP_SUM, sum);
    REG(TENSOR_OP_NANSUM, nansum);
    REG(TENSOR_OP_PROD, prod);
    REG(TENSOR_OP_MEAN, mean);
    REG(TENSOR_OP_NANMEAN, nanmean);
    REG(TENSOR_OP_AMAX, amax);
    REG(TENSOR_OP_AMIN, amin);
    REG(TENSOR_OP_MAX_DIM, max_dim);
    REG(TENSOR_OP_MIN_DIM, min_dim);
    REG(TENSOR_OP_ARGMAX, argmax);
    REG(TENSOR_OP_ARGMIN, argmin);
    REG(TENSOR_OP_VAR_MEAN, var_mean);
    REG(TENSOR_OP_NORM, norm);
    REG(TENSOR_OP_LOGSUMEXP, logsumexp);
    REG(TENSOR_OP_COUNT_NONZERO, count_nonzero);
    REG(TENSOR_OP_ALL, all);
    REG(TENSOR_OP_ANY, any);
    REG(TENSOR_OP_SUM_OF_SQUARES, sum_of_squares);
    REG(TENSOR_OP_USER_REDUCE, user_reduce);
    /* ---- elementwise engine (cuda/loops.cuh; cuda/elementwise_*.cu, cuda/copy.cu) ---- */
    tensor_dispatch_register(TENSOR_OP_EW_UNARY, TENSOR_DEVICE_CUDA, tensor_cuda_ew_unary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_BINARY, TENSOR_DEVICE_CUDA, tensor_cuda_ew_binary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_TERNARY, TENSOR_DEVICE_CUDA, tensor_cuda_ew_ternary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_COPY, TENSOR_DEVICE_CUDA, tensor_cuda_ew_copy_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_FILL, TENSOR_DEVICE_CUDA, tensor_cuda_ew_fill_kernel);
    /* ---- end of the elementwise block ---- */
}

/* CUDA kernels register here when the table initialises. The reduction engine
 * (cuda/reduce_kernel.cuh, cuda/reduce_ops*.cu) fills every reduction slot, each checked on a
 * GPU against the CPU backend (tests/cuda/test_cuda_reduce.c), with its explain (the launch
 * plan as text). Every other op on a CUDA tensor answers "<op> is not implemented for CUDA"
 * until its kernel lands. */
#include "cuda/elementwise_ops.h"
#include "cuda/reduce_ops.h"
#include "cuda/scan.h"
#include "contract/dispatch.h"

#define REG(OP, NAME)                                                                              \
    do {                                                                                           \
        tensor_dispatch_register(OP, TENSOR_DEVICE_CUDA, tensor_cuda_##NAME##_kernel);             \
        tensor_dispatch_register_explain(OP, TENSOR_DEVICE_CUDA, tensor_cuda_##NAME##_explain);    \
    } while (0)

void tt_cuda_register_kernels(void) {
    /* Every built-in reduction of contract/reductions.h, then the fused built-ins and user
     * reductions (TENSOR_OP_USER_REDUCE). */
#define REG_ROW_(ID, KERNEL, NAME, TORCH, NOUT, RULE, HAS_ID, IDENTITY, ALL, KIND) REG(TENSOR_OP_##ID, KERNEL);
    TENSOR_BUILTIN_REDUCTIONS(REG_ROW_)
#undef REG_ROW_
    REG(TENSOR_OP_USER_REDUCE, user_reduce);
    /* ---- elementwise engine (cuda/loops.cuh; cuda/elementwise_*.cu, cuda/copy.cu) ---- */
    tensor_dispatch_register(TENSOR_OP_EW_UNARY, TENSOR_DEVICE_CUDA, tensor_cuda_ew_unary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_BINARY, TENSOR_DEVICE_CUDA, tensor_cuda_ew_binary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_TERNARY, TENSOR_DEVICE_CUDA, tensor_cuda_ew_ternary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_COPY, TENSOR_DEVICE_CUDA, tensor_cuda_ew_copy_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_FILL, TENSOR_DEVICE_CUDA, tensor_cuda_ew_fill_kernel);
    /* ---- end of the elementwise block ---- */
    tensor_dispatch_register(TENSOR_OP_SCAN, TENSOR_DEVICE_CUDA, tensor_cuda_scan_kernel);
}

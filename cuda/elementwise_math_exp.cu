// CUDA elementwise ops, one part of the unary/binary switch (one file per few ops so that the
// kernels compile in parallel): exp, exp2, log, log2, log1p, expm1 (the device's libm: may differ from the CPU by an ulp).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY1_F(Exp, tensor_ew_exp)
TT_EW_FAMILY1_F(Exp2, tensor_ew_exp2)
TT_EW_FAMILY1_F(Log, tensor_ew_log)
TT_EW_FAMILY1_F(Log2, tensor_ew_log2)
TT_EW_FAMILY1_F(Log1p, tensor_ew_log1p)
TT_EW_FAMILY1_F(Expm1, tensor_ew_expm1)
}  // namespace

extern "C" tensor_status tensor_cuda_ew_part_math_exp(tensor_iter_t *iter, const tensor_kernel_params *p, int *handled) {
    const char *func = "tensor_unary (CUDA)";
    *handled = 1;
    switch (p->ew_op) {
    case TENSOR_EW_EXP: return run<Exp>(iter, p, -1, func);
    case TENSOR_EW_EXP2: return run<Exp2>(iter, p, -1, func);
    case TENSOR_EW_LOG: return run<Log>(iter, p, -1, func);
    case TENSOR_EW_LOG2: return run<Log2>(iter, p, -1, func);
    case TENSOR_EW_LOG1P: return run<Log1p>(iter, p, -1, func);
    case TENSOR_EW_EXPM1: return run<Expm1>(iter, p, -1, func);
    default: *handled = 0; return TENSOR_ERR_NOT_IMPLEMENTED;
    }
}

// CUDA elementwise ops, one part of the unary/binary switch (one file per few ops so that the
// kernels compile in parallel): sqrt, rsqrt (correctly rounded: bit-equal to the CPU), sin, cos, tan, tanh (device libm).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY1_F(Sqrt, tensor_ew_sqrt)
TT_EW_FAMILY1_F(Rsqrt, tensor_ew_rsqrt)
TT_EW_FAMILY1_F(Sin, tensor_ew_sin)
TT_EW_FAMILY1_F(Cos, tensor_ew_cos)
TT_EW_FAMILY1_F(Tan, tensor_ew_tan)
TT_EW_FAMILY1_F(Tanh, tensor_ew_tanh)
}  // namespace

extern "C" tensor_status tensor_cuda_ew_part_math_trig(tensor_iter_t *iter, const tensor_kernel_params *p, int *handled) {
    const char *func = "tensor_unary (CUDA)";
    *handled = 1;
    switch (p->ew_op) {
    case TENSOR_EW_SQRT: return run<Sqrt>(iter, p, -1, func);
    case TENSOR_EW_RSQRT: return run<Rsqrt>(iter, p, -1, func);
    case TENSOR_EW_SIN: return run<Sin>(iter, p, -1, func);
    case TENSOR_EW_COS: return run<Cos>(iter, p, -1, func);
    case TENSOR_EW_TAN: return run<Tan>(iter, p, -1, func);
    case TENSOR_EW_TANH: return run<Tanh>(iter, p, -1, func);
    default: *handled = 0; return TENSOR_ERR_NOT_IMPLEMENTED;
    }
}

// CUDA elementwise ops, one part of the unary/binary switch (one file per few ops so that the
// kernels compile in parallel): sigmoid, erf, reciprocal, gelu, silu (device libm for exp/erf).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY1_F(Sigmoid, tensor_ew_sigmoid)
TT_EW_FAMILY1_F(Erf, tensor_ew_erf)
TT_EW_FAMILY1_F(Reciprocal, tensor_ew_reciprocal)
TT_EW_FAMILY1_F(Gelu, tensor_ew_gelu)
TT_EW_FAMILY1_F(Silu, tensor_ew_silu)
}  // namespace

extern "C" tensor_status tensor_cuda_ew_part_math_act(tensor_iter_t *iter, const tensor_kernel_params *p, int *handled) {
    const char *func = "tensor_unary (CUDA)";
    *handled = 1;
    switch (p->ew_op) {
    case TENSOR_EW_SIGMOID: return run<Sigmoid>(iter, p, -1, func);
    case TENSOR_EW_ERF: return run<Erf>(iter, p, -1, func);
    case TENSOR_EW_RECIPROCAL: return run<Reciprocal>(iter, p, -1, func);
    case TENSOR_EW_GELU: return run<Gelu>(iter, p, -1, func);
    case TENSOR_EW_SILU: return run<Silu>(iter, p, -1, func);
    default: *handled = 0; return TENSOR_ERR_NOT_IMPLEMENTED;
    }
}

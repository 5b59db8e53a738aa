// CUDA elementwise ops, one part of the unary/binary switch (one file per few ops so that the
// kernels compile in parallel): true, floor and trunc division, remainder (integer division by zero writes 0).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_OP2(DivF32, tensor_ew_div_f32, float, float)
TT_EW_OP2(DivF64, tensor_ew_div_f64, double, double)
using Div = Family<DivF32, DivF64, void>;
TT_EW_FAMILY2_T(DivFloor, tensor_ew_div_floor)
TT_EW_FAMILY2_T(DivTrunc, tensor_ew_div_trunc)
TT_EW_FAMILY2_T(Remainder, tensor_ew_remainder)
}  // namespace

extern "C" tensor_status tensor_cuda_ew_part_div(tensor_iter_t *iter, const tensor_kernel_params *p, int *handled) {
    const char *func = "tensor_binary (CUDA)";
    *handled = 1;
    switch (p->ew_op) {
    case TENSOR_EW_DIV: return run<Div>(iter, p, -1, func);
    case TENSOR_EW_DIV_FLOOR: return run<DivFloor>(iter, p, -1, func);
    case TENSOR_EW_DIV_TRUNC: return run<DivTrunc>(iter, p, -1, func);
    case TENSOR_EW_REMAINDER: return run<Remainder>(iter, p, -1, func);
    default: *handled = 0; return TENSOR_ERR_NOT_IMPLEMENTED;
    }
}

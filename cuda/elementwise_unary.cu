// CUDA elementwise ops, one part of the unary/binary switch (one file per few ops so that the
// kernels compile in parallel): unary ops that keep integer dtypes: neg, abs, sign, relu, floor, ceil, round, trunc.
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY1(Neg, tensor_ew_neg, float, double, int64_t)
TT_EW_FAMILY1(Abs, tensor_ew_abs, float, double, int64_t)
TT_EW_FAMILY1(Sign, tensor_ew_sign, float, double, int64_t)
TT_EW_FAMILY1(Relu, tensor_ew_relu, float, double, int64_t)
TT_EW_FAMILY1(Floor, tensor_ew_floor, float, double, int64_t)
TT_EW_FAMILY1(Ceil, tensor_ew_ceil, float, double, int64_t)
TT_EW_FAMILY1(Round, tensor_ew_round, float, double, int64_t)
TT_EW_FAMILY1(Trunc, tensor_ew_trunc, float, double, int64_t)
}  // namespace

extern "C" tensor_status tensor_cuda_ew_part_unary(tensor_iter_t *iter, const tensor_kernel_params *p, int *handled) {
    const char *func = "tensor_unary (CUDA)";
    *handled = 1;
    switch (p->ew_op) {
    case TENSOR_EW_NEG: return run<Neg>(iter, p, -1, func);
    case TENSOR_EW_ABS: return run<Abs>(iter, p, -1, func);
    case TENSOR_EW_SIGN: return run<Sign>(iter, p, -1, func);
    case TENSOR_EW_RELU: return run<Relu>(iter, p, -1, func);
    case TENSOR_EW_FLOOR: return run<Floor>(iter, p, -1, func);
    case TENSOR_EW_CEIL: return run<Ceil>(iter, p, -1, func);
    case TENSOR_EW_ROUND: return run<Round>(iter, p, -1, func);
    case TENSOR_EW_TRUNC: return run<Trunc>(iter, p, -1, func);
    default: *handled = 0; return TENSOR_ERR_NOT_IMPLEMENTED;
    }
}

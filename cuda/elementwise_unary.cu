// Unary ops that keep integer dtypes or give bool (neg .. bitwise_not) on CUDA, and the unary
// dispatch entry (the float-only math functions are in cuda/elementwise_math.cu).
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
TT_EW_FAMILY1(Isnan, tensor_ew_isnan, bool, bool, bool)
TT_EW_FAMILY1(Isinf, tensor_ew_isinf, bool, bool, bool)
TT_EW_FAMILY1(Isfinite, tensor_ew_isfinite, bool, bool, bool)
TT_EW_FAMILY1(LogicalNot, tensor_ew_logical_not, bool, bool, bool)
TT_EW_OP1(BitNotI64, tensor_ew_bitwise_not_i64, int64_t, int64_t)
using BitNot = Family<void, void, BitNotI64>;
}  // namespace

extern "C" tensor_status tensor_cuda_ew_unary_kernel(tensor_iter_t *iter, const tensor_kernel_params *p) {
    const char *func = "tensor_unary (CUDA)";
    if (p == nullptr) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'params' is NULL", func);
    int handled = 0;
    tensor_status st = tensor_cuda_ew_unary_math(iter, p, &handled);
    if (handled) return st;
    switch (p->ew_op) {
    case TENSOR_EW_NEG: return run<Neg>(iter, p, -1, func);
    case TENSOR_EW_ABS: return run<Abs>(iter, p, -1, func);
    case TENSOR_EW_SIGN: return run<Sign>(iter, p, -1, func);
    case TENSOR_EW_RELU: return run<Relu>(iter, p, -1, func);
    case TENSOR_EW_FLOOR: return run<Floor>(iter, p, -1, func);
    case TENSOR_EW_CEIL: return run<Ceil>(iter, p, -1, func);
    case TENSOR_EW_ROUND: return run<Round>(iter, p, -1, func);
    case TENSOR_EW_TRUNC: return run<Trunc>(iter, p, -1, func);
    case TENSOR_EW_ISNAN: return run<Isnan>(iter, p, -1, func);
    case TENSOR_EW_ISINF: return run<Isinf>(iter, p, -1, func);
    case TENSOR_EW_ISFINITE: return run<Isfinite>(iter, p, -1, func);
    case TENSOR_EW_LOGICAL_NOT: return run<LogicalNot>(iter, p, -1, func);
    case TENSOR_EW_BITWISE_NOT: return run<BitNot>(iter, p, -1, func);
    default:
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: op %d is not a unary elementwise op", func, p->ew_op);
    }
}

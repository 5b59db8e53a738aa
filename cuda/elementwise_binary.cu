// Binary comparisons, min/max, logical and bitwise ops on CUDA, and the binary dispatch entry
// (arithmetic is in cuda/elementwise_arith.cu: separate files compile in parallel).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY2_T(Maximum, tensor_ew_maximum)
TT_EW_FAMILY2_T(Minimum, tensor_ew_minimum)
TT_EW_FAMILY2_T(Fmax, tensor_ew_fmax)
TT_EW_FAMILY2_T(Fmin, tensor_ew_fmin)
TT_EW_FAMILY2(Eq, tensor_ew_eq, bool)
TT_EW_FAMILY2(Ne, tensor_ew_ne, bool)
TT_EW_FAMILY2(Lt, tensor_ew_lt, bool)
TT_EW_FAMILY2(Le, tensor_ew_le, bool)
TT_EW_FAMILY2(Gt, tensor_ew_gt, bool)
TT_EW_FAMILY2(Ge, tensor_ew_ge, bool)
TT_EW_FAMILY2(LogicalAnd, tensor_ew_logical_and, bool)
TT_EW_FAMILY2(LogicalOr, tensor_ew_logical_or, bool)
TT_EW_FAMILY2(LogicalXor, tensor_ew_logical_xor, bool)
TT_EW_OP2(BitAndI64, tensor_ew_bitwise_and_i64, int64_t, int64_t)
TT_EW_OP2(BitOrI64, tensor_ew_bitwise_or_i64, int64_t, int64_t)
TT_EW_OP2(BitXorI64, tensor_ew_bitwise_xor_i64, int64_t, int64_t)
using BitAnd = Family<void, void, BitAndI64>;
using BitOr = Family<void, void, BitOrI64>;
using BitXor = Family<void, void, BitXorI64>;
}  // namespace

extern "C" tensor_status tensor_cuda_ew_binary_kernel(tensor_iter_t *iter, const tensor_kernel_params *p) {
    const char *func = "tensor_binary (CUDA)";
    if (p == nullptr) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'params' is NULL", func);
    int handled = 0;
    tensor_status st = tensor_cuda_ew_binary_arith(iter, p, &handled);
    if (handled) return st;
    switch (p->ew_op) {
    case TENSOR_EW_MAXIMUM: return run<Maximum>(iter, p, -1, func);
    case TENSOR_EW_MINIMUM: return run<Minimum>(iter, p, -1, func);
    case TENSOR_EW_FMAX: return run<Fmax>(iter, p, -1, func);
    case TENSOR_EW_FMIN: return run<Fmin>(iter, p, -1, func);
    case TENSOR_EW_EQ: return run<Eq>(iter, p, -1, func);
    case TENSOR_EW_NE: return run<Ne>(iter, p, -1, func);
    case TENSOR_EW_LT: return run<Lt>(iter, p, -1, func);
    case TENSOR_EW_LE: return run<Le>(iter, p, -1, func);
    case TENSOR_EW_GT: return run<Gt>(iter, p, -1, func);
    case TENSOR_EW_GE: return run<Ge>(iter, p, -1, func);
    case TENSOR_EW_LOGICAL_AND: return run<LogicalAnd>(iter, p, -1, func);
    case TENSOR_EW_LOGICAL_OR: return run<LogicalOr>(iter, p, -1, func);
    case TENSOR_EW_LOGICAL_XOR: return run<LogicalXor>(iter, p, -1, func);
    case TENSOR_EW_BITWISE_AND: return run<BitAnd>(iter, p, -1, func);
    case TENSOR_EW_BITWISE_OR: return run<BitOr>(iter, p, -1, func);
    case TENSOR_EW_BITWISE_XOR: return run<BitXor>(iter, p, -1, func);
    default:
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: op %d is not a binary elementwise op", func, p->ew_op);
    }
}

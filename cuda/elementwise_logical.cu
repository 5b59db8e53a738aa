// CUDA elementwise ops, one part of the unary/binary switch (one file per few ops so that the
// kernels compile in parallel): logical (bool results) and bitwise ops.
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

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

extern "C" tensor_status tensor_cuda_ew_part_logical(tensor_iter_t *iter, const tensor_kernel_params *p, int *handled) {
    const char *func = "tensor_binary (CUDA)";
    *handled = 1;
    switch (p->ew_op) {
    case TENSOR_EW_LOGICAL_AND: return run<LogicalAnd>(iter, p, -1, func);
    case TENSOR_EW_LOGICAL_OR: return run<LogicalOr>(iter, p, -1, func);
    case TENSOR_EW_LOGICAL_XOR: return run<LogicalXor>(iter, p, -1, func);
    case TENSOR_EW_BITWISE_AND: return run<BitAnd>(iter, p, -1, func);
    case TENSOR_EW_BITWISE_OR: return run<BitOr>(iter, p, -1, func);
    case TENSOR_EW_BITWISE_XOR: return run<BitXor>(iter, p, -1, func);
    default: *handled = 0; return TENSOR_ERR_NOT_IMPLEMENTED;
    }
}

// CUDA elementwise ops, one part of the unary/binary switch (one file per few ops so that the
// kernels compile in parallel): isnan, isinf, isfinite, logical_not (bool results), bitwise_not.
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY1(Isnan, tensor_ew_isnan, bool, bool, bool)
TT_EW_FAMILY1(Isinf, tensor_ew_isinf, bool, bool, bool)
TT_EW_FAMILY1(Isfinite, tensor_ew_isfinite, bool, bool, bool)
TT_EW_FAMILY1(LogicalNot, tensor_ew_logical_not, bool, bool, bool)
TT_EW_OP1(BitNotI64, tensor_ew_bitwise_not_i64, int64_t, int64_t)
using BitNot = Family<void, void, BitNotI64>;
}  // namespace

extern "C" tensor_status tensor_cuda_ew_part_pred(tensor_iter_t *iter, const tensor_kernel_params *p, int *handled) {
    const char *func = "tensor_unary (CUDA)";
    *handled = 1;
    switch (p->ew_op) {
    case TENSOR_EW_ISNAN: return run<Isnan>(iter, p, -1, func);
    case TENSOR_EW_ISINF: return run<Isinf>(iter, p, -1, func);
    case TENSOR_EW_ISFINITE: return run<Isfinite>(iter, p, -1, func);
    case TENSOR_EW_LOGICAL_NOT: return run<LogicalNot>(iter, p, -1, func);
    case TENSOR_EW_BITWISE_NOT: return run<BitNot>(iter, p, -1, func);
    default: *handled = 0; return TENSOR_ERR_NOT_IMPLEMENTED;
    }
}

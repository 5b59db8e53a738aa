// CUDA elementwise ops: isnan, isinf, isfinite, logical_not (bool results), bitwise_not.
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

TT_EW_ENTRY(isnan, Isnan, "unary", -1)
TT_EW_ENTRY(isinf, Isinf, "unary", -1)
TT_EW_ENTRY(isfinite, Isfinite, "unary", -1)
TT_EW_ENTRY(logical_not, LogicalNot, "unary", -1)
TT_EW_ENTRY(bitwise_not, BitNot, "unary", -1)

// CUDA elementwise ops: logical (bool results) and bitwise ops.
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

TT_EW_ENTRY(logical_and, LogicalAnd, "binary", -1)
TT_EW_ENTRY(logical_or, LogicalOr, "binary", -1)
TT_EW_ENTRY(logical_xor, LogicalXor, "binary", -1)
TT_EW_ENTRY(bitwise_and, BitAnd, "binary", -1)
TT_EW_ENTRY(bitwise_or, BitOr, "binary", -1)
TT_EW_ENTRY(bitwise_xor, BitXor, "binary", -1)

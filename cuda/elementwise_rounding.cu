// CUDA rounding ops: floor, ceil, round (half to even), trunc; the identity on integer dtypes.
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY1(Floor, tensor_ew_floor, float, double, int64_t)
TT_EW_FAMILY1(Ceil, tensor_ew_ceil, float, double, int64_t)
TT_EW_FAMILY1(Round, tensor_ew_round, float, double, int64_t)
TT_EW_FAMILY1(Trunc, tensor_ew_trunc, float, double, int64_t)
}  // namespace

TT_EW_ENTRY(floor, Floor, "unary", -1)
TT_EW_ENTRY(ceil, Ceil, "unary", -1)
TT_EW_ENTRY(round, Round, "unary", -1)
TT_EW_ENTRY(trunc, Trunc, "unary", -1)

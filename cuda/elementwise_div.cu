// CUDA elementwise ops: true, floor and trunc division, remainder (integer division by zero writes 0).
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

TT_EW_ENTRY(div, Div, "binary", -1)
TT_EW_ENTRY(div_floor, DivFloor, "binary", -1)
TT_EW_ENTRY(div_trunc, DivTrunc, "binary", -1)
TT_EW_ENTRY(remainder, Remainder, "binary", -1)

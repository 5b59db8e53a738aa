// CUDA elementwise ops that keep integer dtypes: neg, abs, sign, relu (the rounding ops are in
// elementwise_rounding.cu).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY1(Neg, tensor_ew_neg, float, double, int64_t)
TT_EW_FAMILY1(Abs, tensor_ew_abs, float, double, int64_t)
TT_EW_FAMILY1(Sign, tensor_ew_sign, float, double, int64_t)
TT_EW_FAMILY1(Relu, tensor_ew_relu, float, double, int64_t)
}  // namespace

TT_EW_ENTRY(neg, Neg, "unary", -1)
TT_EW_ENTRY(abs, Abs, "unary", -1)
TT_EW_ENTRY(sign, Sign, "unary", -1)
TT_EW_ENTRY(relu, Relu, "unary", -1)

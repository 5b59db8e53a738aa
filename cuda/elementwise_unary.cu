// CUDA elementwise ops, a few ops per file so that nvcc compiles them in parallel: unary ops that keep integer dtypes: neg, abs, sign, relu, floor, ceil, round, trunc.
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

TT_EW_ENTRY(neg, Neg, "unary", -1)
TT_EW_ENTRY(abs, Abs, "unary", -1)
TT_EW_ENTRY(sign, Sign, "unary", -1)
TT_EW_ENTRY(relu, Relu, "unary", -1)
TT_EW_ENTRY(floor, Floor, "unary", -1)
TT_EW_ENTRY(ceil, Ceil, "unary", -1)
TT_EW_ENTRY(round, Round, "unary", -1)
TT_EW_ENTRY(trunc, Trunc, "unary", -1)

// CUDA elementwise ops: sqrt, rsqrt (correctly rounded: bit-equal to the CPU), sin, cos, tan, tanh (device
// libm).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY1_F(Sqrt, tensor_ew_sqrt)
TT_EW_FAMILY1_F(Rsqrt, tensor_ew_rsqrt)
TT_EW_FAMILY1_F(Sin, tensor_ew_sin)
TT_EW_FAMILY1_F(Cos, tensor_ew_cos)
TT_EW_FAMILY1_F(Tan, tensor_ew_tan)
TT_EW_FAMILY1_F(Tanh, tensor_ew_tanh)
}  // namespace

TT_EW_ENTRY(sqrt, Sqrt, "unary", -1)
TT_EW_ENTRY(rsqrt, Rsqrt, "unary", -1)
TT_EW_ENTRY(sin, Sin, "unary", -1)
TT_EW_ENTRY(cos, Cos, "unary", -1)
TT_EW_ENTRY(tan, Tan, "unary", -1)
TT_EW_ENTRY(tanh, Tanh, "unary", -1)

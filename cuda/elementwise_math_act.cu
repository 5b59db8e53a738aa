// CUDA elementwise ops: sigmoid, erf, reciprocal, gelu (both forms), silu (device libm for exp/erf).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY1_F(Sigmoid, tensor_ew_sigmoid)
TT_EW_FAMILY1_F(Erf, tensor_ew_erf)
TT_EW_FAMILY1_F(Reciprocal, tensor_ew_reciprocal)
TT_EW_FAMILY1_F(Gelu, tensor_ew_gelu)
TT_EW_FAMILY1_F(Silu, tensor_ew_silu)

// gelu's tanh form as ops/functors/ew_unary.h's, with `x + kKappa * x^3` rounded as two
// operations (nvcc would contract it into one FMA; the CPU backend, in C11 mode, does not).
__device__ __forceinline__ float gelu_tanh_f32(float a) {
    const float x3 = a * a * a;
    const float inner = (float)TENSOR_EW_GELU_TANH_BETA *
                        __fadd_rn(a, __fmul_rn((float)TENSOR_EW_GELU_TANH_KAPPA, x3));
    return 0.5f * a * (1.0f + tanhf(inner));
}
__device__ __forceinline__ double gelu_tanh_f64(double a) {
    const double x3 = a * a * a;
    const double inner = TENSOR_EW_GELU_TANH_BETA * __dadd_rn(a, __dmul_rn(TENSOR_EW_GELU_TANH_KAPPA, x3));
    return 0.5 * a * (1.0 + tanh(inner));
}
TT_EW_OP1(GeluTanhF32, gelu_tanh_f32, float, float)
TT_EW_OP1(GeluTanhF64, gelu_tanh_f64, double, double)
using GeluTanh = Family<GeluTanhF32, GeluTanhF64, void>;
}  // namespace

TT_EW_ENTRY(sigmoid, Sigmoid, "unary", -1)
TT_EW_ENTRY(erf, Erf, "unary", -1)
TT_EW_ENTRY(reciprocal, Reciprocal, "unary", -1)
TT_EW_ENTRY(gelu, Gelu, "unary", -1)
TT_EW_ENTRY(gelu_tanh, GeluTanh, "unary", -1)
TT_EW_ENTRY(silu, Silu, "unary", -1)

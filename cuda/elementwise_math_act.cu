// CUDA elementwise ops, one part of the unary/binary switch (one file per few ops so that the
// kernels compile in parallel): sigmoid, erf, reciprocal, gelu (both forms), silu (device libm for exp/erf).
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

extern "C" tensor_status tensor_cuda_ew_part_math_act(tensor_iter_t *iter, const tensor_kernel_params *p, int *handled) {
    const char *func = "tensor_unary (CUDA)";
    *handled = 1;
    switch (p->ew_op) {
    case TENSOR_EW_SIGMOID: return run<Sigmoid>(iter, p, -1, func);
    case TENSOR_EW_ERF: return run<Erf>(iter, p, -1, func);
    case TENSOR_EW_RECIPROCAL: return run<Reciprocal>(iter, p, -1, func);
    case TENSOR_EW_GELU: return run<Gelu>(iter, p, -1, func);
    case TENSOR_EW_GELU_TANH: return run<GeluTanh>(iter, p, -1, func);
    case TENSOR_EW_SILU: return run<Silu>(iter, p, -1, func);
    default: *handled = 0; return TENSOR_ERR_NOT_IMPLEMENTED;
    }
}

// Float-only unary math on CUDA (exp .. silu): float16/bfloat16/float32 compute in float,
// float64 in double. The device's libm, not the host's: results may differ from the CPU
// backend by an ulp (ops/functors/ew_unary.h says so); on one GPU they are reproducible.
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY1_F(Exp, tensor_ew_exp)
TT_EW_FAMILY1_F(Exp2, tensor_ew_exp2)
TT_EW_FAMILY1_F(Log, tensor_ew_log)
TT_EW_FAMILY1_F(Log2, tensor_ew_log2)
TT_EW_FAMILY1_F(Log1p, tensor_ew_log1p)
TT_EW_FAMILY1_F(Expm1, tensor_ew_expm1)
TT_EW_FAMILY1_F(Sqrt, tensor_ew_sqrt)
TT_EW_FAMILY1_F(Rsqrt, tensor_ew_rsqrt)
TT_EW_FAMILY1_F(Sin, tensor_ew_sin)
TT_EW_FAMILY1_F(Cos, tensor_ew_cos)
TT_EW_FAMILY1_F(Tan, tensor_ew_tan)
TT_EW_FAMILY1_F(Tanh, tensor_ew_tanh)
TT_EW_FAMILY1_F(Sigmoid, tensor_ew_sigmoid)
TT_EW_FAMILY1_F(Erf, tensor_ew_erf)
TT_EW_FAMILY1_F(Reciprocal, tensor_ew_reciprocal)
TT_EW_FAMILY1_F(Gelu, tensor_ew_gelu)
TT_EW_FAMILY1_F(Silu, tensor_ew_silu)
}  // namespace

extern "C" tensor_status tensor_cuda_ew_unary_math(tensor_iter_t *iter, const tensor_kernel_params *p, int *handled) {
    const char *func = "tensor_unary (CUDA)";
    *handled = 1;
    switch (p->ew_op) {
    case TENSOR_EW_EXP: return run<Exp>(iter, p, -1, func);
    case TENSOR_EW_EXP2: return run<Exp2>(iter, p, -1, func);
    case TENSOR_EW_LOG: return run<Log>(iter, p, -1, func);
    case TENSOR_EW_LOG2: return run<Log2>(iter, p, -1, func);
    case TENSOR_EW_LOG1P: return run<Log1p>(iter, p, -1, func);
    case TENSOR_EW_EXPM1: return run<Expm1>(iter, p, -1, func);
    case TENSOR_EW_SQRT: return run<Sqrt>(iter, p, -1, func);
    case TENSOR_EW_RSQRT: return run<Rsqrt>(iter, p, -1, func);
    case TENSOR_EW_SIN: return run<Sin>(iter, p, -1, func);
    case TENSOR_EW_COS: return run<Cos>(iter, p, -1, func);
    case TENSOR_EW_TAN: return run<Tan>(iter, p, -1, func);
    case TENSOR_EW_TANH: return run<Tanh>(iter, p, -1, func);
    case TENSOR_EW_SIGMOID: return run<Sigmoid>(iter, p, -1, func);
    case TENSOR_EW_ERF: return run<Erf>(iter, p, -1, func);
    case TENSOR_EW_RECIPROCAL: return run<Reciprocal>(iter, p, -1, func);
    case TENSOR_EW_GELU: return run<Gelu>(iter, p, -1, func);
    case TENSOR_EW_SILU: return run<Silu>(iter, p, -1, func);
    default: *handled = 0; return TENSOR_ERR_NOT_IMPLEMENTED;
    }
}

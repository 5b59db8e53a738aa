// CUDA reductions with two outputs: max_dim / min_dim (values in the input's dtype + int64
// indices; first index on ties, first NaN wins) and var_mean (Welford: var or std, and the
// mean). The kernel stores the second output through the plan's dst2 (reduce_kernel.cuh's
// store); everything else is the one-output engine with a struct accumulator.
#include "cuda/reduce_ops_impl.cuh"

namespace {

// max_dim / min_dim: every input dtype (bool included: torch.max(bool tensor, dim) works),
// compared exactly in its value type (extreme_by_dtype, as amax/amin), plus int64 indices.
template <class F32, class F64, class I64>
tensor_status minmax_dim(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 2, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype in = iter->operands[2].dtype;
    if (iter->operands[0].dtype != in || iter->operands[1].dtype != TENSOR_INT64) return not_instantiated(iter, a);
    return extreme_by_dtype<F32, F64, I64>(iter, a, in);
}

// var_mean: float inputs (ops/ rejects the others); both outputs in float_result_dtype (the
// input's, float32 for float8).
tensor_status var_mean_impl(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 2, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype in = iter->operands[2].dtype, out = iter->operands[0].dtype;
    if (iter->operands[1].dtype != out) return not_instantiated(iter, a);
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT32) return act<Op<WelfordF32, float, float>>(iter, a);
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT8_E4M3FN) return act<Op<WelfordF32, E4M3, float>>(iter, a);
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT8_E5M2) return act<Op<WelfordF32, E5M2, float>>(iter, a);
    if (out == TENSOR_FLOAT64 && in == TENSOR_FLOAT64) return act<Op<WelfordF64, double, double>>(iter, a);
    if (out == TENSOR_FLOAT16 && in == TENSOR_FLOAT16) return act<Op<WelfordF32, Half, Half>>(iter, a);
    if (out == TENSOR_BFLOAT16 && in == TENSOR_BFLOAT16) return act<Op<WelfordF32, BFloat16, BFloat16>>(iter, a);
    return not_instantiated(iter, a);
}

}  // namespace

TT_CUDA_ENTRIES(max_dim, "max", "tensor_max_dim (CUDA)", 0.0, (minmax_dim<MaxDimF32, MaxDimF64, MaxDimI64>(iter, a)))
TT_CUDA_ENTRIES(min_dim, "min", "tensor_min_dim (CUDA)", 0.0, (minmax_dim<MinDimF32, MinDimF64, MinDimI64>(iter, a)))
TT_CUDA_ENTRIES(var_mean, "var_mean", "tensor_var_mean (CUDA)", 0.0, (var_mean_impl(iter, a)))

// CUDA reduction ops with one output whose dtype ops/ fixes from the input: amax/amin,
// sum_of_squares, argmax/argmin, count_nonzero, all/any, logsumexp and norm. (sum, nansum,
// prod, mean/nanmean take an output dtype: reduce_ops_{sum,nansum,prod,mean}.cu; max_dim,
// min_dim and var_mean have two outputs: reduce_ops_two.cu.) The shared machinery is in
// reduce_ops_impl.cuh.
#include "cuda/reduce_ops_impl.cuh"

namespace {

// sum_of_squares (no dtype= parameter): float32/float64 in their own type; float16/bfloat16
// accumulate in float32 and store in their own type; float8 accumulate and store float32;
// integers and bool in int64.
template <class F32, class F64, class I64>
tensor_status sum_like(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 1, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK; /* ops/ handles empty reductions */
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    if (out == TENSOR_INT64) {
        switch (in) {
        case TENSOR_BOOL: return act<Op<I64, Bool, int64_t>>(iter, a);
        case TENSOR_UINT8: return act<Op<I64, uint8_t, int64_t>>(iter, a);
        case TENSOR_INT8: return act<Op<I64, int8_t, int64_t>>(iter, a);
        case TENSOR_INT16: return act<Op<I64, int16_t, int64_t>>(iter, a);
        case TENSOR_INT32: return act<Op<I64, int32_t, int64_t>>(iter, a);
        case TENSOR_INT64: return act<Op<I64, int64_t, int64_t>>(iter, a);
        default: break;
        }
    } else if (out == TENSOR_FLOAT32) {
        switch (in) {
        case TENSOR_FLOAT32: return act<Op<F32, float, float>>(iter, a);
        case TENSOR_FLOAT8_E4M3FN: return act<Op<F32, E4M3, float>>(iter, a);
        case TENSOR_FLOAT8_E5M2: return act<Op<F32, E5M2, float>>(iter, a);
        default: break;
        }
    } else if (out == TENSOR_FLOAT64 && in == TENSOR_FLOAT64) {
        return act<Op<F64, double, double>>(iter, a);
    } else if (out == TENSOR_FLOAT16 && in == TENSOR_FLOAT16) {
        return act<Op<F32, Half, Half>>(iter, a);
    } else if (out == TENSOR_BFLOAT16 && in == TENSOR_BFLOAT16) {
        return act<Op<F32, BFloat16, BFloat16>>(iter, a);
    }
    return not_instantiated(iter, a);
}

// amax/amin: the output has the input's dtype; values are compared in the functor's value
// type (exact for every dtype: float16/bfloat16/float8 widen to float exactly).
template <class F32, class F64, class I64>
tensor_status minmax_like(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 1, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    if (in != out) return not_instantiated(iter, a);
    switch (in) {
    case TENSOR_BOOL: return act<Op<I64, Bool, Bool>>(iter, a);
    case TENSOR_UINT8: return act<Op<I64, uint8_t, uint8_t>>(iter, a);
    case TENSOR_INT8: return act<Op<I64, int8_t, int8_t>>(iter, a);
    case TENSOR_INT16: return act<Op<I64, int16_t, int16_t>>(iter, a);
    case TENSOR_INT32: return act<Op<I64, int32_t, int32_t>>(iter, a);
    case TENSOR_INT64: return act<Op<I64, int64_t, int64_t>>(iter, a);
    case TENSOR_FLOAT32: return act<Op<F32, float, float>>(iter, a);
    case TENSOR_FLOAT64: return act<Op<F64, double, double>>(iter, a);
    case TENSOR_FLOAT16: return act<Op<F32, Half, Half>>(iter, a);
    case TENSOR_BFLOAT16: return act<Op<F32, BFloat16, BFloat16>>(iter, a);
    case TENSOR_FLOAT8_E4M3FN: return act<Op<F32, E4M3, E4M3>>(iter, a);
    case TENSOR_FLOAT8_E5M2: return act<Op<F32, E5M2, E5M2>>(iter, a);
    default: return not_instantiated(iter, a);
    }
}

// norm (float inputs only, ops/ rejects the others): float16/bfloat16 accumulate in float32
// and round once; float8 gives float32.
template <class F32, class F64>
tensor_status float_like(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 1, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT32) return act<Op<F32, float, float>>(iter, a);
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT8_E4M3FN) return act<Op<F32, E4M3, float>>(iter, a);
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT8_E5M2) return act<Op<F32, E5M2, float>>(iter, a);
    if (out == TENSOR_FLOAT64 && in == TENSOR_FLOAT64) return act<Op<F64, double, double>>(iter, a);
    if (out == TENSOR_FLOAT16 && in == TENSOR_FLOAT16) return act<Op<F32, Half, Half>>(iter, a);
    if (out == TENSOR_BFLOAT16 && in == TENSOR_BFLOAT16) return act<Op<F32, BFloat16, BFloat16>>(iter, a);
    return not_instantiated(iter, a);
}

// logsumexp: as float_like, plus integer and bool inputs converted to float32 (as PyTorch).
tensor_status logsumexp_impl(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 1, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    if (out == TENSOR_FLOAT32) {
        switch (in) {
        case TENSOR_BOOL: return act<Op<LseF32, Bool, float>>(iter, a);
        case TENSOR_UINT8: return act<Op<LseF32, uint8_t, float>>(iter, a);
        case TENSOR_INT8: return act<Op<LseF32, int8_t, float>>(iter, a);
        case TENSOR_INT16: return act<Op<LseF32, int16_t, float>>(iter, a);
        case TENSOR_INT32: return act<Op<LseF32, int32_t, float>>(iter, a);
        case TENSOR_INT64: return act<Op<LseF32, int64_t, float>>(iter, a);
        default: break;
        }
    }
    return float_like<LseF32, LseF64>(iter, a);
}

// Ops with a fixed output dtype whose value type follows the input (count_nonzero, argmax,
// argmin: int64; all/any: bool, or uint8 for a uint8 input): every input dtype, compared
// exactly in float (16-bit and 8-bit floats widen exactly), double or int64.
template <class F32, class F64, class I64, typename Out>
tensor_status by_input(tensor_iter_t *iter, Act &a) {
    switch (iter->operands[1].dtype) {
    case TENSOR_BOOL: return act<Op<I64, Bool, Out>>(iter, a);
    case TENSOR_UINT8: return act<Op<I64, uint8_t, Out>>(iter, a);
    case TENSOR_INT8: return act<Op<I64, int8_t, Out>>(iter, a);
    case TENSOR_INT16: return act<Op<I64, int16_t, Out>>(iter, a);
    case TENSOR_INT32: return act<Op<I64, int32_t, Out>>(iter, a);
    case TENSOR_INT64: return act<Op<I64, int64_t, Out>>(iter, a);
    case TENSOR_FLOAT32: return act<Op<F32, float, Out>>(iter, a);
    case TENSOR_FLOAT64: return act<Op<F64, double, Out>>(iter, a);
    case TENSOR_FLOAT16: return act<Op<F32, Half, Out>>(iter, a);
    case TENSOR_BFLOAT16: return act<Op<F32, BFloat16, Out>>(iter, a);
    case TENSOR_FLOAT8_E4M3FN: return act<Op<F32, E4M3, Out>>(iter, a);
    case TENSOR_FLOAT8_E5M2: return act<Op<F32, E5M2, Out>>(iter, a);
    default: return not_instantiated(iter, a);
    }
}

template <class F32, class F64, class I64>
tensor_status to_int64(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 1, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    if (iter->operands[0].dtype != TENSOR_INT64) return not_instantiated(iter, a);
    return by_input<F32, F64, I64, int64_t>(iter, a);
}

template <class F32, class F64, class I64>
tensor_status all_any(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 1, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype out = iter->operands[0].dtype;
    if (out == TENSOR_BOOL) return by_input<F32, F64, I64, Bool>(iter, a);
    if (out == TENSOR_UINT8) return by_input<F32, F64, I64, uint8_t>(iter, a);
    return not_instantiated(iter, a);
}

// norm: the functor picked from p once per call, as the CPU backend (cpu/reduce_ops.c); the
// general p reaches the kernel as the plan's op_param (Act::param).
tensor_status norm_impl(tensor_iter_t *iter, Act &a) {
    const double p = a.param;
    if (p == 0.0) return float_like<Norm0F32, Norm0F64>(iter, a);
    if (p == 1.0) return float_like<Norm1F32, Norm1F64>(iter, a);
    if (p == 2.0) return float_like<Norm2F32, Norm2F64>(iter, a);
    if (p == INFINITY) return float_like<NormInfF32, NormInfF64>(iter, a);
    if (p == -INFINITY) return float_like<NormNinfF32, NormNinfF64>(iter, a);
    return float_like<NormPF32, NormPF64>(iter, a);
}

}  // namespace

TT_CUDA_ENTRIES(amax, "amax", "tensor_amax (CUDA)", 0.0, (minmax_like<AmaxF32, AmaxF64, AmaxI64>(iter, a)))
TT_CUDA_ENTRIES(amin, "amin", "tensor_amin (CUDA)", 0.0, (minmax_like<AminF32, AminF64, AminI64>(iter, a)))
TT_CUDA_ENTRIES(sum_of_squares, "sum_of_squares", "tensor_sum_of_squares (CUDA)", 0.0,
                (sum_like<SumSqF32, SumSqF64, SumSqI64>(iter, a)))
TT_CUDA_ENTRIES(argmax, "argmax", "tensor_argmax (CUDA)", 0.0, (to_int64<ArgmaxF32, ArgmaxF64, ArgmaxI64>(iter, a)))
TT_CUDA_ENTRIES(argmin, "argmin", "tensor_argmin (CUDA)", 0.0, (to_int64<ArgminF32, ArgminF64, ArgminI64>(iter, a)))
TT_CUDA_ENTRIES(count_nonzero, "count_nonzero", "tensor_count_nonzero (CUDA)", 0.0,
                (to_int64<CountNzF32, CountNzF64, CountNzI64>(iter, a)))
TT_CUDA_ENTRIES(all, "all", "tensor_all (CUDA)", 0.0, (all_any<AllF32, AllF64, AllI64>(iter, a)))
TT_CUDA_ENTRIES(any, "any", "tensor_any (CUDA)", 0.0, (all_any<AnyF32, AnyF64, AnyI64>(iter, a)))
TT_CUDA_ENTRIES(logsumexp, "logsumexp", "tensor_logsumexp (CUDA)", 0.0, (logsumexp_impl(iter, a)))
TT_CUDA_ENTRIES(norm, "norm", "tensor_norm (CUDA)", (params ? params->p : 2.0), (norm_impl(iter, a)))

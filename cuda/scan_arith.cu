// cumsum and cumprod on CUDA: the (input, output) dtype pairs of cuda/scan.h.
#include "cuda/scan_run.cuh"

using namespace tt_scan;

template <typename InS, typename OutS> static tensor_status arith(const tt_scan_job *job) {
    if (job->kind == TENSOR_SCAN_CUMPROD) return run<ArithOp<OutS, true>, InS, OutS>(job, ArithOp<OutS, true>{});
    if constexpr (std::is_same<OutS, int64_t>::value && sizeof(InS) <= 2)
        return run<NarrowSumOp<InS>, InS, OutS>(job, NarrowSumOp<InS>{});
    else
        return run<ArithOp<OutS, false>, InS, OutS>(job, ArithOp<OutS, false>{});
}

extern "C" tensor_status tt_cuda_scan_arith(const tt_scan_job *job) {
    const tensor_dtype in = job->in_dtype, out = job->out_dtype;
    if (in == out) {
        switch (in) {
#define SAME_(D, S)                                                                                                    \
    case D: return arith<S, S>(job);
            TT_SCAN_FOR_EACH_DTYPE(SAME_)
#undef SAME_
        default: break;
        }
    } else if (out == TENSOR_INT64) {
        switch (in) {
        case TENSOR_BOOL: return arith<tt_cvt::Bool, int64_t>(job);
        case TENSOR_UINT8: return arith<uint8_t, int64_t>(job);
        case TENSOR_INT8: return arith<int8_t, int64_t>(job);
        case TENSOR_INT16: return arith<int16_t, int64_t>(job);
        case TENSOR_INT32: return arith<int32_t, int64_t>(job);
        default: break;
        }
    } else if (out == TENSOR_FLOAT32) {
        if (in == TENSOR_FLOAT16) return arith<tt_cvt::Half, float>(job);
        if (in == TENSOR_BFLOAT16) return arith<tt_cvt::BFloat16, float>(job);
    }
    return unsupported(job, job->kind == TENSOR_SCAN_CUMPROD ? "cumprod" : "cumsum");
}
